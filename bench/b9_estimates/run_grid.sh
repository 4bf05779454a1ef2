#!/usr/bin/env bash
# B9's check of --estimate's recommendation (issue 30 item 2): the real makespan over a grid of
# actors x batch for the bottleneck Call (the study's OCR, `texts`), the recommended setting run
# beside it, and how far the recommendation is from the grid's best.
#   bench/b9_estimates/run_grid.sh
# Knobs (environment): ROPC, BUILD, STUDY, OUT as run_b9.sh; CONFIG ("ACTORS:SCALE:COMPRESS",
# default 8:0.1:250: the other Calls' actors and the corpus), ACTORS (default "2 4 8 16"),
# BATCHES (default "24 48 96"), SAMPLE (default 2%), CORES (--cores for the estimate; default:
# this machine's).
set -euo pipefail
CONFIG=${CONFIG:-8:0.1:250}
ACTORS=${ACTORS:-"2 4 8 16"}
BATCHES=${BATCHES:-"24 48 96"}
SAMPLE=${SAMPLE:-2%}
# shellcheck source=study_binary.sh
source "$(dirname "$0")/study_binary.sh"
IFS=: read -r actors scale compress <<<"$CONFIG"
corpus=$OUT/corpus_${scale}.json
[[ -f $corpus ]] || "$STUDY" corpus --scale "$scale" --compress "$compress" >"$corpus"
export STUDY_COST="$compress 0.5 0.25 7.55 1.416 1 0.02 0.5"
base=(--input "$corpus" --set "pages.actors=$actors" --set "documents.actors=$actors"
    --max-inflight-roots $((actors * 4 > 64 ? actors * 4 : 64)) --no-progress)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cores=()
[[ -z ${CORES:-} ]] || cores=(--cores "$CORES")
"$BIN" "${base[@]}" --set "texts.actors=$actors" --set texts.batch=48 --output "$work/r.log" \
    --estimate --sample "$SAMPLE" "${cores[@]}" --estimate-json "$work/estimate.json" >"$work/estimate.txt"
read -r rec_actors rec_batch < <(python3 -c '
import json, sys
r = json.load(open(sys.argv[1])).get("recommended", {})
print(r.get("actors", 0), r.get("batch", 0))' "$work/estimate.json")
run() { # actors batch -> wall seconds
    rm -f "$work/r.log" "$work/j"
    "$BIN" "${base[@]}" --set "texts.actors=$1" --set "texts.batch=$2" --output "$work/r.log" \
        --journal "$work/j" --report "$work/report.json" 2>/dev/null
    python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["wall_s"])' "$work/report.json"
}
: >"$OUT/grid.jsonl"
for a in $ACTORS; do
    for b in $BATCHES; do
        wall=$(run "$a" "$b")
        echo "{\"actors\": $a, \"batch\": $b, \"wall_s\": $wall}" | tee -a "$OUT/grid.jsonl"
    done
done
rec_wall=$(run "$rec_actors" "$rec_batch")
echo "{\"recommended\": true, \"actors\": $rec_actors, \"batch\": $rec_batch, \"wall_s\": $rec_wall}" |
    tee -a "$OUT/grid.jsonl"
python3 - "$OUT/grid.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
grid = [r for r in rows if not r.get("recommended")]
rec = [r for r in rows if r.get("recommended")][0]
best = min(grid, key=lambda r: r["wall_s"])
print(f"grid best: actors {best['actors']} batch {best['batch']} {best['wall_s']:.2f} s; "
      f"recommended actors {rec['actors']} batch {rec['batch']} {rec['wall_s']:.2f} s "
      f"({(rec['wall_s'] / best['wall_s'] - 1) * 100:+.1f}% of the best)")
PY
