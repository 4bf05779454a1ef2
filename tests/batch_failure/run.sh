#!/usr/bin/env bash
# run.sh ROPC SOURCE_DIR WORK_DIR CACHE_DIR
# Builds tests/batch_failure with ropc, runs it with --report and checks what a
# rop::RecordFailure thrown from a batch UDF does (docs/udfs.md, docs/model.md): every item of
# that batch is failed with its reason, not only the one it was about, and so is their root.
set -euo pipefail
ropc=$(realpath "$1") src=$(realpath "$2") work=$3 cache=$(realpath -m "$4")
rm -rf "$work"
mkdir -p "$work"
cp -r "$src/tests/batch_failure/." "$work/"
cd "$work"
export ROP_CACHE_DIR=$cache
"$ropc" build batch_failure.rop -o ./batch_failure -O1
set +e
./batch_failure --report report.json > stdout.txt 2> stderr.txt
code=$?
set -e
if [ "$code" != 3 ]; then  # 3: some roots failed
    echo "FAIL: exit $code, expected 3"
    cat stderr.txt
    exit 1
fi
python3 - report.json <<'PY'
import json, re, sys
report = json.load(open(sys.argv[1]))
root = report["roots"][0]
loud = next(c for c in report["calls"] if c["name"] == "loud")
m = re.fullmatch(r"batch \[(.*)\] holds 'bad'", root.get("reason", ""))
checks = {
    "the root failed at loud": root["status"] == "failed" and root.get("call") == "loud",
    "the reason is the UDF's": m is not None,
}
if m:
    batch = m.group(1).split(", ")
    # the lines after the first share a batch (shout_all's first call waits), so the failing
    # batch holds "bad" and at least one good line
    checks["the failing batch holds good lines too"] = len(batch) >= 2 and "bad" in batch
    checks["every item of the batch failed, not one"] = loud["failed"] == len(batch)
bad = [name for name, ok in checks.items() if not ok]
for name in bad:
    print("FAIL:", name)
if bad:
    print(json.dumps(report, indent=1)[:3000])
    sys.exit(1)
print(f"ok: a RecordFailure from a batch UDF failed all {loud['failed']} items of its batch")
PY
