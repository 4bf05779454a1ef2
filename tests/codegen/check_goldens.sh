#!/usr/bin/env bash
# check_goldens.sh ROPC SOURCE_DIR WORK_DIR
# Codegen goldens, as protobuf checks in its own generated descriptors: the C++ that
# `ropc build X.rop --emit=cpp` prints for every example pipeline (examples/*/X.rop, run from the
# example's folder) equals tests/codegen/goldens/X.cpp. It is regenerated into WORK_DIR and
# diffed; a missing, changed or stale golden fails. Every golden line stays under 100 columns and
# wordcount's generated C++ under 200 lines (issue 11: generated code stays thin), not counting
# each Call's code fingerprint (issue 29: from `.code = {` to its `.volatile_udf`), which is data
# that grows with the UDFs' helpers, not code.
# With ROP_UPDATE_GOLDENS=1 the goldens are rewritten instead (tests/codegen/update_goldens.sh).
set -uo pipefail
ropc=$1 src=$2 work=$3
goldens=$src/tests/codegen/goldens
update=${ROP_UPDATE_GOLDENS:-0}
how="regenerate with: ROP_UPDATE_GOLDENS=1 ctest --test-dir BUILD -R codegen.goldens (or tests/codegen/update_goldens.sh BUILD), then review the diff"
rm -rf "$work" && mkdir -p "$work"
export ROP_CACHE_DIR=$work/cache
fail=0
declare -A seen
for rop in "$src"/examples/*/*.rop; do
    name=$(basename "$rop" .rop)
    if [ -n "${seen[$name]:-}" ]; then
        echo "FAIL: two examples named $name: ${seen[$name]} and $rop"
        fail=1
        continue
    fi
    seen[$name]=$rop
    out=$work/$name.cpp
    if ! (cd "$(dirname "$rop")" && "$ropc" build "$name.rop" --emit=cpp >"$out" 2>"$work/$name.err"); then
        echo "FAIL: ropc build $name.rop --emit=cpp failed:"
        cat "$work/$name.err"
        fail=1
        continue
    fi
    golden=$goldens/$name.cpp
    if [ "$update" = 1 ]; then
        cmp -s "$out" "$golden" || {
            cp "$out" "$golden"
            echo "updated: tests/codegen/goldens/$name.cpp"
        }
    elif [ ! -f "$golden" ]; then
        echo "FAIL: missing golden tests/codegen/goldens/$name.cpp for ${rop#"$src"/}; $how"
        fail=1
    elif ! diff -u "$golden" "$out"; then
        echo "FAIL: the generated C++ of ${rop#"$src"/} differs from tests/codegen/goldens/$name.cpp (above: - golden, + now); $how"
        fail=1
    fi
done
for golden in "$goldens"/*.cpp; do
    [ -e "$golden" ] || continue
    name=$(basename "$golden" .cpp)
    if [ -z "${seen[$name]:-}" ]; then
        if [ "$update" = 1 ]; then
            rm "$golden"
            echo "removed: tests/codegen/goldens/$name.cpp (no example)"
        else
            echo "FAIL: stale golden tests/codegen/goldens/$name.cpp: no examples/*/$name.rop; $how"
            fail=1
        fi
    fi
done
for golden in "$goldens"/*.cpp; do
    [ -e "$golden" ] || continue
    long=$(awk -v f="${golden#"$src"/}" 'length > 99 { print f ":" NR ": " length " columns" }' "$golden")
    [ -z "$long" ] || {
        echo "FAIL: generated lines of 100 columns or more:"
        echo "$long"
        fail=1
    }
done
if [ -f "$goldens/wordcount.cpp" ]; then
    lines=$(awk '/\.code = \{/ { data = 1 } !data { n++ } /\.volatile_udf = / { data = 0 } END { print n }' \
        "$goldens/wordcount.cpp")
    [ "$lines" -lt 200 ] || {
        echo "FAIL: wordcount's generated C++ has $lines lines besides its code fingerprints (want under 200)"
        fail=1
    }
fi
[ $fail -eq 0 ] && echo "codegen goldens: ok (${#seen[@]} examples)"
exit $fail
