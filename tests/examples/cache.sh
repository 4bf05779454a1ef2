#!/usr/bin/env bash
# cache.sh ROPC SOURCE_DIR WORK_DIR CACHE_DIR [mpi]: re-runs with the result store (--cache DIR,
# docs/runtime.md "Re-runs") on examples/wordcount, through the real ropc and binary. A table of
# edits against the Calls that run again (every other Grain answered from the store), and each
# run's outputs byte for byte those of a run without the store:
#   nothing changed; batch/actors changed (--set); an input touched, without and with
#   --trust-mtime; an input changed by one byte; an input added; one removed; a comment and
#   whitespace in a UDF; a changed constant in count_words; a changed run-time argument.
# Also: two runs on one store at once; a damaged entry; flags that need --cache; with `mpi`, the
# same binary built --mpi under 3 ranks answers from the store the single process filled (whole
# roots on rank 0; Grains on the ranks that host the actors), and one process answers from a
# store the ranks filled.
set -euo pipefail
ropc=$1 src=$2 work=$3 cache=$4 mpi=${5:-}
export ROP_CACHE_DIR=$cache
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
rm -rf "$work"
mkdir -p "$work"
cp -r "$src/examples/wordcount/." "$work/"
cd "$work"
rm -rf out
"$ropc" build wordcount.rop -o ./wc -O1
store=$work/store

# ran NAME: "CALL:MISSES" for each Call of NAME.json's report, sorted; the store's count of runs.
ran() {
    python3 -c 'import json, sys
for c in json.load(open(sys.argv[1]))["calls"]:
    print(c["name"].split("@")[0] + ":" + str(c.get("cache", {}).get("misses", "-")))' "$1.json" |
        sort | tr '\n' ' ' | sed 's/ $//'
}
# run NAME ARGS...: one run with the store into out_NAME, its report NAME.json, stderr NAME.err.
run() {
    local name=$1
    shift
    last_args=("$@")
    rm -rf "out_$name"
    ./wc --output "out_$name" --journal "$name.journal" --report "$name.json" \
        --cache "$store" --explain-cache --no-progress "$@" 2>"$name.err" ||
        fail "$name: exit $?: $(cat "$name.err")"
}
# same_as_clean NAME: a run of the same input and flags without the store (the flags of the
# last run: --set, --trust-mtime); the outputs must be the same.
last_args=()
same_as_clean() {
    local name=$1 flags=()
    for f in "${last_args[@]}"; do
        case $f in --trust-mtime) ;; *) flags+=("$f") ;; esac
    done
    rm -rf out_clean
    ./wc --output out_clean --journal clean.journal --no-progress "${flags[@]}" 2>/dev/null
    # The folder sink's .rop-names lists roots in the order they finished: compared sorted.
    diff -r -x .rop-names "out_$name" out_clean >/dev/null ||
        fail "$name: outputs differ from a run without the store"
    diff <(sort "out_$name/.rop-names") <(sort out_clean/.rop-names) >/dev/null ||
        fail "$name: .rop-names differ from a run without the store"
}
# expect NAME "CALL:MISSES ...": what ran again, by Call.
expect() {
    local got
    got=$(ran "$1")
    [ "$got" = "$2" ] || fail "$1: ran '$got', want '$2'; $(cat "$1.err")"
    same_as_clean "$1"
}

all_ran="kept:14 lines:3 report:3 text:3 totals:3 words:10"
none="kept:0 lines:0 report:0 text:0 totals:0 words:0"
run cold
expect cold "$all_ran"
grep -q "cache: 0 of 36 Grains from the store" cold.err || fail "cold: $(cat cold.err)"
run warm
expect warm "$none"
# Every root is answered whole (its sinks' items from the store): no Grain is made.
grep -q "cache: 36 of 36 Grains from the store, 3 of 3 roots from the store" warm.err ||
    fail "warm: $(cat warm.err)"
run settings --set words.batch=3 --set words.actors=2 --set text.retries=2
expect settings "$none"

touch in/fox.txt
run touched
expect touched "$none"
run touched_mtime --trust-mtime
# With --trust-mtime a file is its path, size and mtime: new keys for the Calls that take the
# files (text, and report beside the totals); text's outputs came out the same, so everything
# between them hits (the early cutoff).
expect touched_mtime "kept:0 lines:0 report:3 text:3 totals:0 words:0"

# One byte of fox.txt: its last byte (the newline) becomes '!'.
cp in/fox.txt fox.orig
head -c -1 fox.orig >in/fox.txt
printf '!' >>in/fox.txt
cmp -s in/fox.txt fox.orig && fail "the edit changes nothing"
run one_byte
# Its last line changed: its text and lines; that line's filter and count; its total and report.
# The other lines of fox.txt hit (same content, same ordinal).
expect one_byte "kept:1 lines:1 report:1 text:1 totals:1 words:1"

printf 'a new file\nwith two lines\n' >in/new.txt
run added
expect added "kept:2 lines:1 report:1 text:1 totals:1 words:2"
rm in/new.txt
run removed
expect removed "$none"

# The UDF's code: a comment and blank lines re-run nothing; a changed constant re-runs its Call
# and what follows from the Grains whose outputs changed, and names the function.
cp udfs/wordcount.cpp wordcount.cpp.orig
python3 - udfs/wordcount.cpp <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace("bool not_blank(const Line& line) {", "// A comment that changes nothing.\n\nbool not_blank(const Line& line)   {")
open(p, "w").write(s)
PY
"$ropc" build wordcount.rop -o ./wc -O1
run comment
expect comment "$none"
python3 - udfs/wordcount.cpp <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace("while (in >> word) ++n;", "while (in >> word) n += 2;")
open(p, "w").write(s)
PY
"$ropc" build wordcount.rop -o ./wc -O1
run code
expect code "kept:0 lines:0 report:3 text:0 totals:3 words:10"
grep -q "code changed in wordcount::count_words at udfs/wordcount.cpp:" code.err ||
    fail "code: no reason naming count_words: $(cat code.err)"
cp wordcount.cpp.orig udfs/wordcount.cpp
"$ropc" build wordcount.rop -o ./wc -O1
run code_back
expect code_back "$none"

# A run-time argument: the report's title.
run argument --set 'report.title=Words'
expect argument "kept:0 lines:0 report:3 text:0 totals:0 words:0"
grep -q "arguments changed" argument.err || fail "argument: $(cat argument.err)"

# Two runs on one store at once: both finish, both write what a clean run writes.
rm -rf "$store"
run_bg() { ./wc --output "out_$1" --journal "$1.journal" --cache "$store" --no-progress 2>"$1.err"; }
last_args=()
run_bg twin_a &
a=$!
run_bg twin_b &
b=$!
wait $a || fail "twin_a: $(cat twin_a.err)"
wait $b || fail "twin_b: $(cat twin_b.err)"
same_as_clean twin_a
same_as_clean twin_b

# A damaged entry: recomputed and reported, never used.
# A byte of every record's payload hash (header bytes 40-55; its payload's length at 16-23) in
# every pack and entry file, the roots' whole answers included: every Grain runs again.
damaged=$(find "$store/packs" "$store/entries" -type f -print0 | python3 -c '
import struct, sys
n = 0
for path in filter(None, sys.stdin.buffer.read().split(b"\0")):
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        at = 0
        while at + 56 <= len(data):
            data[at + 40] ^= 0x5A
            at += 56 + struct.unpack_from("<Q", data, at + 16)[0]
            n += 1
        f.seek(0)
        f.write(data)
print(n)')
[ "$damaged" -gt 0 ] || fail "damaged: the store holds no entry"
run damaged
grep -q "was damaged" damaged.err || fail "damaged: not reported: $(cat damaged.err)"
expect damaged "$all_ran"

# The store's flags need --cache; a store that cannot be made is a usage error.
for flag in --trust-mtime --explain-cache "--cache-max-mb 10"; do
    set +e
    # shellcheck disable=SC2086
    ./wc --output out_flag $flag --no-progress 2>flag.err
    code=$?
    set -e
    [ $code = 2 ] || fail "$flag without --cache: exit $code"
    grep -q "needs --cache DIR" flag.err || fail "$flag: $(cat flag.err)"
done

# A Call under `isolation process`: its worker process runs the misses, the store answers the
# rest in the binary itself.
sed 's/with wordcount.count_words batch 16;/with wordcount.count_words batch 16 isolation process;/' \
    wordcount.rop >isolated.rop
grep -q "isolation process" isolated.rop || fail "isolated.rop: no isolation process"
"$ropc" build isolated.rop -o ./wc.isolated -O1
rm -rf "$store"
for name in isolated_cold isolated_warm; do
    rm -rf "out_$name"
    ./wc.isolated --output "out_$name" --journal "$name.journal" --report "$name.json" \
        --cache "$store" --no-progress 2>"$name.err" || fail "$name: $(cat "$name.err")"
done
last_args=()
expect isolated_cold "$all_ran"
expect isolated_warm "$none"

# The store's commands: info, prune to a size (least recently used first), clear.
./wc --cache "$store" --cache-info >info.txt || fail "--cache-info: exit $?"
grep -qE "^  entries +[1-9][0-9]*, " info.txt || fail "--cache-info: $(cat info.txt)"
./wc --cache "$store" --cache-prune 1K >prune.txt || fail "--cache-prune: exit $?"
grep -qE "^removed [1-9][0-9]* entries .*left" prune.txt || fail "--cache-prune: $(cat prune.txt)"
# What is left fits in 1 KiB: "..., 9 left (966 B)".
grep -qE " left \(([0-9]{1,3}|10[01][0-9]|102[0-4]) B\)$" prune.txt || fail "--cache-prune 1K: $(cat prune.txt)"
./wc --cache "$store" --cache-clear >clear.txt || fail "--cache-clear: exit $?"
./wc --cache "$store" --cache-info >info.txt
grep -qE "^  entries +0, " info.txt || fail "--cache-clear left: $(cat info.txt)"
set +e
./wc --cache "$store" --cache-prune lots 2>prune.err
code=$?
set -e
[ $code = 2 ] && grep -q "expected a size such as 500M" prune.err || fail "--cache-prune lots: exit $code"

if [ "$mpi" = mpi ]; then
    "$ropc" build wordcount.rop -o ./wc.mpi -O1 --mpi
    # run_mpi NAME ARGS...: as run, under 3 ranks (rank 0 drives, ranks 1 and 2 host the actors).
    # Every item over 8 bytes stays on the rank that made it (docs/cluster.md): rank 0 holds
    # references it could not key, so the ranks must key, read and store the Grains themselves.
    run_mpi() {
        local name=$1
        shift
        last_args=("$@")
        rm -rf "out_$name"
        mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -np 3 \
            -x ROP_MPI_INLINE_BYTES=8 ./wc.mpi \
            --output "out_$name" --journal "$name.journal" --report "$name.json" --cache "$store" \
            --explain-cache --no-progress "$@" 2>"$name.err" || fail "$name: $(cat "$name.err")"
        grep -q "mpi: 3 ranks" "$name.err" || fail "$name: not an MPI run: $(cat "$name.err")"
    }
    # A store one process filled: rank 0 answers every root whole.
    rm -rf "$store"
    run filled
    run_mpi mpi
    expect mpi "$none"
    grep -q "3 of 3 roots from the store" mpi.err || fail "mpi: $(cat mpi.err)"
    # The last Call's argument changed: no root is whole, and ranks 1 and 2 read the other
    # Grains from the store themselves; their counts reach rank 0's report and log.
    run_mpi mpi_argument --set 'report.title=Words'
    expect mpi_argument "kept:0 lines:0 report:3 text:0 totals:0 words:0"
    grep -q "cache: 33 of 36 Grains from the store (" mpi_argument.err ||
        fail "mpi_argument: $(cat mpi_argument.err)"
    grep -qE "[1-9][0-9]* fetches rank to rank" mpi_argument.err ||
        fail "mpi_argument: no item stayed on its rank: $(cat mpi_argument.err)"
    # A store the ranks filled: one process reads what ranks 1 and 2 wrote.
    rm -rf "$store"
    run_mpi mpi_cold
    expect mpi_cold "$all_ran"
    run after_mpi --set 'report.title=Words'
    expect after_mpi "kept:0 lines:0 report:3 text:0 totals:0 words:0"
fi
echo "cache.sh: every edit re-ran what it should, and only that"
