#!/usr/bin/env bash
# The format gate (ctest "format"): every source git tracks matches the project's style, each
# language under one formatter of a pinned version that tools/setup.sh installs from Debian:
#   C++     clang-format 19 with .clang-format, except test inputs whose exact bytes are the
#           point: fixtures, the codegen goldens (ropc's output, byte for byte), UDF headers whose
#           line:col the diagnostics goldens quote, and code that must not compile
#   shell   shfmt 3.6, 4-space indent (-i 4): *.sh, *.bash and .ci/run
#   Python  black 23.1, 100 columns like the C++ (-l 100): *.py
#   tests/check_format.sh          lists the files that differ, exits 1 if any
#   tests/check_format.sh --fix    formats them in place
set -euo pipefail
cd "$(dirname "$0")/.."
clang_format=${CLANG_FORMAT:-clang-format-19}
shfmt_style=(-i 4)
black_style=(-l 100)
for tool in "$clang_format" shfmt black; do
    command -v "$tool" >/dev/null || {
        echo "format: $tool not found (run tools/setup.sh)"
        exit 1
    }
done

# Tracked files still in the working tree (one deleted there is skipped).
present() { while read -r f; do if [ -f "$f" ]; then echo "$f"; fi; done; }
mapfile -t cpp < <(git ls-files '*.h' '*.hpp' '*.cpp' '*.cc' |
    grep -vE '(^|/)fixtures/|^tests/codegen/goldens/|^tests/diagnostics/udfs/|^tests/examples/compile_error/' |
    present)
mapfile -t shell < <(git ls-files '*.sh' '*.bash' .ci/run | present)
mapfile -t python < <(git ls-files '*.py' | present)

bad_cpp=() bad_shell=() bad_python=()
for f in "${cpp[@]}"; do
    if ! "$clang_format" --dry-run -Werror "$f" >/dev/null 2>&1; then bad_cpp+=("$f"); fi
done
for f in "${shell[@]}"; do
    if ! shfmt "${shfmt_style[@]}" -d "$f" >/dev/null 2>&1; then bad_shell+=("$f"); fi
done
if [ ${#python[@]} -ne 0 ]; then
    # One black for every file (it starts slowly): "would reformat F", "error: cannot format F: ..."
    mapfile -t bad_python < <(black "${black_style[@]}" --check "${python[@]}" 2>&1 |
        sed -nE 's/^would reformat (.*)$/\1/p; s/^error: cannot format ([^:]*):.*$/\1/p')
fi
total=$((${#cpp[@]} + ${#shell[@]} + ${#python[@]}))
bad=$((${#bad_cpp[@]} + ${#bad_shell[@]} + ${#bad_python[@]}))

if [ "${1:-}" = --fix ]; then
    if [ ${#bad_cpp[@]} -ne 0 ]; then "$clang_format" -i "${bad_cpp[@]}"; fi
    if [ ${#bad_shell[@]} -ne 0 ]; then shfmt "${shfmt_style[@]}" -w "${bad_shell[@]}"; fi
    if [ ${#bad_python[@]} -ne 0 ]; then black "${black_style[@]}" -q "${bad_python[@]}"; fi
    echo "format: fixed $bad of $total files"
    exit 0
fi
if [ "$bad" -ne 0 ]; then
    for f in "${bad_cpp[@]}"; do echo "format: $f differs from .clang-format"; done
    for f in "${bad_shell[@]}"; do echo "format: $f differs from shfmt ${shfmt_style[*]}"; done
    for f in "${bad_python[@]}"; do echo "format: $f differs from black ${black_style[*]}"; done
    echo "format: $bad of $total files differ; run tests/check_format.sh --fix"
    exit 1
fi
echo "format: ${#cpp[@]} C++, ${#shell[@]} shell and ${#python[@]} Python files match their style"
