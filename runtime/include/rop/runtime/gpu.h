// The GPUs the runtime placed the calling actor on (docs/cluster.md, "GPUs"): a Call with
// `gpus g` gets g devices of its node (whole) or a share of one. On an actor's thread the first
// of them is also the current CUDA device (the runtime makes its primary context current, which
// every CUDA runtime in the process follows); a process-isolated actor's worker sees only its
// devices (CUDA_VISIBLE_DEVICES), numbered from 0. Empty: no device (a CPU actor, or no GPU in
// the job). ROP_SIMULATE_GPUS=N makes the runtime believe each node has N devices without
// touching a driver (for tests of placement).
#pragma once

#include <vector>

namespace rop::runtime {

const std::vector<int>& assigned_gpus() noexcept;

}  // namespace rop::runtime
