#!/usr/bin/env bash
# B8: re-runs with the result store (issue 29; docs/benchmarks.md, "B8"). Two pipelines, each
# measured side by side, back to back with its first run:
#   b4     examples/mineru/mineru.rop with `text: ocr` (as B4) and its `md` Call replaced by
#          bench/b8_reruns/udfs/b8.hpp's b8.markdown (std.assemble.markdown + a footer), on B4's
#          corpus (4 PDFs, 58 pages). Per round (REPEAT): a cold run without the store (T), a
#          cold run with a fresh store, an unchanged re-run on that store, then on that store:
#          the footer edited and the pipeline rebuilt with ropc (built once, beforehand; a changed
#          assembly UDF), a run of one new PDF alone without the store (its own work), and a
#          run of the corpus plus that PDF on the store (new documents). Odd rounds start with
#          the run without the store, even rounds end with it.
#   study  bench/study/rop/study.rop (B2's compiled pipeline: sleeping UDFs, 3689 documents,
#          174744 pages at --compress 1000) with `cache on` on its Calls (ropc's W0500 flags them
#          for their timing logs); per round: cold without the store, cold with a fresh store, an
#          unchanged re-run.
# Every run records the load average before it, its wall time and its CPU time; the outputs of the
# store's runs are compared with a clean run's. bench/b8_reruns/report.py writes
# bench/results/b8/b8.json and prints the tables. Knobs (environment): ROPC (build/ci/bin/ropc),
# BENCH_STUDY (build/ci/bin/bench_study), WORK (/tmp/rop-b8: outputs and stores, never
# committed), OUT (bench/results/b8), REPEAT (3), PARTS ("b4 study"), NEW_PDF
# (/usr/share/doc/glpk-doc/cnfsat.pdf).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
ROPC=${ROPC:-$ROOT/build/ci/bin/ropc}
BENCH_STUDY=${BENCH_STUDY:-$ROOT/build/ci/bin/bench_study}
WORK=${WORK:-/tmp/rop-b8}
OUT=${OUT:-$ROOT/bench/results/b8}
REPEAT=${REPEAT:-3}
PARTS=${PARTS:-b4 study}
NEW_PDF=${NEW_PDF:-/usr/share/doc/glpk-doc/cnfsat.pdf}
[ -x "$ROPC" ] || {
    echo "b8: no ropc at $ROPC" >&2
    exit 2
}
rm -rf "$WORK"
mkdir -p "$WORK" "$OUT"
export OMP_THREAD_LIMIT=1
RUNS=$WORK/runs.jsonl
: >"$RUNS"

# timed PART LABEL CMD...: one run; its load before, wall time and CPU time (user + sys of it and
# its children, /usr/bin/time) go to runs.jsonl, its stdout and stderr to WORK/PART/LABEL.log
timed() {
    local part=$1 label=$2 load start ms cpu
    shift 2
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    start=$(date +%s%N)
    /usr/bin/time -f '%U %S' -o "$WORK/$part/$label.cpu" "$@" >"$WORK/$part/$label.log" 2>&1 || {
        echo "b8: $label failed (see $WORK/$part/$label.log)" >&2
        exit 1
    }
    ms=$((($(date +%s%N) - start) / 1000000))
    cpu=$(awk '{ printf "%.2f", $1 + $2 }' "$WORK/$part/$label.cpu")
    printf '{"part": "%s", "label": "%s", "load": "%s", "wall_ms": %d, "cpu_s": %s}\n' \
        "$part" "$label" "$load" "$ms" "$cpu" >>"$RUNS"
    printf '  %-18s %8.2f s wall %8.2f CPU-s   load before %s\n' "$label" \
        "$(echo "$ms / 1000" | bc -l)" "$cpu" "$load"
}

# same_tree A B: A's and B's outputs are equal (journals left out; the folder sinks' .rop-names,
# in completion order, compared sorted)
same_tree() {
    diff -r -x '*.journal' -x .rop-names "$1" "$2"
    for names in "$1"/*/.rop-names; do
        local other=$2/${names#"$1"/}
        cmp <(sort "$names") <(sort "$other") || {
            echo "b8: $names and $other differ" >&2
            return 1
        }
    done
}

part_b4() {
    local W=$WORK/b4
    mkdir -p "$W/udfs"
    local corpus=$W/corpus.jsonl
    : >"$corpus"
    for f in "$ROOT"/examples/mineru/in/*.pdf /usr/share/doc/libtasn1-doc/libtasn1.pdf \
        /usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf; do
        [ -r "$f" ] || {
            echo "b8: cannot read $f (tools/setup.sh installs libtasn1-doc)" >&2
            exit 2
        }
        printf '{"path": "%s"}\n' "$f" >>"$corpus"
    done
    [ -r "$NEW_PDF" ] || {
        echo "b8: cannot read $NEW_PDF (apt-get install glpk-doc)" >&2
        exit 2
    }
    printf '{"path": "%s"}\n' "$NEW_PDF" >"$W/new.jsonl"
    cat "$corpus" "$W/new.jsonl" >"$W/plus.jsonl"

    echo "== b4: ropc build (mineru.rop, text: ocr, md = b8.markdown, footer v1)"
    cp bench/b8_reruns/udfs/b8.hpp "$W/udfs/b8.hpp"
    sed -e 's/text: detect/text: ocr/' \
        -e 's/^\(md *= reduce content to Doc with\) std.assemble.markdown;/\1 b8.markdown;/' \
        -e 's/^pipeline mineru;/pipeline mineru;\nuse "udfs\/b8.hpp";/' \
        examples/mineru/mineru.rop >"$W/b8.rop"
    grep -q 'with b8.markdown;' "$W/b8.rop" && grep -q 'text: ocr' "$W/b8.rop" || {
        echo "b8: mineru.rop's md Call or text: detect not found" >&2
        exit 2
    }
    "$ROPC" build "$W/b8.rop" -o "$W/b8_v1" >"$W/build_v1.log" 2>&1

    run() { # run LABEL BIN MANIFEST EXTRA...
        local label=$1 bin=$2 input=$3
        shift 3
        timed b4 "$label" "$bin" --input "files=$input" --output "md=$W/$label-out/md" \
            --output "list=$W/$label-out/list" --report "$W/$label.json" --no-progress "$@"
    }
    # stored STORE: the store's size (apparent and on disk) and entries, after its cold run
    stored() {
        du -sb "$1" | cut -f1 >"$1.bytes"
        du -s -B1 "$1" | cut -f1 >"$1.disk"
        "$W/b8_v1" --cache "$1" --cache-info | awk '$1 == "entries" { print $2 + 0 }' >"$1.entries"
    }
    # the changed assembly UDF: the footer edited in a copy of the header, built again by ropc
    # (once, before the first round: the build is not timed)
    mkdir -p "$W/v2/udfs"
    cp "$W/b8.rop" "$W/v2/b8.rop"
    sed 's/b8 footer: v1/b8 footer: v2/' "$W/udfs/b8.hpp" >"$W/v2/udfs/b8.hpp"
    grep -q 'b8 footer: v2' "$W/v2/udfs/b8.hpp"
    "$ROPC" build "$W/v2/b8.rop" -o "$W/b8_v2" >"$W/build_v2.log" 2>&1
    # a round: on a fresh store, its cold run, the unchanged re-run, the changed md, then the new
    # PDF alone (no store) and the corpus plus the new PDF on the store; odd rounds start with
    # the cold run without the store, even rounds end with it (a drifting load evens out)
    store_runs() {
        local r=$1 S=$W/store-$1
        run "store-cold-$r" "$W/b8_v1" "$corpus" --cache "$S"
        stored "$S"
        run "rerun-$r" "$W/b8_v1" "$corpus" --cache "$S" --explain-cache
        run "changed-md-$r" "$W/b8_v2" "$corpus" --cache "$S" --explain-cache
        run "new-alone-$r" "$W/b8_v2" "$W/new.jsonl"
        run "new-docs-$r" "$W/b8_v2" "$W/plus.jsonl" --cache "$S" --explain-cache
    }
    for r in $(seq 1 "$REPEAT"); do
        echo "== b4 round $r"
        if [ $((r % 2)) = 1 ]; then
            run "cold-$r" "$W/b8_v1" "$corpus"
            store_runs "$r"
        else
            store_runs "$r"
            run "cold-$r" "$W/b8_v1" "$corpus"
        fi
    done

    echo "== b4: outputs against the clean run (cold-1)"
    rm -rf "$W/expect-v2"
    cp -r "$W/cold-1-out" "$W/expect-v2"
    sed -i 's/b8 footer: v1/b8 footer: v2/' "$W"/expect-v2/md/*.md
    for r in $(seq 1 "$REPEAT"); do
        same_tree "$W/cold-1-out" "$W/cold-$r-out"
        same_tree "$W/cold-1-out" "$W/store-cold-$r-out"
        same_tree "$W/cold-1-out" "$W/rerun-$r-out"
        # changed md: the clean run's outputs with the footer's new text
        same_tree "$W/expect-v2" "$W/changed-md-$r-out"
        # new documents: changed md's outputs plus the new document's alone (its .rop-names row
        # has its ordinal in the corpus: the names are compared without the ordinals)
        rm -rf "$W/expect-new"
        cp -r "$W/changed-md-$r-out" "$W/expect-new"
        for s in md list; do
            cp "$W/new-alone-$r-out/$s"/* "$W/expect-new/$s/"
            cat "$W/new-alone-$r-out/$s/.rop-names" >>"$W/expect-new/$s/.rop-names"
            cmp <(cut -f2 "$W/expect-new/$s/.rop-names" | sort) \
                <(cut -f2 "$W/new-docs-$r-out/$s/.rop-names" | sort)
            cp "$W/new-docs-$r-out/$s/.rop-names" "$W/expect-new/$s/.rop-names"
        done
        same_tree "$W/expect-new" "$W/new-docs-$r-out"
    done
    echo "  every store run's outputs equal the clean run's"
    pdfinfo "$NEW_PDF" | awk '/^Pages:/ { print $2 }' >"$W/new.pages"
}

part_study() {
    local W=$WORK/study
    mkdir -p "$W"
    [ -x "$BENCH_STUDY" ] || {
        echo "b8: no bench_study at $BENCH_STUDY (build it in that tree)" >&2
        exit 2
    }
    echo "== study: ropc build (study.rop with cache on)"
    cp bench/study/rop/study_udfs.hpp "$W/"
    sed -E 's/^((pages|texts|documents) .*);$/\1 cache on;/' bench/study/rop/study.rop \
        >"$W/study_b8.rop"
    [ "$(grep -c ' cache on;$' "$W/study_b8.rop")" = 3 ] || {
        echo "b8: study.rop's Calls not found" >&2
        exit 2
    }
    "$ROPC" build "$W/study_b8.rop" -o "$W/study_b8" >"$W/build.log" 2>&1
    "$BENCH_STUDY" corpus --scale 1 --compress 1000 >"$W/corpus.json"
    # as bench/study/peers.py --system rop-pipeline --actors 64 runs it
    export STUDY_COST="1000 0.5 0.25 7.55 1.416 1 0.02 0.5 0 0 4000"
    run() { # run LABEL EXTRA...
        local label=$1
        shift
        timed study "$label" "$W/study_b8" --input "$W/corpus.json" --output "$W/$label.roots" \
            --set pages.actors=64 --set texts.actors=64 --set texts.batch=48 \
            --set documents.actors=64 --max-inflight-roots 256 --no-progress \
            --report "$W/$label.json" "$@"
    }
    for r in $(seq 1 "$REPEAT"); do
        echo "== study round $r"
        [ $((r % 2)) = 1 ] && run "cold-$r"
        run "store-cold-$r" --cache "$W/store-$r"
        du -sb "$W/store-$r" | cut -f1 >"$W/store-$r.bytes"
        du -s -B1 "$W/store-$r" | cut -f1 >"$W/store-$r.disk"
        # entry files and packed records, as --cache-info counts them
        "$W/study_b8" --cache "$W/store-$r" --cache-info | awk '$1 == "entries" { print $2 + 0 }' \
            >"$W/store-$r.entries"
        run "rerun-$r" --cache "$W/store-$r" --explain-cache
        [ $((r % 2)) = 1 ] || run "cold-$r"
        # the roots as the clean run's: all ok (the Log sink writes nothing to compare)
        python3 -c 'import json, sys
for p in sys.argv[1:]:
    s = json.load(open(p))["summary"]
    assert s["ok"] == s["roots"] == 3689, (p, s)' "$W"/{cold,store-cold,rerun}-"$r".json
    done
}

for p in $PARTS; do
    "part_$p"
done
python3 bench/b8_reruns/report.py "$WORK" "$OUT" "$REPEAT" "$(git rev-parse --short HEAD)" $PARTS
