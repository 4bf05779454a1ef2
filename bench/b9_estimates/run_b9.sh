#!/usr/bin/env bash
# B9 (issue 30): how well --estimate predicts a run. For each configuration it runs the binary
# with --estimate (a 2% sample, then the whole input in virtual time), then runs it for real,
# and prints predicted vs actual makespan, the error, and the sample's time as a share of the
# real run; then runs it once more with --with-estimate and prints how far the progress ETA's
# promised end was from the real end at 10%, 25% and 50% of the run, with and without it. Results: one JSON line per configuration in $OUT/b9.jsonl, a table on stdout.
#   bench/b9_estimates/run_b9.sh
# Knobs (environment): ROPC (default build/ci/bin/ropc), BUILD (where the binary goes, default
# build/ci/b9), STUDY (bench_study, for the corpus; default build/ci/bin/bench_study), OUT
# (default bench/results/b9), CONFIGS ("ACTORS:SCALE:COMPRESS ..."; default "8:0.1:250
# 64:0.1:50"), SAMPLE (default 2%).
set -euo pipefail
CONFIGS=${CONFIGS:-"8:0.1:250 64:0.1:50"}
export SAMPLE=${SAMPLE:-2%}
# shellcheck source=study_binary.sh
source "$(dirname "$0")/study_binary.sh"
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
    # Again with the estimate beside it: the ETA follows its model (the report's eta readings).
    rm -f "$work/roots.log" "$work/journal"
    "$BIN" "${flags[@]}" --output "$work/roots.log" --report "$work/report_with.json" \
        --journal "$work/journal" --with-estimate "$work/estimate.json" 2>/dev/null
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
       "sample_s": e["sample_wall_s"], "count_s": e.get("count_wall_s", 0),
       "counted_roots": e.get("counted_roots"), "weights": e.get("weights"),
       "sample_share": (e["sample_wall_s"] + e.get("count_wall_s", 0)) / actual,
       "estimate_total_s": float(estimate_s), "bottleneck": e["bottleneck"],
       "predicted_first_root_s": e["first_root_s"],
       "actual_first_root_s": r.get("time_to_first_root_s"),
       "predicted_p50_s": e["p50_commit_s"], "predicted_p99_s": e["p99_commit_s"],
       "actual_latency": r.get("latency_s") or r.get("root_latency_s"), "recommended": rec}
# What the header's ETA promised at a tenth, a quarter and half of the run, against the end.
def eta_errors(report):
    wall = report["wall_s"]
    errors = {}
    for f in (0.1, 0.25, 0.5):
        before = [e for e in report.get("eta", []) if e["at_s"] <= f * wall and e["at_s"] > 0]
        errors[str(f)] = (before[-1]["end_s"] - wall) / wall if before else None
    return errors
w = json.load(open(f"{work}/report_with.json"))
row["eta_grains"] = eta_errors(r)
row["eta_model"] = eta_errors(w)
row["actual_with_s"] = w["wall_s"]
open(out, "a").write(json.dumps(row) + "\n")
print(f"{'study':8} {os.environ.get('SAMPLE', '2%'):>6} {actors:>6} {e['roots']:>6} {e['makespan_s']:>9.2f}s {actual:>9.2f}s "
      f"{err*100:>+6.1f}% {row['sample_s'] + row['count_s']:>8.2f}s {row['sample_share']*100:>8.1f}% "
      f"{rec.get('set','')}.actors={rec.get('actors','')} batch={rec.get('batch','')}")
show = lambda d: " ".join("-" if v is None else f"{v*100:+.0f}%" for v in d.values())
print(f"{'':8} ETA at 10/25/50% of the run, end promised vs actual: grain count {show(row['eta_grains'])}, "
      f"with the estimate {show(row['eta_model'])}")
PY
    cp "$work/estimate.txt" "$OUT/estimate_${actors}.txt"
    rm -rf "$work"
done
