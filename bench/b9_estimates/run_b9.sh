#!/usr/bin/env bash
# B9 (issue 30): how well --estimate predicts a run. For each configuration it runs the binary
# with --estimate (a 2% sample, then the whole input in virtual time), then runs it for real,
# and prints predicted vs actual makespan, the error, and the sample's time as a share of the
# real run. Results: one JSON line per configuration in $OUT/b9.jsonl, a table on stdout.
#   bench/b9_estimates/run_b9.sh
# Knobs (environment): ROPC (default build/ci/bin/ropc), BUILD (where the binary goes, default
# build/ci/b9), STUDY (bench_study, for the corpus; default build/ci/bin/bench_study), OUT
# (default bench/results/b9), CONFIGS ("ACTORS:SCALE:COMPRESS ..."; default "8:0.1:250
# 64:0.1:50"), SAMPLE (default 2%).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ROPC=${ROPC:-$ROOT/build/ci/bin/ropc}
BUILD=${BUILD:-$ROOT/build/ci/b9}
STUDY=${STUDY:-$ROOT/build/ci/bin/bench_study}
OUT=${OUT:-$ROOT/bench/results/b9}
CONFIGS=${CONFIGS:-"8:0.1:250 64:0.1:50"}
export SAMPLE=${SAMPLE:-2%}
mkdir -p "$BUILD" "$OUT"
BIN=$BUILD/study_pipeline
"$ROPC" build "$ROOT/bench/study/rop/study.rop" -o "$BIN" 2>"$BUILD/study_pipeline.log" || {
    echo "ropc build failed: $BUILD/study_pipeline.log" >&2
    exit 1
}
: >"$OUT/b9.jsonl"
printf '%-8s %6s %6s %6s %10s %10s %7s %9s %9s %s\n' pipeline sample actors roots predicted \
    actual error sample_s share recommended
for config in $CONFIGS; do
    IFS=: read -r actors scale compress <<<"$config"
    corpus=$OUT/corpus_${scale}.json
    [[ -f $corpus ]] || "$STUDY" corpus --scale "$scale" --compress "$compress" >"$corpus"
    # The binary's modelled seconds run $compress times faster (bench/study/rop/study_udfs.hpp).
    export STUDY_COST="$compress 0.5 0.25 7.55 1.416 1 0.02 0.5"
    flags=(--input "$corpus" --set "pages.actors=$actors" --set "texts.actors=$actors"
        --set texts.batch=48 --set "documents.actors=$actors"
        --max-inflight-roots $((actors * 4 > 64 ? actors * 4 : 64)) --no-progress)
    work=$(mktemp -d)
    start=$(date +%s.%N)
    "$BIN" "${flags[@]}" --output "$work/roots.log" --estimate --sample "$SAMPLE" \
        --estimate-json "$work/estimate.json" >"$work/estimate.txt"
    estimate_s=$(echo "$(date +%s.%N) - $start" | bc)
    [[ ! -e $work/roots.log ]] || echo "warning: --estimate wrote the sink" >&2
    "$BIN" "${flags[@]}" --output "$work/roots.log" --report "$work/report.json" \
        --journal "$work/journal" 2>/dev/null
    python3 - "$work" "$actors" "$scale" "$compress" "$estimate_s" "$OUT/b9.jsonl" <<'PY'
import json, sys
work, actors, scale, compress, estimate_s, out = sys.argv[1:]
e = json.load(open(f"{work}/estimate.json"))
r = json.load(open(f"{work}/report.json"))
actual = r["wall_s"]
err = (e["makespan_s"] - actual) / actual
rec = e.get("recommended", {})
import os
row = {"pipeline": "study", "sample": os.environ.get("SAMPLE", "2%"), "actors": int(actors), "scale": float(scale),
       "compress": float(compress), "roots": e["roots"], "sample_roots": e["sample_roots"],
       "predicted_s": e["makespan_s"], "actual_s": actual, "error": err,
       "predicted_low_s": e.get("makespan_low_s"), "predicted_high_s": e.get("makespan_high_s"),
       "sample_s": e["sample_wall_s"], "sample_share": e["sample_wall_s"] / actual,
       "estimate_total_s": float(estimate_s), "bottleneck": e["bottleneck"],
       "predicted_first_root_s": e["first_root_s"],
       "actual_first_root_s": r.get("time_to_first_root_s"),
       "predicted_p50_s": e["p50_commit_s"], "predicted_p99_s": e["p99_commit_s"],
       "actual_latency": r.get("latency_s") or r.get("root_latency_s"), "recommended": rec}
open(out, "a").write(json.dumps(row) + "\n")
print(f"{'study':8} {os.environ.get('SAMPLE', '2%'):>6} {actors:>6} {e['roots']:>6} {e['makespan_s']:>9.2f}s {actual:>9.2f}s "
      f"{err*100:>+6.1f}% {e['sample_wall_s']:>8.2f}s {e['sample_wall_s']/actual*100:>8.1f}% "
      f"{rec.get('set','')}.actors={rec.get('actors','')} batch={rec.get('batch','')}")
PY
    cp "$work/estimate.txt" "$OUT/estimate_${actors}.txt"
    rm -rf "$work"
done
