#!/usr/bin/env bash
# bench/isolation/mineru.sh [COPIES]: the mineru example with every page OCR'd (text: ocr), its
# OCR Call in threads and in worker processes (`isolation process`), on COPIES copies of the
# generated report.pdf (default 4), two rounds interleaved; prints pages/s of each, its CPU-s per
# page and share of the machine limit (cores / CPU-s per page), and the ratio.
# ROP_BENCH_VARIANTS=threads: the threads variant alone; ROP_BENCH_PDF: another PDF.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
ropc=${ROPC:-$root/build/ci/bin/ropc}
pdf=${ROP_BENCH_PDF:-$root/build/ci/tests/stdlib/data/generated/docs/report.pdf}
copies=${1:-4}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$root/examples/mineru/mineru.rop" "$work/threads.rop"
sed -i 's/text: detect/text: ocr/' "$work/threads.rop"
sed 's/batch 4 actors 2;/batch 4 actors 2 isolation process;/' "$work/threads.rop" >"$work/process.rop"
grep -q "isolation process" "$work/process.rop"
mkdir -p "$work/in"
for ((i = 0; i < copies; i++)); do cp "$pdf" "$work/in/doc$i.pdf"; done
cd "$work"
export OMP_THREAD_LIMIT=1
for v in threads process; do "$ropc" build "$v.rop" -o "./$v" -O2 >/dev/null; done
cores=$(getconf _NPROCESSORS_ONLN) # (nproc would honour OMP_THREAD_LIMIT)
run() {                            # run VARIANT: prints pages/s, pages, ok roots, CPU-s per page (all processes)
    rm -rf out
    /usr/bin/time -f "%U %S" -o cpu.txt "./$1" --no-progress --report report.json \
        >/dev/null 2>&1 || true
    python3 -c "
import json; r = json.load(open('report.json'))
pages = next(c['grains'] for c in r['calls'] if c['name'].startswith('ocr'))
user, sys_ = map(float, open('cpu.txt').read().split()[-2:])
print(f'{pages / r[\"wall_s\"]:.3f} {pages} {r[\"summary\"][\"ok\"]} {(user + sys_) / pages:.3f}')"
}
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); $copies x $(basename "$pdf"), every page OCR'd, ocr batch 4, 2 actors"
if [ "${ROP_BENCH_VARIANTS:-}" = threads ]; then # the machine-limit check alone
    for round in 1 2; do
        read -r t pages ok_t cpu_t < <(run threads)
        python3 -c "print(f'round $round: {$pages} pages; threads {$t:.3f} pages/s ({$cpu_t} CPU-s/page, '
                          f'{$t * $cpu_t / $cores:.0%} of the machine limit, $ok_t ok)')"
    done
    exit 0
fi
for round in 1 2; do
    read -r t pages ok_t cpu_t < <(run threads)
    read -r p _ ok_p cpu_p < <(run process)
    # The machine limit: every core busy at the pipeline's own CPU-s per page.
    python3 -c "print(f'round $round: {$pages} pages; threads {$t:.3f} pages/s ({$cpu_t} CPU-s/page, '
                      f'{$t * $cpu_t / $cores:.0%} of the machine limit, $ok_t ok), process {$p:.3f} '
                      f'pages/s ({$cpu_p} CPU-s/page, {$p * $cpu_p / $cores:.0%}, $ok_p ok), '
                      f'process/threads {$p / $t:.3f}')"
done
