#!/usr/bin/env bash
# run.sh ROPC SOURCE_DIR WORK_DIR CACHE_DIR
# Builds tests/batch_failure with ropc, runs it with --report and checks what a
# rop::RecordFailure thrown from a batch UDF does (docs/udfs.md, docs/model.md): it names no
# item, so the runtime replays the batch in halves until the item is alone; only that item (and
# its root) fails, and the other root, whose lines shared the batch, is ok.
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
python3 - report.json out <<'PY'
import json, os, re, sys
report = json.load(open(sys.argv[1]))
roots = {os.path.basename(r["name"]): r for r in report["roots"]}
loud = next(c for c in report["calls"] if c["name"] == "loud")
mixed, clean = roots.get("mixed.txt", {}), roots.get("clean.txt", {})
clean_md = os.path.join(sys.argv[2], "clean.md")
checks = {
    "two roots": len(roots) == 2,
    "mixed.txt failed at loud": mixed.get("status") == "failed" and mixed.get("call") == "loud",
    # bisected down to the one item the failure was about: the batch holds 'bad' alone
    "the reason is the UDF's, for 'bad' alone": mixed.get("reason") == "batch [bad] holds 'bad'",
    "clean.txt, which shared the batch, is ok": clean.get("status") == "ok",
    "one item failed, not the batch": loud["failed"] == 1,
    "the batch was bisected": loud["retries"] >= 2,
    "clean.txt's output was written": os.path.exists(clean_md)
        and open(clean_md).read().count("ALPHA") == 1,
}
bad = [name for name, ok in checks.items() if not ok]
for name in bad:
    print("FAIL:", name)
if bad:
    print(json.dumps(report, indent=1)[:3000])
    sys.exit(1)
print(f"ok: a RecordFailure from a batch UDF failed 1 item after {loud['retries']} replayed halves")
PY
