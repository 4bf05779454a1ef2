#!/usr/bin/env bash
# Brings up a one-node Slurm (Debian 12's slurm-wlm) in a work dir and runs the wordcount example,
# built with `ropc build --mpi`, under srun and under an sbatch job script; checks that every run
# is distributed (rank 0's `mpi: N ranks` line) and writes exactly what one process writes, and
# that a job cancelled mid-run is finished by a second job with --resume. Then stops what it
# started. Not in the test command: it needs root and apt. docs/cluster.md shows its transcript.
#
#   tools/cluster/slurm_local.sh [--work DIR] [--ropc PATH] [--ranks N] [--keep-packages]
#
#   --work DIR        where the config, daemon logs, job scripts and runs go (default
#                     /tmp/rop-slurm; emptied first, kept afterwards with transcript.txt)
#   --ropc PATH       the compiler (default build/ci/bin/ropc, then ropc on PATH)
#   --ranks N         ranks per run (default 3)
#   --keep-packages   keep the packages this run installed (by default they are purged again)
#
# Nothing is written under /etc: slurm.conf, the munge key and socket, the state and spool dirs
# live in the work dir (SLURM_CONF points the clients at it), so a second run starts clean. The
# daemons run in the background, not under systemd. Exit status: 0 when every check passed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=/tmp/rop-slurm ropc="" ranks=3 keep_packages=0
while (($#)); do
    case $1 in
    --work) work=$2 && shift ;;
    --ropc) ropc=$2 && shift ;;
    --ranks) ranks=$2 && shift ;;
    --keep-packages) keep_packages=1 ;;
    -h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' && exit 0 ;;
    *) echo "slurm_local: unknown argument '$1' (--help)" >&2 && exit 2 ;;
    esac
    shift
done

fail() {
    echo "slurm_local: FAIL: $*" >&2
    exit 1
}
say() { printf '\n# %s\n' "$*"; }
# show CMD...: print the command as typed, then run it (its output goes to the transcript).
show() {
    printf '$ %s\n' "$*"
    "$@"
}

[ "$(id -u)" = 0 ] || fail "run as root: it installs packages and starts slurmctld, slurmd and munged"
[ -r /etc/debian_version ] || fail "written for Debian 12 (apt, slurm-wlm 22.05); this is not Debian"
if [ -z "$ropc" ]; then
    ropc=$root/build/ci/bin/ropc
    [ -x "$ropc" ] || ropc=$(command -v ropc || true)
fi
[ -x "$ropc" ] ||
    fail "no ropc: build it (cmake --build build/ci --target ropc) or pass --ropc PATH"
if ! [[ $ranks =~ ^[0-9]+$ ]] || ((ranks < 2)); then fail "--ranks $ranks: need 2 or more"; fi
host=$(hostname -s)
getent hosts "$host" >/dev/null ||
    fail "the host name '$host' does not resolve (add it to /etc/hosts): slurmd finds itself by it"

# A leftover of an earlier run of this script is stopped; anyone else's Slurm is left alone.
stop_daemon() { # NAME PIDFILE
    local pid
    pid=$(cat "$2" 2>/dev/null) || return 0
    [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$1" ] || return 0
    kill "$pid"
    for _ in $(seq 50); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.2
    done
    kill -KILL "$pid" 2>/dev/null || true
}
for d in slurmd slurmctld munged; do stop_daemon $d "$work/run/$d.pid"; done
for d in slurmctld slurmd; do
    pid=$(pgrep -x $d | head -1 || true)
    [ -z "$pid" ] || fail "a $d is already running here (pid $pid), not started by this script in $work: stop it first, or use that Slurm directly"
done
for port in 6817 6818; do
    if (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; then
        fail "port $port (slurmctld 6817, slurmd 6818) is taken on this machine"
    fi
done

if [ -e "$work" ] && [ ! -e "$work/.rop-slurm-work" ] && [ -n "$(ls -A "$work")" ]; then
    fail "--work $work exists and was not made by this script: give an empty or new directory"
fi
rm -rf "$work"
mkdir -p "$work"/{etc,run,log,state,spool,cache}
chmod 755 "$work" "$work/run" # munged wants its socket's directory searchable by all
work=$(cd "$work" && pwd)
touch "$work/.rop-slurm-work"
exec > >(tee "$work/transcript.txt") 2>&1

# Cleanup: runs on every exit, a failed check included.
installed=()
cleanup() {
    local code=$?
    set +e
    say "stop the daemons this script started"
    for d in slurmd slurmctld munged; do stop_daemon $d "$work/run/$d.pid"; done
    pgrep -x slurmstepd >/dev/null && echo "note: a slurmstepd is still running (pid $(pgrep -x slurmstepd | tr '\n' ' '))"
    if ((${#installed[@]})) && ((!keep_packages)); then
        say "purge the packages this run installed (--keep-packages keeps them)"
        DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "${installed[@]}" >"$work/log/apt-purge.log" 2>&1 ||
            echo "apt-get purge failed: see $work/log/apt-purge.log"
        echo "purged ${#installed[@]} packages: ${installed[*]}"
    fi
    echo "work dir kept: $work (transcript.txt, log/, etc/slurm.conf, job scripts)"
    if ((code == 0)); then echo "slurm_local: ok"; else echo "slurm_local: FAILED (exit $code)"; fi
    exit $code
}
trap cleanup EXIT

os=$(sed -n 's/^PRETTY_NAME="\(.*\)"$/\1/p' /etc/os-release)
say "$(date -u '+%Y-%m-%d %H:%M UTC') on $host: $os, $(getconf _NPROCESSORS_ONLN) CPUs"

# 1. Packages. Debian's Open MPI 4.1 is built against PMIx (libpmix2), not Slurm's PMI-2, so srun
# must start its tasks with --mpi=pmix: slurm-wlm-basic-plugins brings mpi_pmix.so.
say "packages"
wanted=(slurm-wlm slurm-wlm-basic-plugins munge libpmix2 openmpi-bin libopenmpi-dev)
is_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }
missing=()
for p in "${wanted[@]}"; do is_installed "$p" || missing+=("$p"); done
if ((${#missing[@]})); then
    before=$(dpkg-query -W -f='${Package}\n' | sort)
    apt_install() {
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" \
            >>"$work/log/apt.log" 2>&1
    }
    echo "\$ apt-get install -y --no-install-recommends ${missing[*]}"
    apt_install "${missing[@]}" || { apt-get update -q >>"$work/log/apt.log" 2>&1 && apt_install "${missing[@]}"; } ||
        fail "apt-get install ${missing[*]} failed ($work/log/apt.log): $(tail -3 "$work/log/apt.log")"
    mapfile -t installed < <(comm -13 <(echo "$before") <(dpkg-query -W -f='${Package}\n' | sort))
    echo "installed ${#installed[@]} packages: ${installed[*]}"
else
    echo "already installed: ${wanted[*]}"
fi
dpkg-query -W -f='${Package} ${Version}\n' slurm-wlm munge libpmix2 openmpi-bin
pmix=$(dpkg-query -L slurm-wlm-basic-plugins | grep '/mpi_pmix\.so$' || true)
[ -n "$pmix" ] || fail "slurm-wlm-basic-plugins has no mpi_pmix.so: srun cannot wire up Debian's Open MPI"

# 2. Munge: its own key and socket in the work dir (munged refuses a key not owned by its user,
# and Debian's key belongs to the munge user).
say "munge"
show mungekey --create --keyfile="$work/etc/munge.key"
show munged --socket="$work/run/munge.socket" --key-file="$work/etc/munge.key" \
    --pid-file="$work/run/munged.pid" --log-file="$work/log/munged.log" \
    --seed-file="$work/run/munge.seed" || fail "munged did not start: $(tail -3 "$work/log/munged.log")"
munge -S "$work/run/munge.socket" -n | unmunge -S "$work/run/munge.socket" | grep STATUS

# 3. slurm.conf for this node. slurmd -C reports the node as Slurm sees it (CPUs, sockets, cores,
# memory). No cgroups here (a container): processes are tracked through /proc (linuxproc) and
# tasks are not bound to cores (task/none). Overcommit lets 3 ranks share 2 cores.
say "slurm.conf"
node=$(slurmd -C | head -1)
cpus=$(getconf _NPROCESSORS_ONLN)
[[ $node == "NodeName=$host CPUs=$cpus "* ]] || fail "slurmd -C says '$node'; expected $host with $cpus CPUs"
cat >"$work/etc/slurm.conf" <<EOF
# A one-node Slurm written by tools/cluster/slurm_local.sh
ClusterName=rop
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/run/munge.socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=pmix
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
$node
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
grep -vE '^#|^(Slurm.*(Pid|Log)File|StateSave|SlurmdSpool|AuthInfo|Cluster|Accounting|JobAcct)' \
    "$work/etc/slurm.conf"
export SLURM_CONF=$work/etc/slurm.conf

say "daemons"
show slurmctld -f "$SLURM_CONF" || fail "slurmctld did not start: $(tail -5 "$work/log/slurmctld.log")"
show slurmd -f "$SLURM_CONF" || fail "slurmd did not start: $(tail -5 "$work/log/slurmd.log")"
state=""
for _ in $(seq 60); do
    state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
    [ "$state" = idle ] && break
    sleep 0.5
done
[ "$state" = idle ] || fail "the node is '$state', not idle, after 30 s: $(tail -5 "$work/log/slurmd.log")"
show sinfo
show srun --version
show srun --mpi=list

# What a task started by srun sees: the runtime takes SLURM_STEP_NUM_TASKS as the rank count when
# PMIX_RANK (or PMI_RANK) is set (runtime/src/placement/mpi_seam.cpp, launched_ranks).
say "a task's environment under srun --mpi=pmix"
printf '$ srun -n %s --overcommit --mpi=pmix env | grep ...\n' "$ranks"
srun -n "$ranks" --overcommit --mpi=pmix env | grep -E '^(SLURM_STEP_NUM_TASKS|SLURM_PROCID|PMIX_RANK|PMI_RANK|PMI_SIZE)=' |
    sort | uniq -c | tee "$work/srun-env.txt"
grep -q "^ *$ranks SLURM_STEP_NUM_TASKS=$ranks$" "$work/srun-env.txt" ||
    fail "srun tasks do not see SLURM_STEP_NUM_TASKS=$ranks"
[ "$(grep -c 'PMIX_RANK=' "$work/srun-env.txt")" = "$ranks" ] ||
    fail "srun --mpi=pmix tasks have no PMIX_RANK 0..$((ranks - 1)): the runtime would not see a launch"

# 4. The example, built twice, and its one-process reference output.
say "build the example (wordcount) with and without --mpi, and the one-process reference"
run=$work/wordcount
cp -r "$root/examples/wordcount" "$run"
cd "$run"
export ROP_CACHE_DIR=${ROP_CACHE_DIR:-$work/cache}
show "$ropc" --version
show "$ropc" build wordcount.rop -o ./wordcount -O1
show "$ropc" build wordcount.rop -o ./wordcount.mpi -O1 --mpi
show ./wordcount --journal ref.journal 2>ref.err || fail "the one-process run failed: $(cat ref.err)"
mv out ref_out
echo "reference: $(find ref_out -name '*.md' | wc -l) files in ref_out/"

# check_run NAME LOG: the run was distributed over all ranks and wrote the reference output.
check_run() {
    grep -q "mpi: $ranks ranks" "$2" || fail "$1: no 'mpi: $ranks ranks' line in $2, not one distributed run: $(cat "$2")"
    [ "$(grep -c 'run started' "$2")" = 1 ] || fail "$1: more than one process ran the pipeline: $(cat "$2")"
    diff -r -x .rop-names ref_out out || fail "$1: the output differs from the one-process run"
    echo "ok: $1: $(grep -o "mpi: $ranks ranks;[^;]*" "$2"), output identical to the one-process run"
    rm -rf out
}

say "srun"
show timeout 300 srun -n "$ranks" --overcommit --mpi=pmix ./wordcount.mpi --journal srun.journal \
    --explain-placement 2>srun.err || fail "srun: exit $?: $(cat srun.err)"
grep -E 'placement:|mpi:|run ended' srun.err
check_run srun srun.err

# A binary built without --mpi refuses a multi-rank srun launch (it recognises srun), reading nothing.
say "a binary built without --mpi under srun"
printf '$ srun -n %s --overcommit --mpi=pmix ./wordcount\n' "$ranks"
if timeout 120 srun -n "$ranks" --overcommit --mpi=pmix ./wordcount 2>nompi.err; then
    fail "a binary without --mpi ran under srun -n $ranks"
fi
grep -m1 'error: started by an MPI launcher' nompi.err ||
    fail "no clear message from a binary without --mpi: $(cat nompi.err)"
[ ! -e out ] || fail "a binary without --mpi wrote output under srun"

# 5. sbatch: the job script is what docs/cluster.md shows. It runs where it is submitted (the
# working directory); on a real cluster the binary, in/, out/ and the journal live on a shared
# file system, here the one node's disk is all there is.
say "sbatch"
cat >job.sh <<EOF
#!/bin/bash
#SBATCH --job-name=wordcount
#SBATCH --ntasks=$ranks
#SBATCH --overcommit
#SBATCH --output=job-%j.log
# rank 0 reads in/ and writes out/, the journal and the report: keep them on a shared file system
srun --mpi=pmix ./wordcount.mpi --journal wordcount.journal --report report.json "\$@"
EOF
show cat job.sh
echo "\$ sbatch --wait job.sh"
job=$(timeout 300 sbatch --parsable --wait job.sh) || fail "sbatch job $job: exit $?: $(cat job-*.log)"
echo "job $job: $(scontrol show job "$job" | grep -oE 'JobState=[A-Z]+|ExitCode=[0-9:]+' | paste -sd' ')"
show cat "job-$job.log"
check_run sbatch "job-$job.log"
[ -s report.json ] || fail "sbatch: no report.json"

# srun --mpi=none (Slurm's own default MpiDefault): the tasks get no PMIx, so none could find the
# others; every task must refuse to run (exit 2) and write nothing.
say "srun --mpi=none: every task refuses to run"
mkdir -p none && cp -r in none/ && ln wordcount.mpi none/
printf '$ srun -n %s --overcommit --mpi=none ./wordcount.mpi\n' "$ranks"
code=0
(cd none && timeout 120 srun -n "$ranks" --overcommit --mpi=none ./wordcount.mpi \
    --journal none.journal 2>none.err) || code=$?
[ "$code" != 0 ] || fail "srun --mpi=none: the job succeeded: $(cat none/none.err)"
refused=$(grep -c 'started by srun with .* tasks but without PMIx' none/none.err || true)
[ "$refused" = "$ranks" ] || fail "srun --mpi=none: $refused of $ranks tasks refused: $(cat none/none.err)"
! grep -q 'run started' none/none.err || fail "srun --mpi=none: a task ran the pipeline"
echo "exit $code; each of the $ranks tasks said: $(grep -m1 -o 'started by srun.*' none/none.err)"

# 6. Resume: a job cancelled mid-run (scancel: SIGTERM to every task, as at a time limit) is
# finished by the same job script with --resume, which runs only the roots not journaled.
say "scancel mid-run, then --resume in a second job"
copies=1000
mkdir -p big/in
for i in $(seq "$copies"); do cp in/hamlet.txt "big/in/hamlet$i.txt"; done
ln wordcount wordcount.mpi big/
cd big
show ./wordcount --journal ref.journal 2>ref.err || fail "big: the one-process run failed: $(cat ref.err)"
mv out ref_out
job=$(sbatch --parsable ../job.sh)
echo "\$ sbatch ../job.sh   # job $job, $copies files"
for _ in $(seq 600); do
    [ "$(find out -name '*.md' 2>/dev/null | wc -l)" -ge 100 ] && break
    sleep 0.1
done
t0=$(date +%s)
show scancel "$job"
while squeue -h -j "$job" 2>/dev/null | grep -q .; do sleep 0.5; done
echo "job $job left the queue $(($(date +%s) - t0)) s after scancel"
show cat "job-$job.log"
done_roots=$(find out -name '*.md' | wc -l)
((done_roots > 0)) || fail "nothing was written before the cancel"
((done_roots < copies)) || fail "the job finished before scancel reached it; raise copies"
echo "written before the cancel: $done_roots of $copies files"
grep -q 'interrupted (SIGTERM)' "job-$job.log" ||
    echo "note: rank 0 did not log its interruption (it was killed before it stopped)"
echo "\$ sbatch --wait ../job.sh --resume"
job=$(timeout 300 sbatch --parsable --wait ../job.sh --resume) || fail "sbatch --resume: job $job: exit $?"
show cat "job-$job.log"
check_run "sbatch --resume after scancel" "job-$job.log"
