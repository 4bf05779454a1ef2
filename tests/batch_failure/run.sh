#!/usr/bin/env bash
# run.sh ROPC SOURCE_DIR WORK_DIR CACHE_DIR
# Builds the two pipelines of tests/batch_failure with ropc, runs each with --report and checks
# what a batch UDF's failure of one item does (docs/udfs.md, "Failing one item of a batch"):
# - batch_failure: a thrown rop::RecordFailure names no item, so the runtime replays the batch
#   in halves until the item is alone;
# - batch_item_result: a rop::ItemResult failure names its item: no replay;
# - batch_isolated: a segfault under isolation process kills one worker; the batch is replayed on
#   fresh workers and bisected down to the line.
# Either way only that item (and its root) fails, with the UDF's reason, and the other root,
# whose lines shared the batch, is ok and written.
set -euo pipefail
ropc=$(realpath "$1") src=$(realpath "$2") work=$3 cache=$(realpath -m "$4")
rm -rf "$work"
mkdir -p "$work"
cp -r "$src/tests/batch_failure/." "$work/"
cd "$work"
export ROP_CACHE_DIR=$cache

for pipeline in batch_failure batch_item_result batch_isolated; do
    rm -rf out out.journal
    "$ropc" build "$pipeline.rop" -o "./$pipeline" -O1
    set +e
    "./$pipeline" --report "$pipeline.json" >"$pipeline.stdout" 2>"$pipeline.stderr"
    code=$?
    set -e
    if [ "$code" != 3 ]; then # 3: some roots failed
        echo "FAIL: $pipeline exited $code, expected 3"
        cat "$pipeline.stderr"
        exit 1
    fi
    python3 - "$pipeline" "$pipeline.json" out <<'PY'
import json, os, sys
pipeline, report = sys.argv[1], json.load(open(sys.argv[2]))
roots = {os.path.basename(r["name"]): r for r in report["roots"]}
loud = next(c for c in report["calls"] if c["name"] == "loud")
mixed, clean = roots.get("mixed.txt", {}), roots.get("clean.txt", {})
clean_md = os.path.join(sys.argv[3], "clean.md")
if pipeline == "batch_failure":
    # bisected down to the one item the failure was about: the batch holds 'bad' alone
    reason, replays = "batch [bad] holds 'bad'", loud["retries"] >= 2
elif pipeline == "batch_item_result":
    # named by its ItemResult inside its batch: nothing replayed
    reason, replays = "line 'bad' is bad", loud["retries"] == 0
else:
    # the worker died on it: infra replays on fresh workers, then halves down to the line
    reason, replays = None, loud["infra_retries"] >= 2
checks = {
    "two roots": len(roots) == 2,
    "mixed.txt failed at loud": mixed.get("status") == "failed" and mixed.get("call") == "loud",
    "the reason is the UDF's, for 'bad' alone": mixed.get("reason") == reason if reason
        else mixed.get("reason", "").startswith("infra: worker killed by SIGSEGV (after "),
    "clean.txt, which shared the batch, is ok": clean.get("status") == "ok",
    "one item failed, not the batch": loud["failed"] == 1,
    "replayed as the failure's kind requires": replays,
    "clean.txt's output was written": os.path.exists(clean_md)
        and open(clean_md).read().count("ALPHA") == 1,
}
bad = [name for name, ok in checks.items() if not ok]
for name in bad:
    print(f"FAIL ({pipeline}):", name)
if bad:
    print(json.dumps(report, indent=1)[:3000])
    sys.exit(1)
print(f"ok: {pipeline}: 1 item failed after {loud['retries'] + loud['infra_retries']} replays")
PY
done
