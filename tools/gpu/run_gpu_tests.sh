#!/usr/bin/env bash
# Builds std.gpu and its tests on a machine with an NVIDIA GPU and runs them: the CPU twins, the
# GPU-vs-CPU comparisons (which must run there, not be skipped) and benchmark B6's device half.
#
#   tools/gpu/run_gpu_tests.sh [BUILD_DIR]    (default build/gpu; docs/stdlib.md "std.gpu")
#
# Builds tools/gpu/CMakeLists.txt (only std.gpu: CMake, a C++20 compiler, CUDA with cuDNN and
# Catch2 3). With ROP_GPU_PREBUILT=DIR it builds nothing and runs DIR/test_stdlib_gpu against
# DIR/librop_stdlib_gpu_cuda.so (both copied from a build of the same commit elsewhere).
# Exit status: 0 when every test passed and the GPU ones ran; 1 otherwise.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build/gpu}

if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
else
    echo "run_gpu_tests: no nvidia-smi on PATH (is there a GPU and a driver?)"
fi

if [ -n "${ROP_GPU_PREBUILT:-}" ]; then
    test_binary=$ROP_GPU_PREBUILT/test_stdlib_gpu
    export ROP_GPU_CUDA_LIBRARY=$ROP_GPU_PREBUILT/librop_stdlib_gpu_cuda.so
else
    export PATH=$PATH:/usr/local/cuda/bin
    generator=()
    command -v ninja >/dev/null && generator=(-G Ninja)
    cmake -S "$root/tools/gpu" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo
    cmake --build "$build" -j "$(nproc)"
    test_binary=$build/bin/test_stdlib_gpu
    export ROP_GPU_CUDA_LIBRARY=$build/lib/librop_stdlib_gpu_cuda.so
fi

status=0
echo "== std.gpu tests: $test_binary"
"$test_binary" || status=1
echo "== the GPU cases alone (they must run here, not be skipped)"
gpu_log=$("$test_binary" "GPU:*" 2>&1) || status=1
echo "$gpu_log" | grep -E "max \|GPU - CPU\||std\.gpu:|test cases|SKIPPED" || true
if echo "$gpu_log" | grep -q "skipped"; then
    echo "run_gpu_tests: the GPU cases were skipped: no CUDA device was used"
    status=1
fi
echo "== benchmark B6, device half"
bench_log=$("$test_binary" "[.bench]" 2>&1) || status=1
echo "$bench_log" | grep -E "B6 gpu|FAILED|SKIPPED" || status=1
echo "$bench_log" | grep -q "skipped" && status=1
echo "run_gpu_tests: $([ $status -eq 0 ] && echo ok || echo FAILED)"
exit $status
