#!/usr/bin/env bash
# B9 on the document pipeline (issue 30): --estimate's makespan and peak memory against the real
# run of examples/mineru/mineru.rop, with `text: detect` (as written) and with `text: ocr`, over
# documents of mixed sizes cut from the Debian manuals B7 reads.
#   bench/b9_estimates/run_b9_docs.sh
# Knobs (environment): ROPC (default build/ci/bin/ropc), OUT (default bench/results/b9), SAMPLES
# (default "2% 10%"), MODES (default "detect ocr"), OCR_PAGES (the ocr corpus's page budget,
# default 200), DETECT_COPIES (the detect corpus is every cut this many times, each copy a file of
# its own, so that no actor finds a copy's document already open; default 1). Needs poppler-utils and the packages tools/setup.sh installs (libtasn1-doc,
# shared-mime-info, xorg-docs, bzip2-doc, glpk-doc). The documents: each manual cut into runs of
# 2, 5, 9, 3, 12, 7 ... pages (pdfseparate + pdfunite), made once in $OUT/docs-work/cut; the
# detect corpus is every cut, the ocr corpus the first cuts within OCR_PAGES pages. Appends one
# JSON line per estimate to $OUT/b9_docs.jsonl.
set -euo pipefail
# shellcheck source=estimate_vs_run.sh
source "$(dirname "$0")/estimate_vs_run.sh"
MODES=${MODES:-"detect ocr"}
OCR_PAGES=${OCR_PAGES:-200}
work=$OUT/docs-work
mkdir -p "$work/src" "$work/cut" "$work/split"
sources=(/usr/share/doc/libtasn1-doc/libtasn1.pdf
    /usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf
    /usr/share/doc/xorg-docs/Xserver/XACE-Spec.pdf.gz /usr/share/doc/xorg-docs/fonts/fonts.pdf.gz
    /usr/share/doc/bzip2/manual.pdf.gz /usr/share/doc/glpk-doc/cnfsat.pdf
    /usr/share/doc/glpk-doc/graphs.pdf /usr/share/doc/xorg-docs/icccm/icccm.pdf.gz
    /usr/share/doc/glpk-doc/gmpl.pdf)
sizes=(2 5 9 3 12 7 4 15 6 2 8 10)
if [[ -z $(ls "$work/cut") ]]; then
    k=0
    for src in "${sources[@]}"; do
        [[ -e $src ]] || {
            echo "missing $src (tools/setup.sh installs it)" >&2
            exit 1
        }
        name=$(basename "${src%.gz}" .pdf)
        pdf=$work/src/$name.pdf
        case $src in
        *.gz) gzip -dc "$src" >"$pdf" ;;
        *) cp "$src" "$pdf" ;;
        esac
        pages=$(pdfinfo "$pdf" | awk '/^Pages:/ { print $2 }')
        rm -f "$work"/split/*
        pdfseparate "$pdf" "$work/split/p-%d.pdf" 2>/dev/null
        first=1
        while ((first <= pages)); do
            last=$((first + sizes[k % ${#sizes[@]}] - 1))
            ((last <= pages)) || last=$pages
            parts=()
            for p in $(seq "$first" "$last"); do parts+=("$work/split/p-$p.pdf"); done
            if ((${#parts[@]} == 1)); then
                cp "${parts[0]}" "$work/cut/$(printf %03d "$k")-$name.pdf"
            else
                pdfunite "${parts[@]}" "$work/cut/$(printf %03d "$k")-$name.pdf" 2>/dev/null
            fi
            k=$((k + 1))
            first=$((last + 1))
        done
    done
fi
# The detect corpus: every cut; the ocr corpus: cuts in order while they fit in OCR_PAGES pages.
: >"$work/detect.jsonl"
: >"$work/ocr.jsonl"
budget=$OCR_PAGES
DETECT_COPIES=${DETECT_COPIES:-1}
mkdir -p "$work/copies"
for pdf in "$work"/cut/*.pdf; do
    printf '{"path": "%s"}\n' "$pdf" >>"$work/detect.jsonl"
    for ((k = 2; k <= DETECT_COPIES; k++)); do
        copy=$work/copies/$k-$(basename "$pdf")
        [[ -e $copy ]] || cp "$pdf" "$copy"
        printf '{"path": "%s"}\n' "$copy" >>"$work/detect.jsonl"
    done
    n=$(pdfinfo "$pdf" | awk '/^Pages:/ { print $2 }')
    if ((n <= budget)); then
        printf '{"path": "%s"}\n' "$pdf" >>"$work/ocr.jsonl"
        budget=$((budget - n))
    fi
done
cd "$work"
cp "$ROOT/examples/mineru/mineru.rop" detect.rop
sed 's/text: detect/text: ocr/' "$ROOT/examples/mineru/mineru.rop" >ocr.rop
for mode in $MODES; do
    "$ROPC" build "$mode.rop" -o "./mineru_$mode" >"build_$mode.log" 2>&1 || {
        echo "ropc build failed: $work/build_$mode.log" >&2
        exit 1
    }
    args=(--input "files=$mode.jsonl" --output md=out/md --output list=out/list --no-progress)
    for sample in $SAMPLES; do
        estimate_vs_run "$OUT/b9_docs.jsonl" \
            "{\"pipeline\": \"mineru\", \"text\": \"$mode\", \"detect_copies\": $DETECT_COPIES}" \
            "$sample" "./mineru_$mode" "${args[@]}"
    done
done
