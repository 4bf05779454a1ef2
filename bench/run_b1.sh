#!/usr/bin/env bash
# B1 (BENCH.md): the runtime's own overhead, rop vs RayOrch, in one command.
#   bench/run_b1.sh            # build, run everything, print the table, write bench/results/
# Knobs (environment): REPEAT (median of, default 3), BUILD (build dir, default build/bench),
# SKIP_RAYORCH=1, RAYORCH_SHAPES / ROP_SHAPES ("roots:children ..."), ROP_EXECUTORS
# ("one inline threads"), B1_BIN (use a prebuilt bench_b1 instead of building one).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build/bench}
REPEAT=${REPEAT:-3}
OUT=$ROOT/bench/results
VENV=$ROOT/bench/.venv
ROP_EXECUTORS=${ROP_EXECUTORS:-"one inline"}
# The BENCH.md shapes (1M children each), a size sweep of the first for linearity, and the
# RayOrch shapes (10k children) for a same-corpus ratio.
ROP_SHAPES=${ROP_SHAPES:-"10000:100 100000:10 100:10000 1000:100 3000:100 30000:100 100:100 1000:10 10:1000"}
RAYORCH_SHAPES=${RAYORCH_SHAPES:-"100:100 1000:10 10:1000"}

mkdir -p "$OUT"
rm -f "$OUT"/b1.* "$OUT"/rayorch_*.log

if [[ -n "${B1_BIN:-}" ]]; then
    B1=$B1_BIN # a prebuilt bench_b1
else
    echo "== build bench_b1 ($BUILD)"
    cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DROP_BUILD_COMPILER=OFF \
        -DROP_BUILD_TESTS=OFF -DROP_BUILD_BENCH=ON >/dev/null
    ninja -C "$BUILD" -j2 bench_b1 >/dev/null
    B1=$BUILD/bin/bench_b1
fi

for executor in $ROP_EXECUTORS; do
    for shape in $ROP_SHAPES; do
        roots=${shape%%:*} children=${shape##*:}
        echo "== rop/$executor $roots x $children"
        "$B1" --roots "$roots" --children "$children" --batch 64 --executor "$executor" \
            --repeat "$REPEAT" | tee -a "$OUT/b1.jsonl"
    done
done

if [[ "${SKIP_RAYORCH:-0}" != 1 ]]; then
    if [[ ! -x "$VENV/bin/python" ]]; then
        echo "== creating $VENV (pip install rayorch)"
        python3 -m venv "$VENV"
        "$VENV/bin/pip" install -q --upgrade pip
        "$VENV/bin/pip" install -q rayorch
    fi
    for shape in $RAYORCH_SHAPES; do
        roots=${shape%%:*} children=${shape##*:}
        echo "== rayorch $roots x $children"
        RAY_AUTH_MODE=disabled "$VENV/bin/python" "$ROOT/bench/b1_runtime/rayorch_noop.py" \
            --roots "$roots" --children "$children" --batch 64 --repeat "$REPEAT" \
            2>"$OUT/rayorch_${roots}x${children}.log" | tee -a "$OUT/b1.jsonl"
    done
fi

find "$OUT" -name 'rayorch_*.log' -empty -delete # keep only logs that say something

echo
echo "machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$ROOT/bench/b1_runtime/report_b1.py" "$OUT"
