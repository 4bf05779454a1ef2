#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds with warnings as errors and runs every
# ctest; then rebuilds the runtime under ThreadSanitizer and AddressSanitizer+UBSan and runs its
# tests there, the ctests labelled sanitizer (the runtime is the concurrent part; the parser is
# covered by the fuzz target); last, the mutation suite: every rule of SEMANTICS.md broken in turn
# must fail a test. A quicker loop while working: ctest --preset fast (docs/testing.md).
# Usage: tools/test.sh [ctest args...]      e.g. tools/test.sh -R sema
#        ROP_SANITIZERS=0 tools/test.sh    skips the sanitizer builds
#        ROP_MUTATION=0 tools/test.sh      skips the mutation suite (tests/mutation/run_mutations.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
# Each stage's time, so that a slow CI says where the time went.
stage_start=$SECONDS
took() {
    echo "== tools/test.sh: $1 took $((SECONDS - stage_start)) s ($SECONDS s in all)"
    stage_start=$SECONDS
}
bash tools/setup.sh
took setup
bash tools/build.sh ci
took "the ci build"
ctest --preset ci -j "$(nproc)" "$@"
took ctest

if [ "${ROP_SANITIZERS:-1}" != 0 ] && [ $# -eq 0 ]; then
    for san in thread address,undefined; do
        dir=build/ci-${san%%,*}
        echo "== runtime tests under -fsanitize=$san ($dir) =="
        cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DROP_WERROR=ON \
            -DROP_SANITIZE="$san" -DROP_BUILD_COMPILER=OFF -DROP_BUILD_STDLIB=OFF -DROP_BUILD_BENCH=OFF >/dev/null
        cmake --build "$dir" -j "$(nproc)"
        ROP_RANDOM_SEEDS=${ROP_SANITIZER_SEEDS:-400} ctest --test-dir "$dir" -L sanitizer \
            -j "$(nproc)" --output-on-failure
        took "-fsanitize=$san (build and runtime tests)"
    done
fi

if [ "${ROP_MUTATION:-1}" != 0 ] && [ $# -eq 0 ]; then
    bash tests/mutation/run_mutations.sh
    took "the mutation suite"
fi
