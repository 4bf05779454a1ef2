#!/usr/bin/env bash
# B7 structure: headings, list items, code blocks and tables against a corpus whose structure is
# known. make_corpus.py writes three born-digital PDFs with groff (embedded URW fonts) and each
# one's ground truth from the same blocks; the three B7 pipelines are built as
# bench/b7_documents/run.sh builds them and run over the corpus:
#   mineru auto   examples/mineru/mineru.rop as written (`text: detect`)
#   mineru ocr    the same pipeline with `text: ocr` (every page rendered and OCR'd)
#   docling auto  examples/docling/docling.rop as written (`text: detect`)
#   docling ocr   the same with `text: ocr` (std.ocr.RegionText reads every region)
# and score.py compares each content list with the truth (heading P/R/F1 and level agreement,
# list-item, code-block and table P/R, table cell-text recall).
#
# Usage: bash bench/b7_documents/structure/run.sh
# Knobs (environment): ROPC (default build/ci/bin/ropc), WORK (default /tmp/rop-b7-structure,
# the corpus, build and run folder), RESULT (default bench/results/b7_structure.json). Needs root
# for apt-get when a package below is missing.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
HERE=$ROOT/bench/b7_documents/structure
ROPC=${ROPC:-$ROOT/build/ci/bin/ropc}
WORK=${WORK:-/tmp/rop-b7-structure}
RESULT=${RESULT:-$ROOT/bench/results/b7_structure.json}
export OMP_THREAD_LIMIT=1
if [ ! -x "$ROPC" ]; then
    echo "b7 structure: no ropc at $ROPC (build it: cmake --build build/ci --target ropc)" >&2
    exit 2
fi

# (1) What the benchmark needs: groff with gropdf (groff), the URW Type 1 fonts gropdf embeds
# (libgs10-common links them where gropdf's font list looks, from fonts-urw-base35), poppler's
# command lines (the truth's pages) and Tesseract's English data. Installed only when missing.
# shellcheck source=bench/b7_documents/common.sh
source "$HERE/../common.sh"
install_missing groff libgs10-common fonts-urw-base35 poppler-utils tesseract-ocr-eng

# (2) The corpus and its truth.
rm -rf "$WORK"
mkdir -p "$WORK/runs"
echo "== corpus"
python3 "$HERE/make_corpus.py" "$WORK/corpus"
manifest=$WORK/corpus/corpus.jsonl

# (3) The pipelines, built as bench/b7_documents/run.sh builds them.
echo "== ropc build (mineru auto, mineru ocr, docling auto, docling ocr) with $ROPC"
build_pipelines "$ROOT" "$WORK" "$ROPC" || exit 2
mkdir -p "$WORK/docling_ocr"
cp "$WORK/docling_auto/docling.hpp" "$WORK/docling_ocr/"
sed 's/text: detect/text: ocr/' "$WORK/docling_auto/docling.rop" >"$WORK/docling_ocr/docling.rop"
(cd "$WORK/docling_ocr" && "$ROPC" build ./docling.rop -o ./pipeline) || exit 2

# (4) Each pipeline over the corpus, with --report (wall time kept for the record).
now() { date +%s%N; }
: >"$WORK/runs/times.txt"
for v in mineru_auto mineru_ocr docling_auto docling_ocr; do
    dir=$WORK/$v
    extra=()
    [ "${v%_*}" = docling ] && extra=(--output "summary=$dir/out/summary.jsonl")
    start=$(now)
    rc=0
    "$dir/pipeline" --input "files=$manifest" --output "md=$dir/out/md" \
        --output "list=$dir/out/list" "${extra[@]}" --report "$dir/report.json" --no-progress \
        >"$WORK/runs/$v.log" 2>&1 || rc=$?
    wall_ms=$((($(now) - start) / 1000000))
    echo "$v $wall_ms $rc" >>"$WORK/runs/times.txt"
    echo "== $v: $((wall_ms / 1000)).$(printf %03d $((wall_ms % 1000))) s, rc $rc"
    # a pipeline exits 3 when some documents failed: they are scored as missing, not fatal
    [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || {
        cat "$WORK/runs/$v.log" >&2
        exit 1
    }
done

# (5) Scores: the JSON and the tables.
echo "== scores"
python3 "$HERE/score.py" --work "$WORK" --ropc "$ROPC" --out "$RESULT"
