# Sourced by run_b9.sh and run_grid.sh: where things are (ROPC, BUILD, STUDY, OUT, each from the
# environment or the default) and BIN, the B2 study pipeline built with ropc.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ROPC=${ROPC:-$ROOT/build/ci/bin/ropc}
BUILD=${BUILD:-$ROOT/build/ci/b9}
STUDY=${STUDY:-$ROOT/build/ci/bin/bench_study}
OUT=${OUT:-$ROOT/bench/results/b9}
mkdir -p "$BUILD" "$OUT"
BIN=$BUILD/study_pipeline
"$ROPC" build "$ROOT/bench/study/rop/study.rop" -o "$BIN" 2>"$BUILD/study_pipeline.log" || {
    echo "ropc build failed: $BUILD/study_pipeline.log" >&2
    exit 1
}
