#!/usr/bin/env bash
# Issue 35's benchmark (docs/benchmarks.md, "Shared pools"): the B2 study's pipeline with a second
# model step, both steps on one shared pool (shared.rop) against each step with a pool of its own
# (separate.rop), on one corpus. Per run: the makespan (the report's wall_s), the model instances
# made and their bytes (POOL_MODEL_LOG), and the process's peak RSS (/usr/bin/time). Rows:
#   shared N          one pool of N actors for both steps: N instances
#   separate N/2+N/2  the same total actors, split evenly: N instances
#   separate B+(N-B)  the split the grid of splits finds fastest (run on its own)
#   separate N+N      each step as many actors as the pool: 2N instances
# Usage: bench/pools/run_pools.sh  (ROPC, ACTORS (8), DOCS (400), REPEAT (3), MIB (64), OUT)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ROPC=${ROPC:-$ROOT/build/ci/bin/ropc}
ACTORS=${ACTORS:-8}
DOCS=${DOCS:-400}
REPEAT=${REPEAT:-3}
export POOL_MODEL_MIB=${MIB:-64}
OUT=${OUT:-$ROOT/bench/results/pools}
WORK=${WORK:-/tmp/rop-bench-pools}
[ -x "$ROPC" ] || {
    echo "pools: no ropc at $ROPC" >&2
    exit 2
}
rm -rf "$WORK"
mkdir -p "$WORK" "$OUT"
for p in shared separate; do
    "$ROPC" build "$ROOT/bench/pools/$p.rop" -o "$WORK/$p" >"$WORK/build-$p.log" 2>&1 || {
        cat "$WORK/build-$p.log" >&2
        exit 1
    }
done
# The corpus: DOCS documents of 1 to 60 pages (a long tail, as the study's), seeded.
python3 - "$DOCS" >"$WORK/corpus.json" <<'PY'
import json, random, sys
r = random.Random(35)
pages = [max(1, min(60, int(r.lognormvariate(2.6, 0.7)))) for _ in range(int(sys.argv[1]))]
print(json.dumps({"pages": pages, "poisoned": [0] * len(pages)}))
PY
RUNS=$WORK/runs.jsonl
: >"$RUNS"
# run LABEL BINARY SETS...: one run in WORK/LABEL.N; a line of runs.jsonl
run() {
    local label=$1 bin=$2 n dir
    shift 2
    for n in $(seq 1 "$REPEAT"); do
        dir=$WORK/$label.$n
        mkdir -p "$dir"
        cp "$WORK/corpus.json" "$dir/"
        (cd "$dir" && POOL_MODEL_LOG=$dir/models.txt /usr/bin/time -f '%M' -o rss.txt \
            "$bin" --no-progress --report report.json "$@" >log.txt 2>&1) || {
            echo "pools: $label failed (see $dir/log.txt)" >&2
            exit 1
        }
        python3 - "$label" "$dir" >>"$RUNS" <<'PY'
import json, sys
label, d = sys.argv[1], sys.argv[2]
report = json.load(open(d + "/report.json"))
models = [line.split() for line in open(d + "/models.txt")]
rss_kib = int(open(d + "/rss.txt").read().split()[-1])
ok = sum(1 for r in report["roots"] if r["status"] == "ok") if report.get("roots") else None
print(json.dumps({"label": label, "wall_s": report["wall_s"], "instances": len(models),
                  "model_mib": sum(int(m[2]) for m in models), "peak_rss_mib": rss_kib / 1024,
                  "roots_ok": ok}))
PY
        tail -1 "$RUNS"
    done
}
half=$((ACTORS / 2))
run "shared $ACTORS" "$WORK/shared" --set "model.actors=$ACTORS"
run "separate $half+$half" "$WORK/separate" --set "texts.actors=$half" \
    --set "described.actors=$half"
# The best split of the same total, by a one-run grid.
best=$half
best_s=
for a in $(seq 1 $((ACTORS - 1))); do
    REPEAT=1 run "grid $a+$((ACTORS - a))" "$WORK/separate" --set "texts.actors=$a" \
        --set "described.actors=$((ACTORS - a))" >/dev/null
    s=$(tail -1 "$RUNS" | python3 -c 'import json,sys; print(json.load(sys.stdin)["wall_s"])')
    if [ -z "$best_s" ] || python3 -c "import sys; sys.exit(0 if $s < $best_s else 1)"; then
        best=$a
        best_s=$s
    fi
done
run "separate $best+$((ACTORS - best)) (best split)" "$WORK/separate" \
    --set "texts.actors=$best" --set "described.actors=$((ACTORS - best))"
run "separate $ACTORS+$ACTORS" "$WORK/separate" --set "texts.actors=$ACTORS" \
    --set "described.actors=$ACTORS"
python3 - "$RUNS" "$OUT" <<'PY'
import json, statistics, sys
runs = [json.loads(line) for line in open(sys.argv[1])]
out = sys.argv[2]
rows = {}
for r in runs:
    if r["label"].startswith("grid "):
        continue
    rows.setdefault(r["label"], []).append(r)
table = ["| configuration | makespan s (median of %d) | model instances | model MiB | peak RSS MiB |"
         % max(len(v) for v in rows.values()), "| --- | --- | --- | --- | --- |"]
summary = []
for label, rs in rows.items():
    wall = statistics.median(r["wall_s"] for r in rs)
    inst = max(r["instances"] for r in rs)
    mib = max(r["model_mib"] for r in rs)
    rss = statistics.median(r["peak_rss_mib"] for r in rs)
    table.append("| %s | %.2f | %d | %d | %.0f |" % (label, wall, inst, mib, rss))
    summary.append({"label": label, "makespan_s": wall, "instances": inst, "model_mib": mib,
                    "peak_rss_mib": rss, "runs": rs})
grid = [r for r in runs if r["label"].startswith("grid ")]
json.dump({"rows": summary, "grid": grid}, open(out + "/pools.json", "w"), indent=1)
open(out + "/pools.md", "w").write("\n".join(table) + "\n")
print("\n".join(table))
PY
