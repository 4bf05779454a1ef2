#!/usr/bin/env bash
# bench/commit_groups/run.sh [N]: builds commit_groups.rop and times N tiny roots (default
# 200000) into a JSONL sink with a journal: --commit-group 1 (a sink fsync and a journal fsync per
# root, as before commit groups) against the default group, and with no sink at all for scale.
# Prints roots/s of each; docs/benchmarks.md keeps the numbers.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ropc=${ROPC:-$root/build/ci/bin/ropc}
n=${1:-200000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$here/." "$work/"
cd "$work"
"$ropc" build commit_groups.rop -o ./commit_groups -O2 >/dev/null
run() { # run LABEL ARGS...: one timed run, roots/s from the report's wall time
    local label=$1
    shift
    rm -rf out out.journal
    ./commit_groups --input "numbers=$n" --no-progress --report report.json "$@" >/dev/null
    python3 - "$label" "$n" report.json <<'PY'
import json, sys
label, n, report = sys.argv[1], int(sys.argv[2]), json.load(open(sys.argv[3]))
print(f"{label:28s} {n} roots in {report['wall_s']:.2f} s = {n / report['wall_s']:,.0f} roots/s")
PY
}
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
run "--commit-group 1" --commit-group 1
run "default (1024 / 50 ms)"
run "--commit-group 65536" --commit-group 65536
