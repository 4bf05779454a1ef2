#!/usr/bin/env bash
# bench/isolation/mineru.sh [COPIES]: the mineru example with every page OCR'd (text: ocr), its
# OCR Call in threads and in worker processes (`isolation process`), on COPIES copies of the
# generated report.pdf (default 4), two rounds interleaved; prints pages/s of each and the ratio.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
ropc=${ROPC:-$root/build/ci/bin/ropc}
pdf=${ROP_BENCH_PDF:-$root/build/ci/tests/stdlib/data/generated/docs/report.pdf}
copies=${1:-4}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$root/examples/mineru/mineru.rop" "$work/threads.rop"
sed -i 's/text: detect/text: ocr/' "$work/threads.rop"
sed 's/batch 4 actors 2;/batch 4 actors 2 isolation process;/' "$work/threads.rop" > "$work/process.rop"
grep -q "isolation process" "$work/process.rop"
mkdir -p "$work/in"
for ((i = 0; i < copies; i++)); do cp "$pdf" "$work/in/doc$i.pdf"; done
cd "$work"
export OMP_THREAD_LIMIT=1
for v in threads process; do "$ropc" build "$v.rop" -o "./$v" -O2 >/dev/null; done
run() {  # run VARIANT: prints pages/s
    rm -rf out
    "./$1" --no-progress --report report.json >/dev/null 2>&1 || true
    python3 -c "
import json; r = json.load(open('report.json'))
pages = next(c['grains'] for c in r['calls'] if c['name'].startswith('ocr'))
ok = r['summary']['ok']
print(f'{pages / r[\"wall_s\"]:.3f} {pages} {ok}')"
}
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); $copies x $(basename "$pdf"), every page OCR'd, ocr batch 4, 2 actors"
for round in 1 2; do
    read -r t pages ok_t < <(run threads)
    read -r p _ ok_p < <(run process)
    python3 -c "print(f'round $round: {$pages} pages; threads {$t:.3f} pages/s ($ok_t ok), process {$p:.3f} pages/s ($ok_p ok), process/threads {$p / $t:.3f}')"
done
