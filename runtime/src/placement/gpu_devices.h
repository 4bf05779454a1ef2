// Counting a node's GPUs and pinning an actor's thread to its devices, through the NVIDIA
// driver's own library (libcuda.so.1, loaded when first needed), so that the runtime links no
// CUDA and a node without a driver simply has no GPUs.
#pragma once

#include <string>
#include <vector>

namespace rop::runtime::detail {

struct GpuCount {
    int devices = 0;
    std::string how;  // "ROP_SIMULATE_GPUS=2", "NVIDIA driver", "no NVIDIA driver (...)"
};

// ROP_SIMULATE_GPUS when set (a bad value is an error: std::invalid_argument), else the
// driver's device count (its 'no device' and 'insufficient driver' answers mean 0).
GpuCount count_gpus();

// The calling thread's devices (assigned_gpus()); with a real driver, the first device's primary
// context becomes current. Throws std::runtime_error when the driver refuses.
void pin_thread(const std::vector<int>& devices);

// CUDA_VISIBLE_DEVICES for a worker process started from a pinned thread: "2,3"; empty when
// the thread has no devices.
std::string visible_devices_of_thread();

}  // namespace rop::runtime::detail
