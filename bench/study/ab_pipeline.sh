#!/usr/bin/env bash
# bench/study/ab_pipeline.sh: issue 17 item 1's A/B (docs/benchmarks.md, "The compiled
# pipeline"): bench/study/rop/study.rop built by ropc build, with its journal on disk and on
# tmpfs, against the API runner's lineage strategy; 64 actors, full corpus, ROUNDS (3)
# interleaved rounds, medians printed. Knobs: BUILD (a build with bench_study and ropc;
# build/ci), OUT (bench/results/study/ab), ROUNDS.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build/ci}
S=$BUILD/bin/bench_study
OUT=${OUT:-$ROOT/bench/results/study/ab}
mkdir -p "$OUT"
ROUNDS=${ROUNDS:-3}
cd "$ROOT"
[ -x "$OUT/study_pipeline" ] || "$BUILD/bin/ropc" build bench/study/rop/study.rop -o "$OUT/study_pipeline"
[ -f "$OUT/corpus.json" ] || "$S" corpus --scale 1 --compress 1000 >"$OUT/corpus.json"
: >"$OUT/runs.jsonl"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$ROUNDS"); do
    python3 bench/study/peers.py --system rop-pipeline --system-name pipeline-disk-journal \
        --binary "$OUT/study_pipeline" --binary-args "--journal $OUT/j_$r.journal" \
        --corpus "$OUT/corpus.json" --actors 64 --label main | grep "^{" >>"$OUT/runs.jsonl"
    python3 bench/study/peers.py --system rop-pipeline --system-name pipeline-tmpfs-journal \
        --binary "$OUT/study_pipeline" --binary-args "--journal /dev/shm/b2j_$r.journal" \
        --corpus "$OUT/corpus.json" --actors 64 --label main | grep "^{" >>"$OUT/runs.jsonl"
    "$S" run --label main --strategy lineage --actors 64 --scale 1 --compress 1000 >>"$OUT/runs.jsonl"
    rm -f "$OUT"/j_*.journal /dev/shm/b2j_*.journal
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$OUT/runs.jsonl" <<'PY'
import json, sys, statistics
rows = {}
for line in open(sys.argv[1]):
    j = json.loads(line)
    name = j["system"] if j["system"] != "rop-study" else "api-" + j["strategy"]
    rows.setdefault(name, []).append((j["makespan_s"], j["ideal_s"]))
base = statistics.median(m for m, _ in rows.get("api-lineage", [(float("nan"), 1)]))
for name, rs in rows.items():
    med = statistics.median(m for m, _ in rs)
    print(f"{name}: makespans {[round(m, 3) for m, _ in rs]} median {med:.3f} s, "
          f"{100 * rs[0][1] / med:.1f}% of ideal {rs[0][1]:.3f}, {med / base:.4f}x api-lineage")
PY
