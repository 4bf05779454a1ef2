#!/usr/bin/env bash
# mpi.sh ROPC SOURCE_DIR WORK_DIR CACHE_DIR: the example pipelines built with `ropc build --mpi`
# and run under mpirun with 2, 3 and 4 ranks write exactly what the same pipelines built
# without it write in one process (docs/cluster.md). Also: ropc build --help names --mpi.
set -euo pipefail
ropc=$1 src=$2 work=$3 cache=$4
export ROP_CACHE_DIR=$cache
mpirun=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader)
fail() { echo "FAIL: $*" >&2; exit 1; }
"$ropc" build --help | grep -q -- "--mpi " || fail "ropc build --help does not name --mpi"
for name in wordcount orders sections pages; do
    rm -rf "$work/$name"
    mkdir -p "$work/$name"
    cp -r "$src/examples/$name/." "$work/$name/"
    cd "$work/$name"
    rm -rf out
    "$ropc" build "$name.rop" -o "./$name" -O1
    "$ropc" build "$name.rop" -o "./$name.mpi" -O1 --mpi
    set +e
    "./$name" --journal threads.journal >/dev/null 2>threads.err
    want=$?
    set -e
    mv out threads_out
    for np in 2 3 4; do
        set +e
        timeout 300 "${mpirun[@]}" -np $np "./$name.mpi" --journal mpi$np.journal \
            >/dev/null 2>mpi$np.err
        code=$?
        set -e
        [ $code = "$want" ] || fail "$name, $np ranks: exit $code, want $want: $(cat mpi$np.err)"
        grep -q "mpi: $np ranks" mpi$np.err || fail "$name, $np ranks: not an MPI run"
        diff -r -x .rop-names threads_out out || fail "$name, $np ranks: outputs differ"
        rm -rf out
        echo "$name, $np ranks: the same outputs ($(grep -o 'mpi: .*' mpi$np.err))"
    done
done
# --mpi: every Call's items cross between ranks, so a type without a codec is an error at its
# Call (the E0306 fixture without `isolation process`).
rm -rf "$work/codec" && mkdir -p "$work/codec" && cd "$work/codec"
cp -r "$src/tests/diagnostics/udfs" .
sed 's/ isolation process//' "$src/tests/diagnostics/E0306_isolation_process.rop" >p.rop
set +e
out=$("$ropc" build p.rop -o p --mpi 2>&1)
code=$?
set -e
[ $code = 1 ] || fail "a type without a codec under --mpi: exit $code: $out"
want="p.rop:4:23: error: --mpi: item type 'isolation::Page' of call 'isolation.render' cannot cross between ranks: field 'cache' has type 'std::shared_ptr<isolation::Cache>', which has no codec; give it a rop::Codec specialization (docs/udfs.md)"
echo "$out" | grep -qxF "$want" || fail "the codec error: $out"
[ ! -e p ] || fail "a binary was written"
"$ropc" check p.rop >/dev/null 2>&1 || fail "without --mpi the same pipeline is not clean"
# A binary built without --mpi refuses a multi-rank launch, on every rank, reading nothing.
cd "$work/wordcount"
set +e
out=$(timeout 120 "${mpirun[@]}" -np 2 ./wordcount 2>&1)
code=$?
set -e
[ $code != 0 ] || fail "a binary without --mpi ran under 2 ranks"
echo "$out" | grep -q "error: started by an MPI launcher with 2 ranks, but this binary was built without the MPI executor" ||
    fail "no clear message: $out"
[ ! -e out ] || fail "it wrote output"
echo "ok: mpi examples"
