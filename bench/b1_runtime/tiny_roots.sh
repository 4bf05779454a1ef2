#!/usr/bin/env bash
# Peak memory of a pipeline binary over millions of tiny roots (issue 32 item 2; docs/
# benchmarks.md "Tiny roots: the report streams"): builds bench/b1_runtime/tiny_roots/tiny.rop,
# writes ROWS JSONL lines, and runs the binary with its default options, with --report, and with
# --report --report-roots failed, printing each run's wall time and peak RSS (getrusage).
# Usage: bench/b1_runtime/tiny_roots.sh ROPC [ROWS=20000000] [WORK=/tmp/rop-tiny-roots]
set -euo pipefail
ropc=$(realpath "$1")
rows=${2:-20000000}
work=${3:-/tmp/rop-tiny-roots}
here=$(cd "$(dirname "$0")/tiny_roots" && pwd)
mkdir -p "$work"
cd "$work"
cp -r "$here"/. .
"$ropc" build tiny.rop -o tiny
if [ ! -s rows.jsonl ] || [ "$(wc -l <rows.jsonl)" != "$rows" ]; then
    python3 -c "
import sys
with open('rows.jsonl', 'w') as f:
    f.writelines('{\"n\": %d}\n' % i for i in range($rows))"
fi
measure() {
    local name=$1
    shift
    rm -rf out.jsonl out.jsonl.journal report.json
    # Wall time and the child's peak RSS (KiB), from getrusage.
    python3 - "$@" >time.txt 2>run.err <<'PY' || {
import resource, subprocess, sys, time
start = time.monotonic()
code = subprocess.run(["./tiny", "--no-progress"] + sys.argv[1:]).returncode
wall = time.monotonic() - start
if code != 0:
    sys.exit(f"exit {code}")
print(f"{wall:.1f} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}")
PY
        cat run.err
        exit 1
    }
    read -r wall kib <time.txt
    printf '%-40s %8s s  peak RSS %6d MiB  (%s lines out)\n' "$name" "$wall" $((kib / 1024)) \
        "$(wc -l <out.jsonl)"
}
echo "== $rows tiny roots ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
measure "default options"
measure "--report report.json" --report report.json
measure "--report report.json --report-roots failed" --report report.json --report-roots failed
