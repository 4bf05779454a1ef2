#!/usr/bin/env bash
# B9 on a shared pool (issue 30): --estimate's makespan against the real run of
# bench/pools/shared.rop (the study's pipeline with two model steps on one pool of 8 actors) over
# the corpus bench/pools/run_pools.sh writes: DOCS documents (default 1000) of 1 to 60 pages,
# log-normal, seeded.
#   bench/b9_estimates/run_b9_pool.sh
# Knobs (environment): ROPC (default build/ci/bin/ropc), OUT (default bench/results/b9), SAMPLES
# (default "2% 10%"), DOCS, MIB (each model instance's bytes, default 64), ROUNDS (default 1).
# Appends one JSON line per estimate to $OUT/b9_pool.jsonl.
set -euo pipefail
# shellcheck source=estimate_vs_run.sh
source "$(dirname "$0")/estimate_vs_run.sh"
DOCS=${DOCS:-1000}
ROUNDS=${ROUNDS:-1}
export POOL_MODEL_MIB=${MIB:-64}
work=$OUT/pool-work
mkdir -p "$work"
"$ROPC" build "$ROOT/bench/pools/shared.rop" -o "$work/shared" >"$work/build.log" 2>&1 || {
    echo "ropc build failed: $work/build.log" >&2
    exit 1
}
python3 - "$DOCS" >"$work/corpus.json" <<'PY'
import json, random, sys
r = random.Random(35)
pages = [max(1, min(60, int(r.lognormvariate(2.6, 0.7)))) for _ in range(int(sys.argv[1]))]
print(json.dumps({"pages": pages, "poisoned": [0] * len(pages)}))
PY
cd "$work"
args=(--set model.actors=8 --no-progress)
for round in $(seq 1 "$ROUNDS"); do
    for sample in $SAMPLES; do
        estimate_vs_run "$OUT/b9_pool.jsonl" "{\"pipeline\": \"pools_shared\", \"round\": $round}" \
            "$sample" ./shared "${args[@]}"
    done
done
