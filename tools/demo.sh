#!/usr/bin/env bash
# The main job: installs what is missing, builds ropc, checks every example, then compiles the
# wordcount example into a standalone binary with `ropc build` and runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
bash tools/build.sh release
ropc=build/release/bin/ropc
echo "== ropc check on every example =="
status=0
for f in examples/*.rop examples/*/*.rop; do
    [ -e "$f" ] || continue
    if "$ropc" check "$f"; then echo "ok   $f"; else echo "FAIL $f"; status=1; fi
done
echo "== the checked plan of each example (JSON) and its Domain graph (DOT) are in out/ =="
mkdir -p out
for f in examples/*/*.rop; do
    [ -e "$f" ] || continue
    name=$(basename "$f" .rop)
    "$ropc" --emit=plan "$f" > "out/$name.plan.json"
    "$ropc" graph "$f" > "out/$name.dot"
    echo "  out/$name.plan.json  out/$name.dot"
done
echo "== ropc build examples/wordcount/wordcount.rop -o out/wordcount =="
start=$(date +%s%N)
"$ropc" build examples/wordcount/wordcount.rop -o out/wordcount
echo "  built in $(( ($(date +%s%N) - start) / 1000000 )) ms (an unchanged rebuild comes from the cache)"
rm -rf out/wordcount-out
out/wordcount --input 'files=examples/wordcount/in/*.txt' --output report=out/wordcount-out \
    --report out/wordcount-report.json
echo "== the binary out/wordcount wrote one Markdown report per input file: =="
for f in out/wordcount-out/*.md; do echo "  $f"; done
echo "  run report: out/wordcount-report.json; try: out/wordcount --help"

# The document pipeline (examples/mineru): PDFs -> pages -> Tesseract OCR -> Markdown and a
# MinerU-style content list per document, on the bundled PDFs plus real ones from Debian's
# documentation packages. Pages of all documents share OCR batches.
echo "== ropc build examples/mineru/mineru.rop -o out/mineru =="
"$ropc" build examples/mineru/mineru.rop -o out/mineru
manifest=out/mineru-inputs.jsonl
: > "$manifest"
for f in "$PWD"/examples/mineru/in/*.pdf /usr/share/doc/libtasn1-doc/libtasn1.pdf \
         /usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf; do
    if [ -r "$f" ]; then printf '{"path": "%s"}\n' "$f" >> "$manifest"; fi
done
rm -rf out/mineru-out
set +e
OMP_THREAD_LIMIT=1 out/mineru --input "files=$manifest" \
    --output md=out/mineru-out/markdown --output list=out/mineru-out/content_list \
    --report out/mineru-report.json --progress
mineru_status=$?
set -e
# 0: every document ok; 3: some failed (listed below); anything else is a broken demo.
if [ "$mineru_status" -ne 0 ] && [ "$mineru_status" -ne 3 ]; then status=1; fi
python3 - out/mineru-report.json <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
roots = report["roots"]
pages = next((c["grains"] for c in report["calls"] if c["name"] == "ocr"), 0)
failed = [r for r in roots if r["status"] == "failed"]
wall = report["wall_s"]
print(f"== mineru: {len(roots)} documents, {pages} pages in {wall:.1f} s "
      f"({pages / wall if wall else 0:.2f} pages/s), {len(failed)} failed ==")
for r in failed:
    print(f"  failed: {r['name']}: {r.get('reason', '')}")
PY
echo "  Markdown:      out/mineru-out/markdown/*.md"
echo "  content lists: out/mineru-out/content_list/*.json"
echo "  run report:    out/mineru-report.json"
exit $status
