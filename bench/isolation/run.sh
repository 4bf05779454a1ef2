#!/usr/bin/env bash
# bench/isolation/run.sh [ROOTS]: the cost of process isolation (docs/benchmarks.md). Runs
# tests/runtime/process's pipeline (expand each root into 2-6 pages, a map Call whose batch
# sleeps 1 ms, a reduce) with the map in threads and in worker processes, batch 48 and 2 actors,
# three rounds interleaved, and prints pages/s of each and the ratio.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${ROP_PROCESS_PIPELINE:-$root/build/ci/bin/rop_process_pipeline}
n=${1:-20000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for ((i = 0; i < n; i++)); do echo "r$i $i"; done >"$work/docs.txt"
pages=$(awk '{ s += $2 % 5 + 2 } END { print s }' "$work/docs.txt")
run() { # run ISOLATE: prints the run's wall seconds
    ROP_TEST_SLEEP_US=1000 ROP_TEST_ISOLATE=$1 "$bin" --no-progress --commit-group 1024 \
        --input docs="$work/docs.txt" --output totals="$work/totals.txt" \
        --report "$work/report.json" --set m.batch=48 --set m.actors=2 >/dev/null
    python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['wall_s'])" "$work/report.json"
}
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); $n roots, $pages pages; map batch 48, 2 actors, 1 ms per batch"
for round in 1 2 3; do
    t=$(run "")
    p=$(run m)
    python3 -c "
t, p, pages = $t, $p, $pages
print(f'round $round: threads {pages / t:,.0f} pages/s, process {pages / p:,.0f} pages/s, process/threads {t / p:.3f}')"
done
