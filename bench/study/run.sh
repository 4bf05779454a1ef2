#!/usr/bin/env bash
# B2 + B3 (BENCH.md; issue 6): the scheduling study in one command.
#   bench/study/run.sh [--quick] [--tail-sweep]
# Builds bench_study, writes the corpora, runs every strategy (rop lineage and single-parent,
# flat-regroup, per-parent, the oneTBB flow graph), the strong-scaling sweep, the Python peers
# (RayOrch, Ray Data, Daft; venv bench/.venv, created/extended here), the B3 failure-injection
# pairs, then prints the tables and writes JSON + SVG plots under bench/results/study/
# (report only, from the stored runs: python3 bench/study/report.py bench/results/study).
# The lineage strategy runs twice: as a real pipeline, bench/study/rop/study.rop built by `ropc
# build` (the headline "rop-pipeline" row of every table, B3 included; needs a `ropc` with
# `build`: ROPC, default the first of $BUILD, build/release, build/ci with bin/ropc), and through
# rop's runtime API (PlanBuilder + run(), as bench_b1: the diagnostic "lineage" row).
# Knobs (environment): BUILD (default build/h-study), NO_BUILD=1 (run $BUILD's bench_study as
# built), OUT, ROPC, PIPELINE_BIN (a study.rop binary built before: no ropc build),
# JOURNAL_DIR, DISK_JOURNAL_ROW, SKIP_PEERS=1, SKIP_B3=1,
# PEERS ("rayorch raydata daft"), B3_PAIRS (3), SWEEP ("4 8 16 32 64"), REPEAT (runs of each
# strategy at the main configuration; the tables show the median; 3, --quick 1).
# --tail-sweep runs only the regroup-tail sensitivity sweep (issue 17): lineage, rop-pipeline
# and flat-regroup at MAIN_ACTORS on the main corpus for each tail cost in TAILS (fractions of
# a page's OCR work; "0 0.02 0.05 0.1 0.15 0.2 0.3 0.4 0.5 0.6"), REPEAT runs each (median shown),
# every regroup partition paying SHUFFLE_FIXED modelled seconds (2), into $OUT/tail.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build/h-study}
OUT=${OUT:-$ROOT/bench/results/study}
VENV=$ROOT/bench/.venv
# The binary's journal (its durable record of finished roots, fsynced per commit group): beside
# its output on disk, as users run it, since the journal writes on a thread of its own (before,
# its fsync on the driver thread cost the binary 2.5% at 64 actors, and this row used tmpfs).
# JOURNAL_DIR=/dev/shm puts it on tmpfs; DISK_JOURNAL_ROW=1 adds a "rop-pipeline-disk-journal"
# row (the default journal path) beside such a headline row.
JOURNAL_DIR=${JOURNAL_DIR:-}
[[ -z $JOURNAL_DIR || (-d $JOURNAL_DIR && -w $JOURNAL_DIR) ]] || JOURNAL_DIR=
pipeline() { # label, corpus file, actors [, system name, binary flags]
    [[ -n $PIPELINE ]] || return 0
    local name=${4:-rop-pipeline} journal=
    [[ -n $JOURNAL_DIR ]] && journal="--journal $JOURNAL_DIR/rop_study_$$.journal"
    local flags=${5-$journal}
    echo "== $1: $name (ropc build) --actors $3 $flags" >&2
    python3 "$ROOT/bench/study/peers.py" --system rop-pipeline --system-name "$name" \
        --binary "$PIPELINE" --binary-args "$flags" --corpus "$2" --actors "$3" --label "$1" |
        grep "^{" >>"$RUNS" || echo "$name failed" >&2
    [[ -z $JOURNAL_DIR ]] || rm -f "$JOURNAL_DIR/rop_study_$$.journal"
}

QUICK=0 TAIL_SWEEP=0
for arg in "$@"; do
    case $arg in
    --quick) QUICK=1 ;;
    --tail-sweep) TAIL_SWEEP=1 ;;
    *)
        echo "usage: bench/study/run.sh [--quick] [--tail-sweep]" >&2
        exit 2
        ;;
    esac
done

if [[ $QUICK == 1 ]]; then
    SCALE=0.05 COMPRESS=250 MAIN_ACTORS=64
    PEER_SCALE=0.02 PEER_COMPRESS=250 PEER_ACTORS=4
    B3_ROOTS=20 B3_PAGES=600 B3_PAIRS=${B3_PAIRS:-1} REPEAT=${REPEAT:-1}
else
    SCALE=1 COMPRESS=1000 MAIN_ACTORS=64
    PEER_SCALE=0.1 PEER_COMPRESS=250 PEER_ACTORS=8
    B3_ROOTS=60 B3_PAGES=2000 B3_PAIRS=${B3_PAIRS:-3} REPEAT=${REPEAT:-3}
fi
SWEEP=${SWEEP:-"4 8 16 32 64"}
PEERS=${PEERS:-"rayorch raydata daft"}

if [[ "${NO_BUILD:-0}" == 1 ]]; then # use $BUILD/bin/bench_study as it is
    echo "== bench_study of $BUILD (NO_BUILD=1: not rebuilt)"
else
    echo "== build bench_study ($BUILD)"
    if [[ ! -f $BUILD/build.ninja ]]; then
        cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DROP_BUILD_COMPILER=OFF \
            -DROP_BUILD_STDLIB=OFF -DROP_BUILD_TESTS=OFF -DROP_BUILD_BENCH=ON >/dev/null
    fi
    ninja -C "$BUILD" -j2 bench_study >/dev/null
fi
S=$BUILD/bin/bench_study
if [[ -z ${ROPC:-} ]]; then # the study's own build has no compiler: use a full build's ropc
    for candidate in "$BUILD/bin/ropc" "$ROOT/build/release/bin/ropc" "$ROOT/build/ci/bin/ropc"; do
        if [[ -x $candidate ]]; then
            ROPC=$candidate
            break
        fi
    done
    ROPC=${ROPC:-$BUILD/bin/ropc}
fi
PIPELINE=
if [[ -n ${PIPELINE_BIN:-} ]]; then # a binary built from study.rop before
    echo "== rop-pipeline: $PIPELINE_BIN (PIPELINE_BIN, not rebuilt)"
    PIPELINE=$PIPELINE_BIN
elif [[ -x $ROPC ]] && "$ROPC" build --help >/dev/null 2>&1; then
    echo "== ropc build bench/study/rop/study.rop ($ROPC)"
    if "$ROPC" build "$ROOT/bench/study/rop/study.rop" -o "$BUILD/study_pipeline" 2>"$BUILD/study_pipeline.log"; then
        PIPELINE=$BUILD/study_pipeline
    else
        echo "ropc build failed (see $BUILD/study_pipeline.log); rop-pipeline left out"
    fi
else
    echo "== no ropc with 'build' at $ROPC (set ROPC=...); rop-pipeline left out"
fi

if [[ $TAIL_SWEEP == 1 ]]; then
    T=$OUT/tail
    mkdir -p "$T"
    rm -f "$T"/*.jsonl "$T"/*.jsonl.gz "$T"/*.dat "$T"/*.svg "$T"/corpus_*.json
    {
        echo "date: $(date -u +%FT%TZ)"
        echo "machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores"
        echo "command: bench/study/run.sh $*"
        echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    } | tee "$T/machine.txt"
    TAILS=${TAILS:-"0 0.02 0.05 0.1 0.15 0.2 0.3 0.4 0.5 0.6"}
    for r in $( # interleaved, so that load changes hit every row alike
        seq 1 "$REPEAT"
    ); do
        for f in $TAILS; do
            knobs=(--tail "$f" --shuffle-fixed "${SHUFFLE_FIXED:-2}")
            for s in lineage flat-regroup; do
                echo "== tail $f ($r): $s" >&2
                "$S" run --label tail --strategy "$s" --actors "$MAIN_ACTORS" --scale "$SCALE" \
                    --compress "$COMPRESS" "${knobs[@]}" >>"$T/runs.jsonl"
            done
            if [[ -n $PIPELINE ]]; then
                [[ -f $T/corpus_$f.json ]] ||
                    "$S" corpus --scale "$SCALE" --compress "$COMPRESS" "${knobs[@]}" >"$T/corpus_$f.json"
                RUNS=$T/runs.jsonl pipeline tail "$T/corpus_$f.json" "$MAIN_ACTORS"
            fi
        done
    done
    echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$T/machine.txt"
    rm -f "$T"/corpus_*.json
    python3 "$ROOT/bench/study/report.py" --tail "$T" | tee "$T/report.md"
    gzip -f "$T/runs.jsonl"
    exit 0
fi

mkdir -p "$OUT"
rm -f "$OUT"/*.jsonl "$OUT"/*.jsonl.gz "$OUT"/*.dat "$OUT"/*.svg "$OUT"/*.log "$OUT"/peers_skipped.txt
RUNS=$OUT/runs.jsonl
{
    echo "date: $(date -u +%FT%TZ)"
    echo "machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB"
    echo "command: bench/study/run.sh $*"
    echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$OUT/machine.txt"

"$S" corpus --scale "$SCALE" --compress "$COMPRESS" >"$OUT/corpus.json"
"$S" corpus --scale "$PEER_SCALE" --compress "$PEER_COMPRESS" >"$OUT/corpus_peers.json"
"$S" corpus --b3 --roots "$B3_ROOTS" --pages "$B3_PAGES" --poison >"$OUT/corpus_b3.json"
"$S" corpus --b3 --roots "$B3_ROOTS" --pages "$B3_PAGES" >"$OUT/corpus_b3_clean.json"
python3 "$ROOT/bench/study/histogram.py" "$OUT/corpus.json" "$OUT"

run() { # label, then bench_study run arguments
    local label=$1
    shift
    echo "== $label: $*" >&2
    "$S" run --label "$label" "$@" >>"$RUNS"
}

# B2: every strategy at MAIN_ACTORS, then the sweep for rop-pipeline, lineage and flat-regroup.
main_pipelines() { # the headline row, then (DISK_JOURNAL_ROW=1) the journal-on-disk diagnostic
    pipeline main "$OUT/corpus.json" "$MAIN_ACTORS"
    [[ -n $JOURNAL_DIR && "${DISK_JOURNAL_ROW:-0}" == 1 ]] || return 0
    pipeline main "$OUT/corpus.json" "$MAIN_ACTORS" rop-pipeline-disk-journal ""
}
for r in $( # interleaved, so that load changes hit every strategy alike
    seq 1 "$REPEAT"
); do
    main_pipelines
    for s in lineage flat-regroup per-parent single-parent tbb-lineage; do
        run main --strategy "$s" --actors "$MAIN_ACTORS" --scale "$SCALE" --compress "$COMPRESS"
    done
done
for n in $SWEEP; do
    pipeline scaling "$OUT/corpus.json" "$n"
    for s in lineage flat-regroup; do
        run scaling --strategy "$s" --actors "$n" --scale "$SCALE" --compress "$COMPRESS"
    done
done

# Peers: the C++ strategies and the Python systems on the peer corpus and actor count.
if [[ "${SKIP_PEERS:-0}" != 1 ]]; then
    for s in lineage flat-regroup per-parent single-parent tbb-lineage; do
        run peers --strategy "$s" --actors "$PEER_ACTORS" --scale "$PEER_SCALE" --compress "$PEER_COMPRESS"
    done
    pipeline peers "$OUT/corpus_peers.json" "$PEER_ACTORS"
    if [[ ! -x "$VENV/bin/python" ]]; then
        python3 -m venv "$VENV"
        "$VENV/bin/pip" install -q --upgrade pip
    fi
    if ! "$VENV/bin/python" -c "import rayorch, ray.data, daft" 2>/dev/null; then
        echo "== installing peers into $VENV (rayorch, ray[data], daft)"
        "$VENV/bin/pip" install -q rayorch 'ray[data]' daft || true
    fi
    for p in $PEERS; do
        echo "== peers: $p (actors $PEER_ACTORS per stage)" >&2
        if RAY_AUTH_MODE=disabled timeout 900 "$VENV/bin/python" "$ROOT/bench/study/peers.py" \
            --system "$p" --corpus "$OUT/corpus_peers.json" --actors "$PEER_ACTORS" --label peers \
            >"$OUT/peer_$p.json" 2>"$OUT/peer_$p.log"; then
            grep "^{" "$OUT/peer_$p.json" >>"$RUNS" # Ray may print warnings on stdout
        else
            echo "$p: failed (exit $?), see peer_$p.log: $(tail -1 "$OUT/peer_$p.log")" | tee -a "$OUT/peers_skipped.txt"
        fi
        rm -f "$OUT/peer_$p.json"
    done
fi

# B3: 4 actors, cap 48, 50 ms page UDF; clean/poisoned pairs, interleaved.
if [[ "${SKIP_B3:-0}" != 1 ]]; then
    for pair in $(seq 1 "$B3_PAIRS"); do
        pipeline b3-clean "$OUT/corpus_b3_clean.json" 4
        pipeline b3-poison "$OUT/corpus_b3.json" 4
        for s in lineage flat-regroup per-parent single-parent; do
            run b3-clean --strategy "$s" --actors 4 --b3 --roots "$B3_ROOTS" --pages "$B3_PAGES"
            run b3-poison --strategy "$s" --actors 4 --b3 --roots "$B3_ROOTS" --pages "$B3_PAGES" --poison
        done
    done
    if [[ "${SKIP_PEERS:-0}" != 1 && " $PEERS " == *" rayorch "* ]]; then # one RayOrch pair
        for kind in clean poison; do
            c=$OUT/corpus_b3.json
            [[ $kind == clean ]] && c=$OUT/corpus_b3_clean.json
            echo "== b3-$kind: rayorch" >&2
            if RAY_AUTH_MODE=disabled timeout 600 "$VENV/bin/python" "$ROOT/bench/study/peers.py" \
                --system rayorch --corpus "$c" --actors 4 --label "b3-$kind" \
                >"$OUT/peer_b3.json" 2>"$OUT/peer_b3_$kind.log"; then
                grep "^{" "$OUT/peer_b3.json" >>"$RUNS"
            fi
            rm -f "$OUT/peer_b3.json"
        done
    fi
fi

echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/machine.txt"
find "$OUT" -name '*.log' -empty -delete
python3 "$ROOT/bench/study/report.py" "$OUT" | tee "$OUT/report.md"
gzip -f "$RUNS" # report.py reads runs.jsonl.gz too
