#!/usr/bin/env bash
# B5 (docs/benchmarks.md): ropc check and ropc build wall times on every example, cold (empty
# cache) and cached (unchanged rebuild), and the size of the binary. Usage:
#   tests/examples/b5.sh [ROPC] [REPEATS]      (default: build/release/bin/ropc, 3)
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
ropc=$(realpath "${1:-$src/build/release/bin/ropc}")
repeats=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ms() { echo $(( ($2 - $1) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf "| example | ropc check (ms) | ropc build cold (ms) | ropc build cached (ms) | binary (MB) |\n"
printf "|---|---|---|---|---|\n"
for name in wordcount sections orders; do
    cp -r "$src/examples/$name" "$work/$name"
    cd "$work/$name"
    checks=() colds=() cacheds=()
    for ((i = 0; i < repeats; i++)); do
        t0=$(date +%s%N); "$ropc" check "$name.rop"; t1=$(date +%s%N)
        checks+=("$(ms "$t0" "$t1")")
        rm -rf "$work/cache"
        t0=$(date +%s%N); ROP_CACHE_DIR=$work/cache "$ropc" build "$name.rop" -o "$name"; t1=$(date +%s%N)
        colds+=("$(ms "$t0" "$t1")")
        t0=$(date +%s%N); ROP_CACHE_DIR=$work/cache "$ropc" build "$name.rop" -o "$name"; t1=$(date +%s%N)
        cacheds+=("$(ms "$t0" "$t1")")
    done
    size=$(stat -c %s "$name")
    printf "| %s | %s | %s | %s | %s |\n" "$name" \
        "$(printf '%s\n' "${checks[@]}" | median)" "$(printf '%s\n' "${colds[@]}" | median)" \
        "$(printf '%s\n' "${cacheds[@]}" | median)" "$(awk "BEGIN {printf \"%.1f\", $size / 1048576}")"
done
