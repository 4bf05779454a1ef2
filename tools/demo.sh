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
    if "$ropc" check "$f"; then echo "ok   $f"; else
        echo "FAIL $f"
        status=1
    fi
done
echo "== the checked plan of each example (JSON) and its Domain graph (DOT) are in out/ =="
mkdir -p out
for f in examples/*/*.rop; do
    [ -e "$f" ] || continue
    name=$(basename "$f" .rop)
    "$ropc" --emit=plan "$f" >"out/$name.plan.json"
    "$ropc" graph "$f" >"out/$name.dot"
    echo "  out/$name.plan.json  out/$name.dot"
done
echo "== ropc build examples/wordcount/wordcount.rop -o out/wordcount =="
start=$(date +%s%N)
"$ropc" build examples/wordcount/wordcount.rop -o out/wordcount
echo "  built in $((($(date +%s%N) - start) / 1000000)) ms (an unchanged rebuild comes from the cache)"
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
: >"$manifest"
for f in "$PWD"/examples/mineru/in/*.pdf /usr/share/doc/libtasn1-doc/libtasn1.pdf \
    /usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf; do
    if [ -r "$f" ]; then printf '{"path": "%s"}\n' "$f" >>"$manifest"; fi
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

# The video pipeline (examples/video): videos -> scene clips -> still clips dropped -> clips
# transcoded -> frames, blurry ones dropped -> one JSONL record per video, plus an audio branch.
# Its inputs are made here with the `ffmpeg` command (FFmpeg's lavfi sources, scene cuts, and
# broken files that fail with a reason); no model server is needed.
echo "== ropc build examples/video/video.rop -o out/video =="
"$ropc" build examples/video/video.rop -o out/video
rm -rf out/video-in out/video-out out/clips
bash tests/data/make_test_videos.sh out/video-videos
mkdir -p out/video-in
cp out/video-videos/*.mp4 out/video-videos/*.mkv out/video-videos/broken/*.mp4 out/video-in/
set +e
out/video --input 'files=out/video-in/*' --output summary=out/video-out/videos.jsonl \
    --output levels=out/video-out/audio.jsonl --report out/video-report.json
video_status=$?
set -e
if [ "$video_status" -ne 0 ] && [ "$video_status" -ne 3 ]; then status=1; fi
python3 - out/video-report.json out/video-out/videos.jsonl <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
records = [json.loads(line) for line in open(sys.argv[2])]
frames = next((c["grains"] for c in report["calls"] if c["name"] == "rated"), 0)
failed = [r for r in report["roots"] if r["status"] == "failed"]
print(f"== video: {len(report['roots'])} files, {sum(len(r['clips']) for r in records)} clips kept, "
      f"{frames} frames scored in {report['wall_s']:.1f} s, {len(failed)} failed ==")
for r in sorted(records, key=lambda r: r["name"]):
    spans = ", ".join(f"{c['start']}-{c['end']} s ({c['frames']} sharp frames)" for c in r["clips"])
    print(f"  {r['name']}: {spans}")
for r in failed:
    print(f"  failed: {r['name']}: {r.get('reason', '')}")
PY
echo "  records: out/video-out/videos.jsonl, out/video-out/audio.jsonl; clips: out/clips/*.mp4"
exit $status
