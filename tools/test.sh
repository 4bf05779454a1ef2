#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds with warnings as errors, runs ctest.
# Usage: tools/test.sh [ctest args...]    e.g. tools/test.sh -R sema
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
bash tools/build.sh ci
ctest --preset ci -j "$(nproc)" "$@"
