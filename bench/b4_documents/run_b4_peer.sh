#!/usr/bin/env bash
# B4 against a peer users would pick: the render + Tesseract OCR of B4's rop pipeline
# (examples/mineru/mineru.rop with text: ocr) beside the same work written as a Ray Data pipeline
# (raydata_ocr.py: flat_map render with pypdfium2 -> map_batches OCR on an actor pool of
# tesserocr engines -> one JSON line per page) and beside Tesseract alone on pre-rendered pages on
# every core (tesseract_limit.py, the machine's limit), interleaved, median of ROUNDS.
# Same PDFs (B4's corpus), same cores, dpi 150 gray, lang eng, OMP_THREAD_LIMIT=1, 2 OCR actors
# and batches of 4 in both. Results: bench/results/b4/peer.json.
# The peer's packages go to bench/.venv (ray[data], pypdfium2, tesserocr built against the
# system's libtesseract, the engine rop links, so both run the same Tesseract); rop does not
# depend on them.
# Knobs (environment): ROPC (default build/release/bin/ropc), ROUNDS (3), SERIAL (1: also run
# B4's serial row for its t_page limit), PDFS, OUT (bench/results/b4), VENV (bench/.venv).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
ROPC=${ROPC:-$ROOT/build/release/bin/ropc}
OUT=${OUT:-$ROOT/bench/results/b4}
VENV=${VENV:-$ROOT/bench/.venv}
WORK=$OUT/work/peer
[ -x "$ROPC" ] || {
    echo "b4-peer: no ropc at $ROPC (bash tools/build.sh release first)" >&2
    exit 2
}
command -v pdftoppm >/dev/null || {
    echo "b4-peer: needs poppler-utils (pdftoppm)" >&2
    exit 2
}
if [ -z "${PDFS:-}" ]; then
    PDFS="$(ls "$ROOT"/examples/mineru/in/*.pdf) /usr/share/doc/libtasn1-doc/libtasn1.pdf \
/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf"
fi

if ! "$VENV/bin/python" -c 'import ray.data, pypdfium2, tesserocr, PIL' 2>/dev/null; then
    echo "== installing the peer into $VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q 'ray[data]' pypdfium2 pillow
    # From source against libtesseract-dev: the PyPI wheel bundles another Tesseract version.
    "$VENV/bin/pip" install -q --no-binary tesserocr tesserocr
fi
"$VENV/bin/python" -c 'import tesserocr, sys; v = tesserocr.tesseract_version().split()[1]
sys.exit(0 if v == sys.argv[1] else "b4-peer: tesserocr runs Tesseract " + v + ", rop " + sys.argv[1])' \
    "$(pkg-config --modversion tesseract)" # the libtesseract rop links (no CLI needed)

mkdir -p "$WORK"
echo "== ropc build examples/mineru/mineru.rop with text: ocr"
sed 's/text: detect/text: ocr/' "$ROOT/examples/mineru/mineru.rop" >"$WORK/mineru.rop"
grep -q 'text: ocr' "$WORK/mineru.rop" || {
    echo "b4-peer: mineru.rop has no 'text: detect'" >&2
    exit 2
}
"$ROPC" build "$WORK/mineru.rop" -o "$WORK/mineru"
cp "$WORK/mineru" "$OUT/work/mineru-peer" # the driver clears $WORK

echo "== uptime before: $(uptime)"
# shellcheck disable=SC2086
python3 "$ROOT/bench/b4_documents/peer_bench.py" --bin "$OUT/work/mineru-peer" \
    --python "$VENV/bin/python" --work "$WORK" --result "$OUT/peer.json" \
    --rounds "${ROUNDS:-3}" --serial "${SERIAL:-1}" $PDFS
echo "== uptime after: $(uptime)"
echo "results: $OUT/peer.json"
