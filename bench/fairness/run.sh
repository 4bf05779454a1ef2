#!/usr/bin/env bash
# Issue 17 item 4: a 427-page root first and many small roots behind it. Runs bench_fairness
# (bench/fairness/fair_main.cpp) on this tree's runtime (least served root first, expands lend
# their actor: docs/runtime.md priority rules 5 and 6) and on the FIFO runtime of BASE (default
# 873cdf1, the commit before those rules), each with and without the big root, REPEAT times
# interleaved, and prints the medians.
#   bench/fairness/run.sh            BUILD=build/ci BASE=873cdf1 REPEAT=3 ACTORS=4
#                                    CONFIGS="4/427/200 1/427/200 1/2000/5" COMPRESS=200
#                                    OUT=bench/results/fairness
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build/ci}
BASE=${BASE:-873cdf1}
REPEAT=${REPEAT:-3}
ACTORS=${ACTORS:-4}
# CONFIGS: render actors / pages of the big root / small roots. The first is the issue's corpus
# with the study's render actors, the second the mineru example's one render actor, the third
# the issue's starvation example (a huge root holds the only render actor; a few small roots).
CONFIGS=${CONFIGS:-"4/427/200 1/427/200 1/2000/5"}
COMPRESS=${COMPRESS:-200}
OUT=${OUT:-bench/results/fairness}
mkdir -p "$OUT"

cmake --build "$BUILD" --target bench_fairness -j "$(nproc)" >/dev/null
fair=$BUILD/bin/bench_fairness

# The FIFO runtime: BASE's sources in a worktree, this bench compiled against them.
base_dir=${BASE_DIR:-/tmp/rop-fairness-base}
if [ ! -d "$base_dir/build" ]; then
    rm -rf "$base_dir"
    git worktree prune
    git worktree add --detach "$base_dir" "$BASE" >/dev/null
    mkdir -p "$base_dir/bench/fairness"
    echo "add_subdirectory(fairness)" >>"$base_dir/bench/CMakeLists.txt"
    cmake -S "$base_dir" -B "$base_dir/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DROP_BUILD_COMPILER=OFF -DROP_BUILD_STDLIB=OFF -DROP_BUILD_TESTS=OFF \
        -DCMAKE_CXX_FLAGS=-DBENCH_FAIRNESS_BASELINE >/dev/null
fi
cp bench/fairness/fair_main.cpp bench/fairness/CMakeLists.txt "$base_dir/bench/fairness/"
cmake --build "$base_dir/build" --target bench_fairness -j "$(nproc)" >/dev/null
fifo=$base_dir/build/bin/bench_fairness

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$OUT/runs.jsonl"
for r in $(seq 1 "$REPEAT"); do
    for config in $CONFIGS; do
        IFS=/ read -r ra big_pages small <<<"$config"
        for big in "$big_pages" 0; do
            for which in fair fifo; do
                bin=$fair
                [ $which = fifo ] && bin=$fifo
                line=$("$bin" --big "$big" --small "$small" --actors "$ACTORS" \
                    --render-actors "$ra" --compress "$COMPRESS" --seed 1)
                echo "{\"runtime\": \"$which\", \"repeat\": $r, \"config\": \"$config\", ${line#\{}" \
                    >>"$OUT/runs.jsonl"
            done
        done
    done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$OUT/runs.jsonl" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
def med(rows, k): return statistics.median(r[k] for r in rows)
print("| render actors / big root / small roots | runtime | big root | makespan (paper s) | small p50 | small p99 | small max | big root's commit |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
order = list(dict.fromkeys(r["config"] for r in runs))
keys = sorted({(r["config"], r["runtime"], r["big"] > 0) for r in runs}, key=lambda k: (order.index(k[0]), k[1] != "fair", not k[2]))
m = {}
for k in keys:
    rows = [r for r in runs if (r["config"], r["runtime"], r["big"] > 0) == k]
    m[k] = {f: med(rows, f) for f in ("makespan_paper_s", "small_p50", "small_p99", "small_max", "big_commit")}
    v = m[k]
    print(f"| {k[0]} | {k[1]} | {'first' if k[2] else 'none'} | {v['makespan_paper_s']:.0f} | {v['small_p50']:.0f} | {v['small_p99']:.0f} | {v['small_max']:.0f} | {v['big_commit']:.0f} |" if k[2] else
          f"| {k[0]} | {k[1]} | none | {v['makespan_paper_s']:.0f} | {v['small_p50']:.0f} | {v['small_p99']:.0f} | {v['small_max']:.0f} | |")
print()
for ra in order:
    for rt in ("fair", "fifo"):
        w, wo = m.get((ra, rt, True)), m.get((ra, rt, False))
        if w and wo:
            print(f"{ra}, {rt}: small p99 with the big root / without = {w['small_p99'] / wo['small_p99']:.2f}x")
    f, o = m.get((ra, "fair", True)), m.get((ra, "fifo", True))
    if f and o:
        print(f"{ra}, with the big root: makespan fair / fifo = {f['makespan_paper_s'] / o['makespan_paper_s']:.3f}")
PY
