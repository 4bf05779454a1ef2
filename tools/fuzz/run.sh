#!/usr/bin/env bash
# Builds tools/fuzz/fuzz_parser with clang + libFuzzer + ASan/UBSan and runs it for N seconds
# (default 60) in one process, seeded from tools/fuzz/corpus with the keyword dictionary.
#   tools/fuzz/run.sh 600
# Environment: ROP_FUZZ_BUILD (build dir, default build/fuzz), CC/CXX (default clang/clang++).
# New interesting inputs go to $ROP_FUZZ_BUILD/corpus; crashes to $ROP_FUZZ_BUILD/artifacts/.
set -euo pipefail

seconds=${1:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${ROP_FUZZ_BUILD:-$root/build/fuzz}

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER="${CC:-clang}" -DCMAKE_CXX_COMPILER="${CXX:-clang++}" \
    -DROP_FUZZ=ON -DROP_BUILD_TESTS=OFF -DROP_BUILD_RUNTIME=OFF >/dev/null
cmake --build "$build" --target fuzz_parser

mkdir -p "$build/corpus" "$build/artifacts"
exec "$build/tools/fuzz/fuzz_parser" \
    -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -dict="$root/tools/fuzz/rop.dict" -artifact_prefix="$build/artifacts/" \
    "$build/corpus" "$root/tools/fuzz/corpus"
