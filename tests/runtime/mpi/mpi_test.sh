#!/usr/bin/env bash
# The MPI executor under mpirun on one machine (docs/cluster.md). MODE is one of:
#   outputs    2, 3 and 4 ranks (and 3 with process-isolated actors on the worker ranks, and 3
#              with m and sum on one shared pool) write the lines the threads executor writes
#              (the sink writes roots as they finish, so the files are compared sorted)
#   payloads   pages of 256 KiB: they go rank to rank, not through rank 0 (under 1% of the
#              bytes moved go through it), and the output is the threads executor's, also
#              with process-isolated actors; with ROP_MPI_INLINE_BYTES above a page, every
#              page goes through rank 0 again
#   isolation  a process actor that segfaults on a worker rank fails only its root, with the
#              reason the threads executor gives, and the job goes on
#   crash      a thread actor that segfaults on a worker rank ends the job; that rank journals
#              the crash (rank 0's journal, reached on the shared filesystem), --resume runs the
#              blamed roots alone, and the second crash fails d20 alone, naming its Call and rank;
#              every other root is written
#   kill       SIGKILL to a worker rank mid-run ends the job; --resume then finishes it, and the
#              roots of both runs are exactly the clean output, each once
#   placement  --explain-placement's table; ROP_SIMULATE_GPUS and gpus: each actor its own
#              device, in the run and in --estimate's sample; more actors than devices is an
#              error at start, on rank 0, exit 2; a
#              binary without MPI refuses on every rank, one that starts late included
#   local      the same placement on one machine, without MPI (THREADS_PIPELINE alone), the
#              error counting the devices earlier Calls hold; srun tasks without PMIx refuse to run
# Usage: mpi_test.sh MODE MPI_PIPELINE THREADS_PIPELINE  (rop_mpi_pipeline, rop_process_pipeline)
set -euo pipefail
mode=$1
mpi_bin=$2
threads_bin=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
# As root, Open MPI wants to be told; beyond the 2 cores, oversubscription is allowed. The
# ranks share a node, so the shared-memory transport carries the frames.
mpirun=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader)
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
same() { cmp <(sort "$1") <(sort "$2"); } # the same lines (roots are written as they finish)

# 40 documents: "dNN V" with V = NN * 7 % 23 + 1 (2 to 6 pages each).
for i in $(seq 1 40); do echo "d$i $((i * 7 % 23 + 1))"; done >docs.txt

case "$mode" in
outputs)
    "$threads_bin" --input docs.txt --output totals=clean.txt --report clean.json 2>threads.err ||
        fail "threads run: $(cat threads.err)"
    [ "$(wc -l <clean.txt)" = 40 ] || fail "the threads run wrote $(wc -l <clean.txt) lines"
    for np in 2 3 4; do
        timeout 120 "${mpirun[@]}" -np $np "$mpi_bin" --input docs.txt --output totals=mpi$np.txt \
            --set m.actors=3 2>mpi$np.err || fail "np $np: exit $?: $(cat mpi$np.err)"
        same clean.txt mpi$np.txt || fail "np $np: output differs from the threads executor's"
        grep -q "mpi: $np ranks; .* frames through rank 0" mpi$np.err ||
            fail "np $np: no mpi summary line: $(cat mpi$np.err)"
        echo "np $np: identical ($(grep -o 'mpi: .*' mpi$np.err))"
    done
    # Process-isolated map and reduce: their workers are started by the worker ranks.
    ROP_TEST_ISOLATE=m,sum timeout 120 "${mpirun[@]}" -np 3 "$mpi_bin" --input docs.txt \
        --output totals=iso.txt 2>iso.err || fail "isolated np 3: $(cat iso.err)"
    same clean.txt iso.txt || fail "isolated np 3: output differs"
    echo "np 3, isolated m and sum: identical"
    # A shared pool "model" serving m and sum (docs/runtime.md "Shared pools"): its 4 actors
    # placed over the worker ranks, in threads there or in worker processes; one instance of
    # its class per pool actor started, never one per Call.
    for isolate in "" model; do
        rm -f instances.txt
        ROP_TEST_POOL=4 ROP_TEST_ISOLATE=$isolate ROP_TEST_SHOW_INSTANCES=$PWD/instances.txt \
            timeout 120 "${mpirun[@]}" -np 3 "$mpi_bin" --input docs.txt \
            --output totals=pool.txt --set m.batch=1 --explain-placement 2>pool.err ||
            fail "pool np 3 (isolate '$isolate'): $(cat pool.err)"
        same clean.txt pool.txt || fail "pool np 3 (isolate '$isolate'): output differs"
        grep -q "m (pool model): rank 1 x2; rank 2 x2" pool.err ||
            fail "pool np 3: its 4 actors are not over ranks 1 and 2: $(cat pool.err)"
        made=$(wc -l <instances.txt)
        [ "$made" -ge 1 ] && [ "$made" -le 4 ] ||
            fail "pool np 3 (isolate '$isolate'): $made instances for 4 pool actors"
        echo "np 3, m and sum on one pool (isolate '$isolate'): identical, $made instances"
    done
    ;;
payloads)
    export ROP_TEST_PAGE_BYTES=262144
    "$threads_bin" --input docs.txt --output totals=clean.txt 2>threads.err ||
        fail "threads run: $(cat threads.err)"
    timeout 120 "${mpirun[@]}" -np 3 "$mpi_bin" --input docs.txt --output totals=mpi.txt \
        --set m.actors=3 2>mpi.err || fail "np 3: exit $?: $(cat mpi.err)"
    same clean.txt mpi.txt || fail "np 3: output differs from the threads executor's"
    line=$(grep -o 'mpi: 3 ranks; .*' mpi.err) || fail "no mpi summary line: $(cat mpi.err)"
    echo "$line"
    # 160 pages of 256 KiB (40 MiB): most are fetched by another rank's map actor.
    python3 - "$line" <<'PY' || fail "the pages went through rank 0: $line"
import re, sys
m = re.search(r"([0-9.]+) MiB in \d+ frames through rank 0; ([0-9.]+) MiB of items in (\d+) "
              r"fetches rank to rank \(([0-9.]+)% of the bytes", sys.argv[1])
through, between, fetches, share = float(m[1]), float(m[2]), int(m[3]), float(m[4])
assert fetches >= 20 and between >= 5, (fetches, between)
assert share < 1.0, share
PY
    # Process-isolated expand and map: their worker processes' pages stay on their ranks too.
    ROP_TEST_ISOLATE=split,m timeout 120 "${mpirun[@]}" -np 3 "$mpi_bin" --input docs.txt \
        --output totals=iso.txt --set m.actors=3 2>iso.err || fail "isolated: $(cat iso.err)"
    same clean.txt iso.txt || fail "isolated: output differs"
    grep -Eq "; [0-9.]+ MiB of items in [1-9][0-9]* fetches rank to rank \(0\.[0-9]+% " iso.err ||
        fail "isolated: the pages went through rank 0: $(grep -o 'mpi: .*' iso.err)"
    echo "isolated split and m: $(grep -o 'mpi: .*' iso.err)"
    # A kept page is dropped once rank 0 releases its root's rows (every 64 roots done): over
    # 400 roots, no rank holds more than a fraction of what it kept.
    for i in $(seq 1 400); do echo "e$i $((i % 23 + 1))"; done >many.txt
    ROP_TEST_PAGE_BYTES=65536 timeout 120 "${mpirun[@]}" -np 3 "$mpi_bin" --input many.txt \
        --output totals=many.txt.out --max-inflight-roots 8 2>many.err ||
        fail "400 roots: $(cat many.err)"
    line=$(grep -o 'mpi: 3 ranks; .*' many.err) || fail "no mpi summary line: $(cat many.err)"
    echo "400 roots: $line"
    python3 - "$line" <<'PY' || fail "kept pages were not dropped: $line"
import re, sys
m = re.search(r"held at most ([0-9.]+) MiB at once, ([0-9.]+) MiB kept in all", sys.argv[1])
peak, kept = float(m[1]), float(m[2])
assert kept > 50 and peak < kept / 4, (peak, kept)
PY
    ROP_MPI_INLINE_BYTES=1000000 timeout 120 "${mpirun[@]}" -np 3 "$mpi_bin" --input docs.txt \
        --output totals=inline.txt 2>inline.err || fail "inline: exit $?: $(cat inline.err)"
    same clean.txt inline.txt || fail "inline: output differs"
    grep -q "0.0 MiB of items in 0 fetches rank to rank (100.00% of the bytes" inline.err ||
        fail "inline pages were not all through rank 0: $(grep -o 'mpi: .*' inline.err)"
    echo "inline: $(grep -o 'mpi: .*' inline.err)"
    ;;
isolation)
    # d20 has V = 3 (no other root has): its page 3001 crashes the map's worker process.
    export ROP_TEST_ISOLATE=m ROP_TEST_POISON=3001:segv
    set +e
    "$threads_bin" --input docs.txt --output totals=clean.txt --report clean.json 2>threads.err
    threads_code=$?
    timeout 120 "${mpirun[@]}" -np 3 "$mpi_bin" --input docs.txt --output totals=mpi.txt \
        --report mpi.json 2>mpi.err
    mpi_code=$?
    set -e
    [ $threads_code = 3 ] || fail "threads: exit $threads_code: $(cat threads.err)"
    [ $mpi_code = 3 ] || fail "mpi: exit $mpi_code (want 3: a root failed): $(cat mpi.err)"
    same clean.txt mpi.txt || fail "the surviving roots' output differs"
    [ "$(wc -l <mpi.txt)" = 39 ] || fail "mpi wrote $(wc -l <mpi.txt) lines, want 39"
    python3 - <<'PY' || fail "reports differ"
import json
a, b = json.load(open("clean.json")), json.load(open("mpi.json"))
fa = [(r["name"], r.get("reason")) for r in a["roots"] if r["status"] == "failed"]
fb = [(r["name"], r.get("reason")) for r in b["roots"] if r["status"] == "failed"]
print("failed roots, threads:", fa)
print("failed roots, mpi:    ", fb)
assert fa == fb and len(fb) == 1 and fb[0][0] == "d20", (fa, fb)
assert "SIGSEGV" in fb[0][1], fb
PY
    ;;
crash)
    "$threads_bin" --input docs.txt --output totals=clean.txt 2>threads.err
    export ROP_TEST_POISON=3001:segv # d20's page, in a thread actor on rank 1 or 2
    args=(--input docs.txt --output totals=mpi.txt --journal run.journal --commit-group 1
        --set m.actors=3)
    codes=()
    for run in 1 2 3; do
        set +e
        resume=()
        [ $run = 1 ] || resume=(--resume)
        timeout 120 "${mpirun[@]}" -np 3 "$mpi_bin" "${args[@]}" "${resume[@]}" \
            --report run$run.json 2>run$run.err
        codes+=($?)
        set -e
        cp mpi.txt out$run.txt # the test's sink starts afresh each run
    done
    echo "exit codes: ${codes[*]}"
    [ "${codes[0]}" != 0 ] && [ "${codes[0]}" != 124 ] || fail "run 1: exit ${codes[0]}"
    grep -q "crashed: SIGSEGV in call 'm', a batch of .* d20" run1.err ||
        fail "run 1: the crashing rank did not name d20: $(head -5 run1.err)"
    grep -q '"call":"m","signal":"SIGSEGV","rank":[12]}' run.journal ||
        fail "no crash line from a worker rank: $(grep -v '"root"' run.journal)"
    [ "${codes[1]}" != 0 ] && [ "${codes[1]}" != 124 ] || fail "run 2: exit ${codes[1]}"
    grep -q "crashed: SIGSEGV in call 'm', a batch of [0-9]* from root d20$" run2.err ||
        fail "run 2: d20 did not run alone: $(head -5 run2.err)"
    [ "${codes[2]}" = 3 ] || fail "run 3: exit ${codes[2]} (want 3): $(tail -5 run3.err)"
    # Every other root written once over the three runs, as the clean run wrote it.
    same <(grep -v '^d20 ' clean.txt) <(cat out1.txt out2.txt out3.txt) ||
        fail "the other roots' output differs"
    python3 - <<'PY' || fail "run 3's report"
import json, re
roots = json.load(open("run3.json"))["roots"]
failed = [r for r in roots if r["status"] == "failed"]
print("failed:", failed)
assert [r["name"] for r in failed] == ["d20"], failed
assert failed[0]["call"] == "m", failed
assert re.fullmatch(r"crashed the process twice \(last: call 'm' on rank [12]: SIGSEGV\)",
                    failed[0]["reason"]), failed
assert len(roots) == 40 and all(r["status"] == "ok" for r in roots if r["name"] != "d20")
PY
    ;;
kill)
    "$threads_bin" --input docs.txt --output totals=clean.txt 2>threads.err
    # Each map batch sleeps 0.3 s: the run takes seconds; one root is journaled at a time.
    export ROP_TEST_SLEEP_US=300000
    args=(--input docs.txt --output totals=mpi.txt --journal run.journal --commit-group 1
        --max-inflight-roots 4 --set m.batch=2)
    "${mpirun[@]}" -np 3 "$mpi_bin" "${args[@]}" 2>first.err &
    launcher=$!
    victim=""
    for _ in $( # until some roots are journaled, then find rank 2
        seq 1 300
    ); do
        if [ -s run.journal ] && [ "$(wc -l <run.journal)" -ge 4 ]; then
            for pid in $(pgrep -f "$mpi_bin" || true); do
                if { tr '\0' '\n' <"/proc/$pid/environ"; } 2>/dev/null |
                    grep -qx OMPI_COMM_WORLD_RANK=2; then victim=$pid; fi
            done
            [ -n "$victim" ] && break
        fi
        sleep 0.1
    done
    [ -n "$victim" ] || fail "no rank 2 found while the run went on: $(cat first.err)"
    kill -9 "$victim"
    killed_at=$(date +%s%N)
    set +e
    timeout 60 tail --pid=$launcher -f /dev/null
    wait $launcher
    first_code=$?
    set -e
    [ $first_code != 0 ] || fail "the job survived the death of rank 2"
    [ $first_code != 124 ] || fail "the job hung after rank 2 died"
    ended_ms=$((($(date +%s%N) - killed_at) / 1000000))
    cp mpi.txt killed.txt
    done_before=$(wc -l <killed.txt)
    echo "rank 2 killed: the job ended ${ended_ms} ms later, exit $first_code, $done_before roots done"
    sed 's/^/  mpirun said: /' first.err | tail -5
    [ "$done_before" -lt 40 ] || fail "every root finished before the kill: nothing to resume"
    unset ROP_TEST_SLEEP_US
    timeout 120 "${mpirun[@]}" -np 3 "$mpi_bin" "${args[@]}" --resume --report resumed.json \
        2>resume.err || fail "--resume: exit $?: $(cat resume.err)"
    python3 - <<'PY' || fail "the runs together are not the clean output"
import json
report = json.load(open("resumed.json"))
resumed = {r["name"] for r in report["roots"] if r.get("resumed")}
ran = {r["name"] for r in report["roots"] if not r.get("resumed")}
killed = [l for l in open("killed.txt") if l.split()[0] in resumed]
again = open("mpi.txt").readlines()
clean = open("clean.txt").readlines()
print(f"{len(resumed)} roots journaled before the kill, {len(ran)} run by --resume")
assert len(resumed) > 0 and len(ran) > 0, (len(resumed), len(ran))
assert sorted(killed + again) == sorted(clean), "union differs from the clean run"
assert {l.split()[0] for l in again} == ran, "--resume ran a journaled root again"
PY
    ;;
placement)
    out=$(timeout 60 "${mpirun[@]}" -np 3 "$mpi_bin" --input docs.txt --output totals=p.txt \
        --explain-placement --set m.actors=3 2>&1) || fail "$out"
    grep -q "^placement: 2 ranks host actors: rank 1 (.*, 0 GPUs); rank 2 (" <<<"$out" ||
        fail "no rank line: $out"
    grep -qx "  m: rank 1 x2; rank 2 x1" <<<"$out" || fail "m is not spread 2+1: $out"
    # Four simulated devices per node, all ranks on one node: m with gpus 1 and 3 actors gets
    # devices 0, 1, 2; sum with gpus 0.5 and 2 actors shares device 3.
    out=$(ROP_SIMULATE_GPUS=4 ROP_TEST_GPUS=1,0.5 timeout 60 "${mpirun[@]}" -x ROP_SIMULATE_GPUS \
        -x ROP_TEST_GPUS -np 3 "$mpi_bin" --input docs.txt --output totals=g.txt \
        --explain-placement --set m.actors=3 2>&1) || fail "$out"
    grep -qx "  m: rank 1 x2 \[gpu 0, gpu 2\]; rank 2 x1 \[gpu 1\]" <<<"$out" ||
        fail "m's devices: $out"
    grep -qx "  sum: rank 1 x1 \[gpu 3\]; rank 2 x1 \[gpu 3\]" <<<"$out" ||
        fail "sum's shared device: $out"
    same p.txt g.txt || fail "placed on GPUs, the output differs"
    # Each map actor sees its devices: a thread actor in assigned_gpus(), a process-isolated
    # one's worker in CUDA_VISIBLE_DEVICES (the devices the worker rank was told).
    for iso in "" m; do
        rm -f devices.txt
        ROP_SIMULATE_GPUS=4 ROP_TEST_GPUS=1 ROP_TEST_ISOLATE=$iso ROP_TEST_SHOW_DEVICES=$PWD/devices.txt \
            timeout 60 "${mpirun[@]}" -x ROP_SIMULATE_GPUS -x ROP_TEST_GPUS -x ROP_TEST_ISOLATE \
            -x ROP_TEST_SHOW_DEVICES -np 3 "$mpi_bin" --input docs.txt --output totals=d.txt \
            --set m.actors=3 2>d.err || fail "devices ($iso): $(cat d.err)"
        if [ -z "$iso" ]; then
            want=$'gpus=0; visible=\ngpus=1; visible=\ngpus=2; visible='
        else want=$'gpus= visible=0\ngpus= visible=1\ngpus= visible=2'; fi
        got=$(sort devices.txt)
        [ "$got" = "$want" ] || fail "devices seen by the map's actors (isolate '$iso'): $got"
    done
    # --estimate runs its sample where the run's actors are: on the worker ranks, each map actor
    # with the device the run would give it (on rank 0 they would have none), nothing written.
    rm -f devices.txt
    ROP_SIMULATE_GPUS=4 ROP_TEST_GPUS=1 ROP_TEST_SHOW_DEVICES=$PWD/devices.txt \
        timeout 60 "${mpirun[@]}" -x ROP_SIMULATE_GPUS -x ROP_TEST_GPUS -x ROP_TEST_SHOW_DEVICES \
        -np 3 "$mpi_bin" --input docs.txt --output totals=e.txt --set m.actors=3 --estimate \
        --sample 10% >estimate.txt 2>e.err || fail "estimate: $(cat e.err)"
    grep -q "^estimate: 40 roots, from a sample of 4 " estimate.txt || fail "$(cat estimate.txt)"
    got=$(sort devices.txt)
    [ "$got" = $'gpus=0; visible=\ngpus=1; visible=\ngpus=2; visible=' ] ||
        fail "devices seen by the estimate's map actors: $got"
    [ ! -s e.txt ] || fail "the estimate wrote the sink"
    # Five actors with a whole GPU each, four devices: refused at start, on rank 0, exit 2.
    set +e
    out=$(ROP_SIMULATE_GPUS=4 ROP_TEST_GPUS=1 timeout 60 "${mpirun[@]}" -x ROP_SIMULATE_GPUS \
        -x ROP_TEST_GPUS -np 3 "$mpi_bin" --input docs.txt --output totals=x.txt \
        --set m.actors=5 2>&1)
    code=$?
    set -e
    [ $code = 2 ] || fail "5 actors on 4 GPUs: exit $code, want 2: $out"
    grep -q "error: placement: call 'm' asks for 5 actors with gpus 1 each; actor 5 finds no free device (the job has 4 (" <<<"$out" ||
        fail "the message: $out"
    [ ! -s x.txt ] || fail "something ran"
    # --placement mpi (or its older spelling --executor mpi) without a launcher, --placement
    # local and --executor inline under one: usage errors, nothing runs.
    for flag in "--placement mpi" "--executor mpi"; do
        set +e
        out=$("$mpi_bin" --input docs.txt --output totals=y.txt $flag 2>&1)
        code=$?
        set -e
        [ $code = 2 ] || fail "$flag alone: exit $code: $out"
        [ "$out" = "process_pipeline: error: --placement mpi: this process is the only rank; start it with mpirun -np N or srun -n N, N >= 2 (rank 0 drives, the others host actors; docs/cluster.md)" ] ||
            fail "$flag alone: $out"
    done
    set +e
    out=$(timeout 60 "${mpirun[@]}" -np 2 "$mpi_bin" --input docs.txt --output totals=y.txt \
        --placement local 2>&1)
    code=$?
    set -e
    [ $code != 0 ] || fail "--placement local under 2 ranks ran"
    grep -q "error: --placement local: started by an MPI launcher with 2 ranks (every rank would run the whole pipeline)" <<<"$out" ||
        fail "--placement local under 2 ranks: $out"
    set +e
    out=$(timeout 60 "${mpirun[@]}" -np 2 "$mpi_bin" --input docs.txt --output totals=y.txt \
        --executor inline 2>&1)
    code=$?
    set -e
    [ $code != 0 ] || fail "--executor inline under 2 ranks ran"
    grep -q "error: --executor inline: started by an MPI launcher with 2 ranks" <<<"$out" ||
        fail "--executor inline under 2 ranks: $out"
    [ ! -s y.txt ] || fail "something ran"
    # A binary built without MPI under mpirun: every rank says why and the job exits 2, also
    # when a rank starts late (2 s here, after the others refused): they wait for it, or the
    # launcher would end the job at the first exit, before the late rank spoke.
    set +e
    out=$(timeout 60 "${mpirun[@]}" -np 2 "$threads_bin" --input docs.txt --output totals=z.txt : \
        -np 1 sh -c "sleep 2; exec '$threads_bin' --input docs.txt --output totals=z.txt" 2>&1)
    code=$?
    set -e
    [ $code = 2 ] || fail "a binary without MPI on 3 ranks: exit $code, want 2: $out"
    said=$(echo "$out" | grep -cx "process_pipeline: error: started by an MPI launcher with 3 ranks, but this binary was built without the MPI executor; build it with \`ropc build --mpi\` (docs/cluster.md)" || true)
    [ "$said" = 3 ] || fail "a binary without MPI on 3 ranks: $said of 3 ranks said why: $out"
    [ ! -e z.txt ] || fail "a binary without MPI on 3 ranks: something ran"
    echo "placement: ok"
    ;;
local)
    # srun without PMIx (--mpi=none, Slurm's default) starts tasks that cannot find each other:
    # every one refuses to run, instead of each running the whole pipeline.
    set +e
    out=$(SLURM_STEP_NUM_TASKS=3 SLURM_PROCID=1 "$threads_bin" --input docs.txt \
        --output totals=srun.txt 2>&1)
    code=$?
    set -e
    [ $code = 2 ] || fail "srun without PMIx: exit $code: $out"
    grep -q "started by srun with 3 tasks but without PMIx.*srun --mpi=pmix" <<<"$out" ||
        fail "srun without PMIx: $out"
    [ ! -e srun.txt ] || fail "srun without PMIx: the task wrote its output"
    # One machine, no MPI: Calls with gpus are placed on this node's devices the same way.
    # An actor is made when its first batch comes; each batch sleeps 10 ms so that the second
    # actor gets one even on a loaded machine (CI once saw one actor take them all).
    for iso in "" m; do
        rm -f devices.txt
        out=$(ROP_SIMULATE_GPUS=2 ROP_TEST_GPUS=1 ROP_TEST_ISOLATE=$iso ROP_TEST_SLEEP_US=10000 \
            ROP_TEST_SHOW_DEVICES=$PWD/devices.txt "$threads_bin" --input docs.txt \
            --output totals=l.txt --set m.actors=2 --explain-placement 2>&1) ||
            fail "local ($iso): $out"
        grep -qx "  m: rank 0 x2 \[gpu 0, gpu 1\]" <<<"$out" || fail "local placement: $out"
        if [ -z "$iso" ]; then
            want=$'gpus=0; visible=\ngpus=1; visible='
        else want=$'gpus= visible=0\ngpus= visible=1'; fi
        got=$(sort devices.txt)
        [ "$got" = "$want" ] || fail "devices seen by the map's actors (isolate '$iso'): $got"
    done
    "$threads_bin" --input docs.txt --output totals=clean.txt 2>/dev/null
    same clean.txt l.txt || fail "placed on GPUs, the output differs"
    # A shared pool with gpus 1 (m and sum on it): the pool's 2 actors on the 2 devices, each
    # instance on its own device, whichever Call it serves; 3 actors on 2 devices: the error
    # names the pool.
    for iso in "" model; do
        rm -f devices.txt
        out=$(ROP_SIMULATE_GPUS=2 ROP_TEST_POOL=2 ROP_TEST_POOL_GPUS=1 ROP_TEST_ISOLATE=$iso \
            ROP_TEST_SLEEP_US=10000 ROP_TEST_SHOW_DEVICES=$PWD/devices.txt "$threads_bin" \
            --input docs.txt --output totals=lp.txt --explain-placement 2>&1) ||
            fail "local pool ($iso): $out"
        grep -qx "  m (pool model): rank 0 x2 \[gpu 0, gpu 1\]" <<<"$out" &&
            grep -qx "  sum (pool model): rank 0 x2 \[gpu 0, gpu 1\]" <<<"$out" ||
            fail "local pool placement: $out"
        if [ -z "$iso" ]; then
            want=$'gpus=0; visible=\ngpus=1; visible='
        else want=$'gpus= visible=0\ngpus= visible=1'; fi
        got=$(sort devices.txt)
        [ "$got" = "$want" ] || fail "devices seen by the pool's instances (isolate '$iso'): $got"
        same clean.txt lp.txt || fail "a pool placed on GPUs (isolate '$iso'): the output differs"
    done
    set +e
    out=$(ROP_SIMULATE_GPUS=2 ROP_TEST_POOL=3 ROP_TEST_POOL_GPUS=1 "$threads_bin" \
        --input docs.txt --output totals=x.txt 2>&1)
    code=$?
    set -e
    [ $code = 2 ] || fail "a pool of 3 actors on 2 GPUs: exit $code, want 2: $out"
    grep -q "error: placement: pool 'model' asks for 3 actors with gpus 1 each; actor 3 finds no free device" <<<"$out" ||
        fail "the pool's message: $out"
    set +e
    out=$(ROP_SIMULATE_GPUS=2 ROP_TEST_GPUS=1 "$threads_bin" --input docs.txt \
        --output totals=x.txt --set m.actors=3 2>&1)
    code=$?
    set -e
    [ $code = 2 ] || fail "3 actors on 2 GPUs: exit $code, want 2: $out"
    grep -qx "process_pipeline: error: placement: call 'm' asks for 3 actors with gpus 1 each; actor 3 finds no free device (the job has 2 (.*: 2) GPUs; lower actors or gpus, or add nodes)" <<<"$out" ||
        fail "the message: $out"
    # The devices earlier Calls hold are counted: m holds one of the two, sum's second actor
    # finds none.
    set +e
    out=$(ROP_SIMULATE_GPUS=2 ROP_TEST_GPUS=1,1 "$threads_bin" --input docs.txt \
        --output totals=x.txt --set m.actors=1 2>&1)
    code=$?
    set -e
    [ $code = 2 ] || fail "m and sum on 2 GPUs: exit $code, want 2: $out"
    grep -qx "process_pipeline: error: placement: call 'sum' asks for 2 actors with gpus 1 each; actor 2 finds no free device (the job has 2 (.*: 2) GPUs, of which earlier Calls hold 1 ('m': 1 actor with gpus 1); lower actors or gpus, or add nodes)" <<<"$out" ||
        fail "the message, with m's device: $out"
    # No GPU here (this machine has no driver, or the count says 0): CPU actors, said once.
    out=$(ROP_SIMULATE_GPUS=0 ROP_TEST_GPUS=1 "$threads_bin" --input docs.txt \
        --output totals=n.txt 2>&1) || fail "no GPU: $out"
    [ "$(echo "$out" | grep -c "no GPU (ROP_SIMULATE_GPUS=0): Calls with gpus run on CPU actors")" = 1 ] ||
        fail "no GPU: not said once: $out"
    same clean.txt n.txt || fail "on CPU actors, the output differs"
    echo "local placement: ok"
    ;;
*) fail "unknown mode $mode" ;;
esac
echo "PASS: $mode"
