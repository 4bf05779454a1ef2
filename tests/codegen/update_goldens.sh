#!/usr/bin/env bash
# update_goldens.sh [BUILD_DIR]   (default: build/ci)
# Rewrites tests/codegen/goldens/*.cpp from the examples with BUILD_DIR's ropc (build it first),
# removes goldens whose example is gone, and shows what changed: review it, then commit it with
# the codegen change that caused it.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build/ci}
ROP_UPDATE_GOLDENS=1 bash "$root/tests/codegen/check_goldens.sh" "$build/bin/ropc" "$root" \
    "$build/tests/codegen/goldens_work"
git -C "$root" status --short -- tests/codegen/goldens
