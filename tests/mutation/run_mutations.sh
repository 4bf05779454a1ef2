#!/usr/bin/env bash
# The mutation suite (docs/runtime.md, "Every rule has a guard"). Each patch in mutations/ breaks
# one rule of SEMANTICS.md in the runtime. For each, in turn, on a scratch copy of the tree: apply
# it, rebuild the runtime tests incrementally, run the tests its `killed-by:` lines name, revert.
# A mutation those tests do not fail SURVIVES; a patch that no longer applies or builds is an
# error. Exits 0 only when every mutation is killed.
#
# Usage: tests/mutation/run_mutations.sh [--all] [NAME_SUBSTRING...]
#   --all   also run the whole runtime and conformance suites (ctest) on each mutation and list
#           every test that kills it, leaving out those that fail unmutated too (the MPI and GPU
#           tests, whose binaries the scratch build leaves out); slower, and the table in
#           docs/runtime.md comes from this mode
#   ROP_MUTATION_DIR   scratch copy and build (default: build/mutation)
#   ROP_JOBS           build parallelism (default: nproc)
#   ROP_MUTATION_PATCHES  where the patches are (default: tests/mutation/mutations; another
#                      folder tries a candidate before it joins the suite)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${ROP_MUTATION_DIR:-$root/build/mutation}
jobs=${ROP_JOBS:-$(nproc)}
patch_dir=${ROP_MUTATION_PATCHES:-$root/tests/mutation/mutations}
all=0
filters=()
for arg in "$@"; do
    case "$arg" in
    --all) all=1 ;;
    -h | --help)
        sed -n '2,18p' "$0"
        exit 0
        ;;
    *) filters+=("$arg") ;;
    esac
done

src=$work/src
bld=$work/build
rm -rf "$src"
mkdir -p "$src" "$bld"
# The scratch copy keeps the sources' mtimes, so the build stays incremental between runs (and a
# fresh copy drops files deleted from the tree since the last run).
tar -C "$root" --exclude=./build --exclude=./.git --exclude=./bench/.venv -cf - . | tar -C "$src" -xf -
patches=()
for p in "$patch_dir"/*.patch; do
    name=$(basename "$p" .patch)
    if [ ${#filters[@]} -gt 0 ]; then
        keep=0
        for f in "${filters[@]}"; do [[ "$name" == *"$f"* ]] && keep=1; done
        [ $keep = 1 ] || continue
    fi
    patches+=("$p")
done
# Files a mutation touches are rebuilt once up front: the last mutation of a run (or one it was
# interrupted in) leaves objects compiled from a mutated copy that is older than the restored
# file, and a fresh copy keeps the older mtime. dirty.list names every file the earlier runs
# patched, whatever their patches; this run's patches count too.
touched() { grep -E '^\+\+\+ b/' "$1" | sed -E 's|^\+\+\+ b/||; s|\t.*$||'; }
dirty=$work/dirty.list
touch "$dirty"
for p in "${patches[@]}"; do touched "$p" >>"$dirty"; done
while IFS= read -r f; do
    if [ -f "$src/$f" ]; then touch "$src/$f"; fi
done < <(sort -u "$dirty")

targets=(rop_runtime_tests rop_runtime_reference_tests rop_conformance_tests rop_kill_pipeline
    rop_process_tests rop_process_pipeline
    rop_kill_resume_test)
echo "== mutation suite: ${#patches[@]} mutations, scratch build in $bld =="
cmake -S "$src" -B "$bld" -G Ninja -DCMAKE_BUILD_TYPE=Release -DROP_WERROR=OFF \
    -DROP_BUILD_COMPILER=OFF -DROP_BUILD_STDLIB=OFF -DROP_BUILD_BENCH=OFF >"$work/configure.log"
cmake --build "$bld" -j "$jobs" --target "${targets[@]}" >"$work/build.log" 2>&1 ||
    {
        tail -30 "$work/build.log"
        echo "mutation suite: the unmutated tree does not build"
        exit 2
    }
: >"$dirty" # the objects are the unmutated tree's now

# Baseline: every killed-by command must match tests and pass on the unmutated tree, or a
# "kill" would mean nothing (Catch2 also exits non-zero when a filter matches no test). Each
# distinct command runs once, however many patches name it.
declare -A baseline_done=()
started=$SECONDS
for p in "${patches[@]}"; do
    while IFS= read -r spec; do
        [ -n "$spec" ] && [ -z "${baseline_done[$spec]:-}" ] || continue
        baseline_done[$spec]=1
        if ! (cd "$bld/bin" && timeout 300 bash -c "./$spec" >"$work/baseline.log" 2>&1); then
            tail -20 "$work/baseline.log"
            echo "mutation suite: '$spec' ($(basename "$p")) fails or matches no test on the unmutated tree"
            exit 2
        fi
    done < <(sed -n 's/^killed-by: //p' "$p")
done
echo "baseline: ${#baseline_done[@]} killed-by commands pass unmutated ($((SECONDS - started)) s)"

# --all: the tests that fail on the unmutated tree too are no kill.
whole_suite() {
    (ctest --test-dir "$bld" -R '^(runtime|conformance): ' -j "$jobs" --timeout 300 2>&1 || true) |
        tee -a "$1" | sed -n 's/^[[:space:]]*[0-9]* - \(.*\) (.*)$/\1/p' | sort
}
if [ $all = 1 ]; then
    whole_suite "$work/baseline_all.log" >"$work/baseline_all.txt"
    echo "baseline: $(wc -l <"$work/baseline_all.txt") tests fail unmutated (not counted as kills)"
fi

results=()
bad=0
for p in "${patches[@]}"; do
    name=$(basename "$p" .patch)
    log=$work/$name.log
    : >"$log"
    started=$SECONDS
    # Only the binaries its killed-by lines run are relinked (all of them for --all).
    need=("${targets[@]}")
    [ $all = 1 ] || mapfile -t need < <(sed -n 's/^killed-by: \([^ ]*\).*/\1/p' "$p" | sort -u)
    if ! patch -d "$src" -p1 -s --dry-run <"$p" >>"$log" 2>&1; then
        results+=("$name|ERROR: patch does not apply (update it to the current code)")
        bad=1
        continue
    fi
    # Reverting copies the touched files back (and touches them, so they are rebuilt) rather
    # than reverse-applying the patch, which cannot fail halfway.
    rm -rf "$work/pristine" && mkdir -p "$work/pristine"
    for f in $(touched "$p"); do
        mkdir -p "$work/pristine/$(dirname "$f")" && cp -p "$src/$f" "$work/pristine/$f"
    done
    touched "$p" >>"$dirty"
    patch -d "$src" -p1 -s --no-backup-if-mismatch <"$p"
    revert() {
        for f in $(touched "$p"); do cp "$work/pristine/$f" "$src/$f" && touch "$src/$f"; done
    }
    trap revert EXIT # an interrupted run leaves the scratch copy unmutated
    if ! cmake --build "$bld" -j "$jobs" --target "${need[@]}" >>"$log" 2>&1; then
        revert
        trap - EXIT
        results+=("$name|ERROR: does not build (see $log)")
        bad=1
        continue
    fi
    killers=()
    while IFS= read -r spec; do
        [ -n "$spec" ] || continue
        if ! (cd "$bld/bin" && timeout 300 bash -c "./$spec" >>"$log" 2>&1); then killers+=("$spec"); fi
    done < <(sed -n 's/^killed-by: //p' "$p")
    extra=""
    if [ $all = 1 ]; then
        failed=$(whole_suite "$log" | comm -23 - "$work/baseline_all.txt" | paste -sd ';' -)
        extra=" | whole suite: ${failed:-nothing failed}"
    fi
    revert
    trap - EXIT
    if [ ${#killers[@]} -gt 0 ]; then
        results+=("$name|killed by ${killers[*]}$extra ($((SECONDS - started)) s)")
    else
        results+=("$name|SURVIVED: no killed-by test failed$extra ($((SECONDS - started)) s)")
        bad=1
    fi
done

printf '%s\n' "${results[@]}" | tee "$work/results.txt" | while IFS='|' read -r name verdict; do
    printf '  %-32s %s\n' "$name" "$verdict"
done
killed=$(grep -c '|killed by' "$work/results.txt" || true)
echo "mutations: $killed passed, $((${#patches[@]} - killed)) failed"
exit $bad
