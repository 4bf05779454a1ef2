#!/usr/bin/env bash
# B2 under the MPI executor (issue 14, docs/benchmarks.md "B2 under MPI"): the study pipeline
# (bench/study/rop/study.rop, sleeping UDFs) built twice by `ropc build` — plain and `--mpi` — and
# run on the same corpus with the same actors per stage: in one process, then under mpirun with
# 4 and 8 ranks (rank 0 drives, the others host every actor). Per run: the makespan against the
# corpus's ideal bound, rank 0's CPU time (user + sys: the driver, its proxies and its MPI thread),
# the frames through rank 0, and from those the CPU and frames per Grain and how many GPUs one
# driver could feed at the paper's 0.64 pages/s per GPU.
#
# Usage: bench/cluster/run_b2_mpi.sh [--quick]   (env: ROPC, BENCH_STUDY, OUT, ACTORS, ROUNDS)
# Results: $OUT/b2_mpi.jsonl, one line per run, and a table on stdout.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ROPC=${ROPC:-$ROOT/build/ci/bin/ropc}
BENCH_STUDY=${BENCH_STUDY:-$ROOT/build/ci/bin/bench_study}
OUT=${OUT:-$ROOT/bench/results/b2_mpi}
ACTORS=${ACTORS:-64}
ROUNDS=${ROUNDS:-2}
SCALE=1 COMPRESS=1000
if [[ ${1:-} == --quick ]]; then SCALE=0.05 COMPRESS=250 ROUNDS=1; fi
for tool in "$ROPC" "$BENCH_STUDY"; do
    [[ -x $tool ]] || {
        echo "missing $tool (build the ci preset, or set ROPC / BENCH_STUDY)" >&2
        exit 2
    }
done
command -v mpirun >/dev/null || {
    echo "mpirun not found: apt-get install openmpi-bin libopenmpi-dev" >&2
    exit 2
}
mkdir -p "$OUT"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

echo "== ropc build study.rop, plain and --mpi"
"$ROPC" build "$ROOT/bench/study/rop/study.rop" -o "$WORK/study" 2>"$WORK/build.log" ||
    {
        cat "$WORK/build.log"
        exit 1
    }
"$ROPC" build --mpi "$ROOT/bench/study/rop/study.rop" -o "$WORK/study_mpi" 2>"$WORK/build_mpi.log" ||
    {
        cat "$WORK/build_mpi.log"
        exit 1
    }
"$BENCH_STUDY" corpus --scale "$SCALE" --compress "$COMPRESS" >"$WORK/corpus.json"

# The cost model the UDFs sleep, from the corpus (as bench/study/peers.py passes it).
export STUDY_COST=$(python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["cost"]
print(" ".join(str(c[k]) for k in ("compress", "render_root", "render_page", "ocr_batch",
      "ocr_page", "assemble_root", "assemble_page", "upload_root")))' "$WORK/corpus.json")
CAP=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cost"].get("cap", 48))' "$WORK/corpus.json")

# Runs a command and writes its CPU seconds (user + sys of it and its children) to a file: rank 0
# (or the one process) runs under it.
cat >"$WORK/cpu.py" <<'PY'
import resource, subprocess, sys
code = subprocess.call(sys.argv[2:])
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%.3f\n" % (r.ru_utime + r.ru_stime))
sys.exit(code)
PY

args=(--input "$WORK/corpus.json" --output "$WORK/roots.log" --no-progress
    --set "pages.actors=$ACTORS" --set "texts.actors=$ACTORS" --set "texts.batch=$CAP"
    --set "documents.actors=$ACTORS" --max-inflight-roots $((4 * ACTORS)))
mpirun=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader)
: >"$OUT/b2_mpi.jsonl"
for round in $(seq 1 "$ROUNDS"); do
    for ranks in 1 4 8; do
        rm -f "$WORK/roots.log" "$WORK/report.json" "$WORK/cpu.txt"
        load=$(cut -d' ' -f1 /proc/loadavg)
        start=$(date +%s.%N)
        if [[ $ranks == 1 ]]; then
            python3 "$WORK/cpu.py" "$WORK/cpu.txt" "$WORK/study" "${args[@]}" \
                --report "$WORK/report.json" 2>"$WORK/run.err"
        else
            # MPMD: the same binary on every rank, rank 0 under the CPU counter.
            "${mpirun[@]}" -np 1 python3 "$WORK/cpu.py" "$WORK/cpu.txt" "$WORK/study_mpi" \
                "${args[@]}" --report "$WORK/report.json" : -np $((ranks - 1)) \
                "$WORK/study_mpi" "${args[@]}" 2>"$WORK/run.err"
        fi
        end=$(date +%s.%N)
        python3 - "$WORK" "$ranks" "$round" "$load" "$start" "$end" "$ACTORS" >>"$OUT/b2_mpi.jsonl" <<'PY'
import json, re, sys
work, ranks, rnd, load, start, end, actors = sys.argv[1:]
report = json.load(open(f"{work}/report.json"))
corpus = json.load(open(f"{work}/corpus.json"))
err = open(f"{work}/run.err").read()
cpu = float(open(f"{work}/cpu.txt").read())
grains = sum(c["grains"] for c in report["calls"])
pages = sum(corpus["pages"])
m = re.search(r"mpi: \d+ ranks; ([0-9.]+) MiB in (\d+) frames through rank 0", err)
frames = int(m[2]) if m else 0
ideal = corpus["ideal_modelled_s"][actors] / corpus["cost"]["compress"]
failed = sum(1 for r in report["roots"] if r["status"] != "ok")
print(json.dumps({
    "ranks": int(ranks), "round": int(rnd), "actors": int(actors), "load_before": float(load),
    "roots": len(corpus["pages"]), "pages": pages, "grains": grains, "failed_roots": failed,
    "makespan_s": round(report["wall_s"], 3), "ideal_s": round(ideal, 3),
    "of_ideal": round(ideal / report["wall_s"], 4), "rank0_cpu_s": cpu,
    "cpu_us_per_grain": round(1e6 * cpu / grains, 2), "frames_through_rank0": frames,
    "frames_per_grain": round(frames / grains, 3) if frames else None,
    "driver_pages_per_cpu_s": round(pages / cpu, 1),
    "gpus_one_driver_feeds": round(pages / cpu / 0.64),
}))
PY
        tail -1 "$OUT/b2_mpi.jsonl"
    done
done
python3 - "$OUT/b2_mpi.jsonl" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
print("\n| ranks | makespan s (median) | of ideal | rank 0 CPU s | CPU us/Grain | frames/Grain | GPUs one driver feeds at 0.64 pages/s |")
print("|---|---|---|---|---|---|---|")
base = None
for ranks in (1, 4, 8):
    rs = [r for r in runs if r["ranks"] == ranks]
    if not rs:
        continue
    med = lambda k: statistics.median(r[k] for r in rs)
    ms = med("makespan_s")
    base = base or ms
    fpg = med("frames_per_grain") if rs[0]["frames_per_grain"] is not None else "-"
    print(f"| {ranks} | {ms:.2f} ({ms / base:.3f}x one process) | {med('of_ideal'):.1%} | "
          f"{med('rank0_cpu_s'):.2f} | {med('cpu_us_per_grain'):.1f} | {fpg} | "
          f"{med('gpus_one_driver_feeds'):,.0f} |")
PY
