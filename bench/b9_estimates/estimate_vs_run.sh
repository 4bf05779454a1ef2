# Sourced by run_b9_video.sh and run_b9_docs.sh: where things are (ROOT; ROPC, OUT and SAMPLES,
# each from the environment or the default) and estimate_vs_run.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ROPC=${ROPC:-$ROOT/build/ci/bin/ropc}
OUT=${OUT:-$ROOT/bench/results/b9}
SAMPLES=${SAMPLES:-"2% 10%"}
# estimate_vs_run JSONL FIELDS SAMPLE BINARY ARGS...: BINARY's --estimate --sample SAMPLE, then
# its real run under /usr/bin/time, back to back, in the current folder (out/ and journal.jsonl
# cleared before each). Appends one JSON line to JSONL (and prints it): FIELDS (a JSON object)
# and the sample, then the predicted and actual makespan and peak resident memory (the run's is
# /usr/bin/time's maximum resident size), their errors, the sample's share of the run, the
# bottleneck and each Call's Grains in the run.
estimate_vs_run() {
    local jsonl=$1 fields=$2 sample=$3 binary=$4
    shift 4
    rm -rf out journal.jsonl
    "$binary" "$@" --journal journal.jsonl --estimate --sample "$sample" \
        --estimate-json estimate.json >estimate.txt
    rm -rf out journal.jsonl
    /usr/bin/time -f "%e %M" -o time.txt "$binary" "$@" --journal journal.jsonl \
        --report report.json 2>run.log
    python3 - "$fields" "$sample" <<'EOF' | tee -a "$jsonl"
import json, sys
e = json.load(open("estimate.json"))
r = json.load(open("report.json"))
rss = int(open("time.txt").read().split()[-1]) * 1024
row = json.loads(sys.argv[1])
row.update({
    "sample": sys.argv[2], "roots": e["roots"], "sample_roots": e["sample_roots"],
    "sample_s": e["sample_wall_s"], "count_s": e.get("count_wall_s", 0),
    "counted_roots": e.get("counted_roots"), "weights": e.get("weights"),
    "predicted_s": e["makespan_s"],
    "low_s": e.get("makespan_low_s"), "high_s": e.get("makespan_high_s"),
    "actual_s": r["wall_s"], "error": e["makespan_s"] / r["wall_s"] - 1,
    "predicted_peak_rss": e.get("peak_rss_bytes"), "actual_peak_rss": rss,
    "peak_error": e["peak_rss_bytes"] / rss - 1 if e.get("peak_rss_bytes") else None,
    "sample_share": (e["sample_wall_s"] + e.get("count_wall_s", 0)) / r["wall_s"],
    "bottleneck": e["bottleneck"],
    "grains": {c["name"]: c["grains"] for c in r["calls"]}})
print(json.dumps(row))
EOF
}
