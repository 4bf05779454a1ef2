#!/usr/bin/env bash
# B5 (docs/benchmarks.md): ropc check and ropc build wall times on every example, and the size of
# the binary. Usage:
#   tests/examples/b5.sh [ROPC] [REPEATS] [EXAMPLES...]   (default: build/release/bin/ropc, 3,
#                                                          wordcount sections orders)
# Columns, each the median of REPEATS runs of the whole process:
#   check        `ropc check` with binding (its precompiled prelude already made)
#   cold         `ropc build` with an empty cache directory: everything is made, the precompiled
#                headers (bind/, pch/) too
#   new objects  `ropc build` with the cache's objects, binaries and manifests removed but its
#                precompiled headers kept: what a new or edited pipeline costs
#   edit .rop    `ropc build` after a comment is added to the .rop file: binding, the generated
#                file's compile and the link; the UDFs' objects come from the cache
#   cached       `ropc build` unchanged: the pipeline manifest says nothing changed
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
ropc=$(realpath "${1:-$src/build/release/bin/ropc}")
repeats=${2:-3}
shift $(($# > 2 ? 2 : $#))
examples=(wordcount sections orders)
[ $# -eq 0 ] || examples=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ms() { echo $((($2 - $1) / 1000000)); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# timed VAR COMMAND...: appends COMMAND's wall time in ms to the array VAR; stderr kept in a file.
timed() {
    local -n into=$1
    shift
    local t0 t1
    t0=$(date +%s%N)
    "$@" 2>"$work/stderr.txt" || {
        cat "$work/stderr.txt"
        exit 1
    }
    t1=$(date +%s%N)
    into+=("$(ms "$t0" "$t1")")
}
export ROP_CACHE_DIR=$work/cache
printf "| example | check (ms) | build cold (ms) | build, new objects (ms) | build, edited .rop (ms)"
printf " | build cached (ms) | binary (MB) |\n|---|---|---|---|---|---|---|\n"
for name in "${examples[@]}"; do
    rm -rf "${work:?}/$name"
    cp -r "$src/examples/$name" "$work/$name"
    cd "$work/$name"
    checks=() colds=() news=() edits=() cacheds=()
    "$ropc" check "$name.rop" 2>/dev/null # makes binding's prelude: check is timed warm
    for ((i = 0; i < repeats; i++)); do
        timed checks "$ropc" check "$name.rop"
        rm -rf "$work/cache"
        timed colds "$ropc" build "$name.rop" -o "$name"
        rm -rf "$work/cache/obj" "$work/cache/bin" "$work/cache/gen" "$work/cache/pipelines"
        timed news "$ropc" build "$name.rop" -o "$name"
        echo "# edit $i" >>"$name.rop"
        timed edits "$ropc" build "$name.rop" -o "$name"
        timed cacheds "$ropc" build "$name.rop" -o "$name"
    done
    size=$(stat -c %s "$name")
    printf "| %s | %s | %s | %s | %s | %s | %s |\n" "$name" \
        "$(printf '%s\n' "${checks[@]}" | median)" "$(printf '%s\n' "${colds[@]}" | median)" \
        "$(printf '%s\n' "${news[@]}" | median)" "$(printf '%s\n' "${edits[@]}" | median)" \
        "$(printf '%s\n' "${cacheds[@]}" | median)" \
        "$(awk "BEGIN {printf \"%.1f\", $size / 1048576}")"
done
