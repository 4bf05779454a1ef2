#!/usr/bin/env bash
# mutated_pdfs.sh ROPC SOURCE_DIR WORK_DIR GOOD_PDF COUNT [SEED]
# The mineru example over COUNT mutated copies of GOOD_PDF (tests/soak/mutate_pdfs.py: truncated,
# bit-flipped, bent numbers, ranges zeroed/deleted/duplicated) plus the good file itself, in one
# run. Checks what issue 12 promises of hostile input: the run ends (exit 0 or 3, never a crash
# or an abort); the report has every root; the good file is ok and its Markdown is byte-identical
# to a run of it alone; every failed root has a reason naming its file and left no output; every
# ok root wrote its Markdown and content list. The ctest runs 60 files with a fixed seed; the
# soak (docs/benchmarks.md) runs a few hundred with a random one (printed, to reproduce).
set -euo pipefail
ropc=$1 src=$2 work=$3 good=$4 count=$5 seed=${6:-$RANDOM}
echo "mutated_pdfs: $count files, seed $seed"
rm -rf "$work"
mkdir -p "$work/alone/in" "$work/all"
cp "$src/examples/mineru/mineru.rop" "$work/"
cd "$work"
export OMP_THREAD_LIMIT=1
"$ropc" build mineru.rop -o ./mineru -O1 >/dev/null
cp "$good" alone/in/good.pdf
python3 "$src/tests/soak/mutate_pdfs.py" "$good" all/in "$count" "$seed" >mutations.txt
(cd alone && ../mineru --no-progress --report report.json >/dev/null 2>stderr.txt)
set +e
(cd all && ../mineru --no-progress --report report.json >stdout.txt 2>stderr.txt)
code=$?
set -e
if [ "$code" != 0 ] && [ "$code" != 3 ]; then
    echo "FAIL: exit $code (seed $seed)"
    tail -20 all/stderr.txt
    exit 1
fi
python3 - "$count" <<'PY'
import json, os, sys
count = int(sys.argv[1])
report = json.load(open("all/report.json"))
mutations = dict(line.split(" ", 1) for line in open("mutations.txt").read().splitlines())
errors = []
roots = report["roots"]
if len(roots) != count + 1:
    errors.append(f"{len(roots)} roots in the report, expected {count + 1}")
failed = ok = 0
for r in roots:
    stem = os.path.basename(r["name"])[:-4]
    md = f"all/out/markdown/{stem}.md"
    cl = f"all/out/content_list/{stem}.json"
    if r["status"] == "failed":
        failed += 1
        if not r.get("reason", "").startswith(r["name"] + ": "):
            errors.append(f"{r['name']}: reason does not name the file: {r.get('reason')!r}")
        if os.path.exists(md) or os.path.exists(cl):
            errors.append(f"{r['name']}: failed but left output behind")
    elif r["status"] == "ok":
        ok += 1
        if not os.path.exists(md) or not os.path.exists(cl):
            errors.append(f"{r['name']}: ok but without its Markdown and content list")
    else:
        errors.append(f"{r['name']}: status {r['status']} ({mutations.get(stem + '.pdf')})")
good = [r for r in roots if r["name"].endswith("/good.pdf")]
if len(good) != 1 or good[0]["status"] != "ok":
    errors.append(f"good.pdf is not ok: {good}")
elif open("all/out/markdown/good.md", "rb").read() != open("alone/out/markdown/good.md", "rb").read():
    errors.append("good.pdf's Markdown differs from a run of it alone")
if "crashed" in open("all/stderr.txt").read():
    errors.append("the run reported a crash")
print(f"mutated_pdfs: {ok} ok (good.pdf and {ok - 1} readable mutants), {failed} failed with a reason")
for e in errors[:20]:
    print("FAIL:", e)
sys.exit(1 if errors else 0)
PY
