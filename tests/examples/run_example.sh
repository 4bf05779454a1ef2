#!/usr/bin/env bash
# run_example.sh NAME ROPC SOURCE_DIR WORK_DIR CACHE_DIR
# Copies examples/NAME to WORK_DIR, builds it with ropc (cold, then cached: the cached rebuild
# must take under a second), runs it with --report, and compares exit code, outputs and report
# with tests/examples/NAME/ (expected_exit, expected/ tree, report_checks).
set -euo pipefail
name=$1 ropc=$2 src=$3 work=$4 cache=$5
golden=$src/tests/examples/$name
rm -rf "$work"
mkdir -p "$work"
cp -r "$src/examples/$name/." "$work/"
rm -rf "$work/out"
cd "$work"
export ROP_CACHE_DIR=$cache
now() { date +%s%N; }

t0=$(now)
"$ropc" build "$name.rop" -o "./$name" -O1
t1=$(now)
touch "$name.rop" # same contents: still a cache hit
"$ropc" build "$name.rop" -o "./$name.again" -O1
t2=$(now)
cold=$(((t1 - t0) / 1000000))
cached=$(((t2 - t1) / 1000000))
echo "ropc build $name: first ${cold} ms, unchanged rebuild ${cached} ms"
cmp "./$name" "./$name.again"
if ((cached >= 1000)); then
    echo "FAIL: the unchanged rebuild took ${cached} ms (should be well under a second)"
    exit 1
fi

"./$name" --help >help.txt
grep -q -- "--input" help.txt

set +e
"./$name" --report report.json --journal journal.jsonl >stdout.txt 2>stderr.txt
code=$?
set -e
expected_exit=$(cat "$golden/expected_exit")
if [ "$code" != "$expected_exit" ]; then
    echo "FAIL: exit $code, expected $expected_exit"
    cat stderr.txt
    exit 1
fi
# .rop-names: the dir sinks' resume index, in commit order (schedule-dependent). A .jsonl file
# (std.io.Jsonl) holds its roots' lines in the order they finished (docs/stdlib.md), which the
# scheduler may change: compared as sorted lines.
if ! diff -r -x .rop-names -x '*.jsonl' "$golden/expected" out; then
    echo "FAIL: outputs differ from $golden/expected"
    exit 1
fi
for f in out/*.jsonl; do
    [ -e "$f" ] || continue
    [ -e "$golden/expected/${f##*/}" ] || {
        echo "FAIL: only in out: ${f##*/}"
        exit 1
    }
done
for f in "$golden"/expected/*.jsonl; do
    [ -e "$f" ] || continue
    if ! diff <(sort "$f") <(sort "out/${f##*/}"); then
        echo "FAIL: out/${f##*/} holds other lines than $f"
        exit 1
    fi
done
# report_checks: one python expression per line over `report` (the --report JSON) and `stderr`.
if [ -f "$golden/report_checks" ]; then
    python3 - "$golden/report_checks" report.json stderr.txt <<'PY'
import json, sys
checks = [l.strip() for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")]
report = json.load(open(sys.argv[2]))
stderr = open(sys.argv[3]).read()
bad = [c for c in checks if not eval(c)]
for c in bad:
    print("FAIL: report check:", c)
if bad:
    print(json.dumps(report, indent=1)[:4000])
    print(stderr)
    sys.exit(1)
PY
fi
echo "ok: $name"
