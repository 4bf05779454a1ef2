#!/usr/bin/env bash
# mpi.sh ROPC SOURCE_DIR WORK_DIR CACHE_DIR [PDF_DATA_DIR] [video]: the example pipelines built
# with `ropc build --mpi` and run under mpirun write exactly what the same pipelines built without
# it write in one process (docs/cluster.md): the same exit code, the same output tree (a .jsonl
# compared as sorted lines, except records' ordered sink, byte for byte; every other file, the
# transcoded video clips too, byte for byte) and the same status and failure reason for every
# root (--report). wordcount, orders, sections, pages and records on 2, 3 and 4 ranks; mineru
# and docling (PDF_DATA_DIR: the generated test PDFs, tests/data) and video (with `video`: videos
# the ffmpeg command makes) on 3 ranks only. Also: records with the worker ranks in an empty
# directory; ropc build --help names --mpi; a type without a codec is an error at its Call; a
# binary without --mpi refuses mpirun.
set -euo pipefail
ropc=$1 src=$2 work=$3 cache=$4 pdfs=${5:-} video=${6:-}
export ROP_CACHE_DIR=$cache
export OMP_THREAD_LIMIT=1 # Tesseract's libgomp (docs/stdlib.md)
# odls_base_sigkill_timeout 0: after a rank's non-zero exit (3: a root failed) Open MPI's mpirun
# waits 1 to 2 s to kill the other ranks, which have exited already.
mpirun=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader --mca odls_base_sigkill_timeout 0)
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
"$ropc" build --help | grep -q -- "--mpi " || fail "ropc build --help does not name --mpi"
# roots FILE: every root's name, status and failure reason from a --report file, sorted.
roots() {
    python3 -c 'import json, sys
for r in sorted(json.load(open(sys.argv[1]))["roots"], key=lambda r: r["name"]):
    print(r["name"], r["status"], r.get("reason", ""), sep="\t")' "$1"
}
clips() { (cd "$1" && find . -name '*.mp4' | sort); }
# check NAME RANKS...: builds $work/NAME (prepared by the caller: NAME.rop and in/) with and
# without --mpi, runs the one-process binary once and the MPI one on each rank count, compares.
check() {
    local name=$1 np code want heap=()
    shift
    # video: the MPI ranks' malloc fills every block with another byte (glibc's MALLOC_PERTURB_),
    # so a clip whose bytes followed what the heap held (libx264's AVX-512 code did) differs.
    [ "$name" = video ] && heap=(-x MALLOC_PERTURB_=165)
    cd "$work/$name"
    rm -rf out
    "$ropc" build "$name.rop" -o "./$name" -O1
    "$ropc" build "$name.rop" -o "./$name.mpi" -O1 --mpi
    set +e
    "./$name" --journal threads.journal --report threads.json >/dev/null 2>threads.err
    want=$?
    set -e
    mv out threads_out
    for np in "$@"; do
        set +e
        timeout 300 "${mpirun[@]}" "${heap[@]}" -np $np "./$name.mpi" --journal mpi$np.journal \
            --report mpi$np.json >/dev/null 2>mpi$np.err
        code=$?
        set -e
        [ $code = "$want" ] || fail "$name, $np ranks: exit $code, want $want: $(cat mpi$np.err)"
        grep -q "mpi: $np ranks" mpi$np.err || fail "$name, $np ranks: not an MPI run"
        # .jsonl lines come in the order roots finish (docs/stdlib.md): compared sorted. Like the
        # dir sinks' .rop-names, an ordered sink's .pending (the roots that finished before an
        # earlier one, for --resume) depends on the schedule.
        # Transcoded clips too, byte for byte: std.video.transcode codes a clip to the same bytes
        # in every process (docs/stdlib.md).
        diff -r -x .rop-names -x '*.pending' -x '*.jsonl' threads_out out ||
            fail "$name, $np ranks: outputs differ"
        [ "$(clips threads_out)" = "$(clips out)" ] || fail "$name, $np ranks: not the same clips"
        for f in threads_out/*.jsonl; do
            [ -e "$f" ] || continue
            diff <(sort "$f") <(sort "out/${f##*/}") || fail "$name, $np ranks: ${f##*/} differs"
        done
        diff <(roots threads.json) <(roots mpi$np.json) ||
            fail "$name, $np ranks: the roots' statuses or reasons differ"
        if [ "$name" = records ]; then # an ordered sink: source order, byte for byte
            cmp threads_out/invoices.jsonl out/invoices.jsonl ||
                fail "records, $np ranks: invoices.jsonl is not in source order"
        fi
        rm -rf out
        echo "$name, $np ranks: the same outputs ($(grep -o 'mpi: .*' mpi$np.err))"
    done
}
# copy NAME: $work/NAME holds a fresh copy of examples/NAME.
copy() {
    rm -rf "$work/$1" && mkdir -p "$work/$1" && cp -r "$src/examples/$1/." "$work/$1/"
}
for name in wordcount orders sections pages records; do
    copy $name
    check $name 2 3 4
done
# Only rank 0 reads a record source and writes the sinks: records with ranks 1 and 2 started in
# an empty directory writes the same invoices, and nothing lands there. (A std.io.Files source
# hands paths to Calls that open them on the actors' ranks: those need the files on every rank.)
cd "$work/records"
rm -rf out elsewhere && mkdir elsewhere
set +e
timeout 300 "${mpirun[@]}" -np 1 ./records.mpi : -np 2 -wdir "$PWD/elsewhere" "$PWD/records.mpi" \
    >/dev/null 2>elsewhere.err
code=$?
set -e
[ $code = 3 ] || fail "records, ranks 1-2 elsewhere: exit $code, want 3: $(cat elsewhere.err)"
cmp threads_out/invoices.jsonl out/invoices.jsonl || fail "records, ranks 1-2 elsewhere: invoices differ"
[ -z "$(ls -A elsewhere)" ] || fail "records, ranks 1-2 elsewhere: they wrote $(ls -A elsewhere)"
echo "records, ranks 1 and 2 in an empty directory: the same invoices"
# The heavy ones (poppler, Tesseract, FFmpeg; OCR costs about 1.3 CPU-s a page) run once, on 3
# ranks: with 2, rank 1 hosts every actor and no item moves between worker ranks; with 3, page
# images, regions and video frames made on one worker rank are fetched by the other (asserted).
fetched() { # NAME: the 3-rank run fetched items rank to rank
    grep -Eq "MiB of items in [1-9][0-9]* fetches rank to rank" "$work/$1/mpi3.err" ||
        fail "$1, 3 ranks: no item moved between worker ranks: $(grep -o 'mpi: .*' "$work/$1/mpi3.err")"
}
if [ -n "$pdfs" ]; then
    # The two documents, text/mixed.pdf (one scanned page: OCR'd) and the broken PDFs (failed
    # roots: exit 3, each with its reason), as tests/stdlib/run_doc_example.sh runs them.
    for name in mineru docling; do
        copy $name
        rm -rf "$work/$name/in" && mkdir "$work/$name/in"
        cp "$pdfs"/docs/*.pdf "$pdfs"/text/*.pdf "$pdfs"/corrupt/*.pdf "$work/$name/in/"
        check $name 3
        fetched $name
    done
fi
if [ -n "$video" ]; then
    # The videos tests/examples/video.sh runs on: good ones and broken ones (exit 3).
    copy video
    bash "$src/tests/data/make_test_videos.sh" "$work/video/videos" >/dev/null
    mkdir -p "$work/video/in"
    cp "$work"/video/videos/*.mp4 "$work"/video/videos/*.mkv "$work"/video/videos/broken/*.mp4 \
        "$work/video/in/"
    check video 3
    fetched video
fi
# --mpi: every Call's items cross between ranks, so a type without a codec is an error at its
# Call (E0512; the E0306 fixture without `isolation process`, as tests/diagnostics' E0512 golden).
rm -rf "$work/codec" && mkdir -p "$work/codec" && cd "$work/codec"
cp -r "$src/tests/diagnostics/udfs" .
sed 's/ isolation process//' "$src/tests/diagnostics/E0306_isolation_process.rop" >p.rop
set +e
out=$("$ropc" build p.rop -o p --mpi 2>&1)
code=$?
set -e
[ $code = 1 ] || fail "a type without a codec under --mpi: exit $code: $out"
want="p.rop:4:23: error: --mpi: item type 'isolation::Page' of call 'isolation.render' cannot cross between ranks: field 'cache' has type 'std::shared_ptr<isolation::Cache>', which has no codec; give it a rop::Codec specialization (docs/udfs.md) [E0512]"
grep -qxF "$want" <<<"$out" || fail "the codec error: $out"
[ ! -e p ] || fail "a binary was written"
"$ropc" check p.rop >/dev/null 2>&1 || fail "without --mpi the same pipeline is not clean"
# A binary built without --mpi refuses a multi-rank launch, on every rank, reading nothing.
cd "$work/wordcount"
set +e
out=$(timeout 120 "${mpirun[@]}" -np 2 ./wordcount 2>&1)
code=$?
set -e
[ $code != 0 ] || fail "a binary without --mpi ran under 2 ranks"
grep -q "error: started by an MPI launcher with 2 ranks, but this binary was built without the MPI executor" <<<"$out" ||
    fail "no clear message: $out"
[ ! -e out ] || fail "it wrote output"
echo "ok: mpi examples"
