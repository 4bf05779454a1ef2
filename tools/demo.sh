#!/usr/bin/env bash
# The main job: installs what is missing, builds ropc, and checks every example pipeline.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
bash tools/build.sh release
ropc=build/release/bin/ropc
echo "== ropc check on every example =="
status=0
for f in examples/*.rop examples/*/*.rop; do
    [ -e "$f" ] || continue
    if "$ropc" check "$f"; then echo "ok   $f"; else echo "FAIL $f"; status=1; fi
done
echo "== the checked plan of examples/ (JSON) and its Domain graph (DOT) are in out/ =="
mkdir -p out
for f in examples/*.rop; do
    [ -e "$f" ] || continue
    name=$(basename "$f" .rop)
    "$ropc" --emit=plan "$f" > "out/$name.plan.json"
    "$ropc" graph "$f" > "out/$name.dot"
    echo "  out/$name.plan.json  out/$name.dot"
done
exit $status
