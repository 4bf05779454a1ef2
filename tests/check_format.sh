#!/usr/bin/env bash
# The format gate (ctest "format"): every C++ source git tracks matches .clang-format under
# clang-format 19 (tools/setup.sh installs clang-format-19), except test inputs whose exact bytes
# are the point: fixtures, the codegen goldens (ropc's output, byte for byte), UDF headers whose
# line:col the diagnostics goldens quote, and code that must not compile.
#   tests/check_format.sh          lists the files that differ, exits 1 if any
#   tests/check_format.sh --fix    formats them in place
set -euo pipefail
cd "$(dirname "$0")/.."
fmt=${CLANG_FORMAT:-clang-format-19}
command -v "$fmt" >/dev/null || {
    echo "format: $fmt not found (run tools/setup.sh)"
    exit 1
}
mapfile -t files < <(git ls-files '*.h' '*.hpp' '*.cpp' '*.cc' |
    grep -vE '(^|/)fixtures/|^tests/codegen/goldens/|^tests/diagnostics/udfs/|^tests/examples/compile_error/')
bad=()
for f in "${files[@]}"; do
    [ -f "$f" ] || continue # deleted in the working tree
    if ! "$fmt" --dry-run -Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
done
if [ "${1:-}" = --fix ]; then
    [ ${#bad[@]} -eq 0 ] || "$fmt" -i "${bad[@]}"
    echo "format: fixed ${#bad[@]} of ${#files[@]} files"
    exit 0
fi
if [ ${#bad[@]} -ne 0 ]; then
    printf 'format: %s differs from .clang-format\n' "${bad[@]}"
    echo "format: ${#bad[@]} of ${#files[@]} files differ; run tests/check_format.sh --fix"
    exit 1
fi
echo "format: ${#files[@]} files match .clang-format"
