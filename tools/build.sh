#!/usr/bin/env bash
# Configures and builds rop with one of the CMakePresets.json presets (default: release).
# Usage: tools/build.sh [preset]
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
jobs=${ROP_JOBS:-$(nproc)}
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$jobs"
