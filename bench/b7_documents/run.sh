#!/usr/bin/env bash
# B7: documents quality. On the bundled PDFs and real PDFs from Debian documentation packages:
# word recall/precision against the text layer (`pdftotext -layout`), heading precision/recall/F1
# against the PDF outline, and pages/s and CPU-s per page, for
#   mineru auto   examples/mineru/mineru.rop as written (`text: detect`: a page with a sane text
#                 layer is read from it, only the others are OCR'd)
#   mineru ocr    the same pipeline with `text: ocr` (every page rendered and OCR'd)
#   docling auto  examples/docling/docling.rop as written (`text: detect`)
# side by side with `pdftotext -layout` (the reference itself: its row gives its speed) and the
# `tesseract` command line on pages rendered by `pdftoppm` (150 dpi gray, as the pipelines; a
# sample of at most TESS_PAGES pages, every k-th page of the corpus). The mineru and docling
# rows are rop's examples: MinerU and Docling the Python packages cannot run here (their models
# are downloaded at run time, and this machine reaches no model hub).
#
# Usage: bash bench/b7_documents/run.sh [MAX_PAGES]   (default 150: the corpus is the candidate
# documents, in the order below, that fit in MAX_PAGES pages; bigger documents are skipped whole)
# Knobs (environment): ROPC (default build/ci/bin/ropc), WORK (default /tmp/rop-b7, the build
# and run folder), TESS_PAGES (default 40; 0 skips the tesseract row), RESULT (default
# bench/results/b7.json). Needs root for apt-get when a package below is missing.
# Run it on a quiet machine, e.g. `nice bash bench/b7_documents/run.sh`: all rates are measured
# one tool after another in one run, so load from other processes lowers every row.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/bench/b7_documents
MAX_PAGES=${1:-150}
ROPC=${ROPC:-$ROOT/build/ci/bin/ropc}
WORK=${WORK:-/tmp/rop-b7}
TESS_PAGES=${TESS_PAGES:-40}
RESULT=${RESULT:-$ROOT/bench/results/b7.json}
CORES=$(nproc)
export OMP_THREAD_LIMIT=1
if [ ! -x "$ROPC" ]; then
    echo "b7: no ropc at $ROPC (build it: cmake --build build/ci --target ropc)" >&2
    exit 2
fi

# (1) What the benchmark needs: poppler's and Tesseract's command lines, English data, and
# documentation packages that ship born-digital PDFs (pdfTeX, dvipdfmx, Apache FOP; most with an
# outline). Installed only when missing.
# shellcheck source=bench/b7_documents/common.sh
source "$HERE/common.sh"
install_missing poppler-utils tesseract-ocr tesseract-ocr-eng libtasn1-doc shared-mime-info xorg-docs \
    bzip2-doc glpk-doc

# (2) The corpus: candidates in order, each taken when it still fits in MAX_PAGES.
CANDIDATES="
rop-examples_report=$ROOT/examples/mineru/in/report.pdf
rop-examples_letter=$ROOT/examples/mineru/in/letter.pdf
libtasn1-doc_libtasn1=/usr/share/doc/libtasn1-doc/libtasn1.pdf
shared-mime-info_spec=/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf
xorg-docs_XACE-Spec=/usr/share/doc/xorg-docs/Xserver/XACE-Spec.pdf.gz
xorg-docs_fonts=/usr/share/doc/xorg-docs/fonts/fonts.pdf.gz
bzip2-doc_manual=/usr/share/doc/bzip2/manual.pdf.gz
glpk-doc_cnfsat=/usr/share/doc/glpk-doc/cnfsat.pdf
glpk-doc_graphs=/usr/share/doc/glpk-doc/graphs.pdf
xorg-docs_icccm=/usr/share/doc/xorg-docs/icccm/icccm.pdf.gz
glpk-doc_gmpl=/usr/share/doc/glpk-doc/gmpl.pdf
glpk-doc_glpk=/usr/share/doc/glpk-doc/glpk.pdf
"
rm -rf "$WORK"
mkdir -p "$WORK/pdf" "$WORK/ref" "$WORK/runs"
manifest=$WORK/corpus.jsonl
: >"$manifest"
total=0
for entry in $CANDIDATES; do
    name=${entry%%=*}
    src=${entry#*=}
    [ -r "$src" ] || {
        echo "b7: cannot read $src (skipped)" >&2
        continue
    }
    pdf=$WORK/pdf/$name.pdf
    case "$src" in
    *.gz) gzip -dc "$src" >"$pdf" ;;
    *) cp "$src" "$pdf" ;;
    esac
    pages=$(pdfinfo "$pdf" 2>/dev/null | awk '/^Pages:/ { print $2 }')
    if [ -z "$pages" ] || [ $((total + pages)) -gt "$MAX_PAGES" ]; then
        rm -f "$pdf"
        continue
    fi
    total=$((total + pages))
    printf '{"path": "%s"}\n' "$pdf" >>"$manifest"
done
[ -s "$manifest" ] || {
    echo "b7: no document fits in $MAX_PAGES pages" >&2
    exit 2
}
echo "== corpus: $(wc -l <"$manifest") documents, $total pages (MAX_PAGES $MAX_PAGES)"

now() { date +%s%N; }
TIMEFORMAT='%3U %3S'
# timed LABEL COMMAND...: runs it, appends "LABEL wall_ms cpu_ms load" (CPU: user + sys of the
# command and its children; load: the 1-minute load average before it) to $WORK/runs/times.txt.
timed() {
    local label=$1 start cpu rc=0 load
    shift
    load=$(cut -d' ' -f1 /proc/loadavg)
    start=$(now)
    cpu=$({ time "$@" >"$WORK/runs/$label.log" 2>&1; } 2>&1) || rc=$?
    local wall_ms=$((($(now) - start) / 1000000))
    local cpu_ms
    cpu_ms=$(awk -v t="$cpu" 'BEGIN { n = split(t, a, " "); printf "%d", (a[n-1] + a[n]) * 1000 }')
    echo "$label $wall_ms $cpu_ms $load" >>"$WORK/runs/times.txt"
    printf '   %s: %d.%03d s wall, %d CPU-ms, rc %d\n' "$label" $((wall_ms / 1000)) \
        $((wall_ms % 1000)) "$cpu_ms" "$rc"
    # a pipeline exits 3 when some documents failed: they are reported, not fatal
    [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || {
        cat "$WORK/runs/$label.log" >&2
        exit 1
    }
}

# (3) The reference: pdftotext -layout per document (pages end with a form feed), timed as a row.
ref_all() {
    while read -r line; do
        local pdf=${line#*\"path\": \"}
        pdf=${pdf%\"\}}
        pdftotext -layout "$pdf" "$WORK/ref/$(basename "$pdf" .pdf).txt"
    done <"$manifest"
}
: >"$WORK/runs/times.txt"
echo "== pdftotext -layout (the reference)"
timed pdftotext ref_all
# The outline (bookmarks) as poppler reads it, for the heading scores.
while read -r line; do
    pdf=${line#*\"path\": \"}
    pdf=${pdf%\"\}}
    xml=$WORK/ref/$(basename "$pdf" .pdf).xml
    pdftohtml -xml -i -stdout -q "$pdf" >"$xml" 2>/dev/null || true
done <"$manifest"

# (4) The pipelines, built with ropc from the examples (the forced-OCR variant is generated here).
echo "== ropc build (mineru auto, mineru ocr, docling auto) with $ROPC"
build_pipelines "$ROOT" "$WORK" "$ROPC" || exit 2

run_pipeline() { # run_pipeline VARIANT: the whole corpus, default actors, --report
    local dir=$WORK/$1
    rm -rf "$dir/out"
    local extra=()
    [ "$1" = docling_auto ] && extra=(--output "summary=$dir/out/summary.jsonl")
    "$dir/pipeline" --input "files=$manifest" --output "md=$dir/out/md" \
        --output "list=$dir/out/list" "${extra[@]}" --report "$dir/report.json" --no-progress
}
for v in mineru_auto mineru_ocr docling_auto; do
    echo "== $v"
    timed "$v" run_pipeline "$v"
done

# (5) The tesseract command line on a sample of pages: every k-th page of the corpus, rendered by
# pdftoppm at 150 dpi gray (as the pipelines do) and OCR'd, CORES pages at a time.
if [ "$TESS_PAGES" -gt 0 ]; then
    echo "== tesseract command line ($TESS_PAGES sample pages, $CORES at a time)"
    mkdir -p "$WORK/tesseract"
    step=$(((total + TESS_PAGES - 1) / TESS_PAGES))
    : >"$WORK/tesseract/sample.txt"
    i=0
    while read -r line; do
        pdf=${line#*\"path\": \"}
        pdf=${pdf%\"\}}
        n=$(pdfinfo "$pdf" | awk '/^Pages:/ { print $2 }')
        for p in $(seq 1 "$n"); do
            [ $((i % step)) -eq 0 ] && echo "$pdf $p" >>"$WORK/tesseract/sample.txt"
            i=$((i + 1))
        done
    done <"$manifest"
    tess_one() { # tess_one PDF PAGE (1-based) -> $WORK/tesseract/NAME-PAGE.txt
        local base
        base=$WORK/tesseract/$(basename "$1" .pdf)-$2
        pdftoppm -r 150 -gray -png -f "$2" -l "$2" -singlefile "$1" "$base" &&
            tesseract "$base.png" "$base" -l eng quiet && rm -f "$base.png"
    }
    export -f tess_one
    export WORK
    tess_all() {
        xargs -P "$CORES" -L 1 bash -c 'tess_one "$0" "$1"' <"$WORK/tesseract/sample.txt"
    }
    timed tesseract tess_all
fi

# (6) Scores, the table and the JSON.
echo "== scores"
python3 "$HERE/score.py" --work "$WORK" --cores "$CORES" --max-pages "$MAX_PAGES" \
    --ropc "$ROPC" --out "$RESULT"
