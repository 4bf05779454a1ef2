// std.gpu's CPU twins (twins.cpp) and the device path's entry points (device.cpp), behind the
// operators in ops.cpp; the unit tests call both paths directly to compare them.
#pragma once

#include <rop/stdlib/types.h>

#include <span>
#include <string>
#include <vector>

namespace rop::stdlib::gpu::detail {

// A validated resize_normalize request: one mean and stddev per output channel.
struct ResizeRequest {
    int height = 0;
    int width = 0;
    int channels = 0;
    std::vector<float> mean;
    std::vector<float> stddev;
};

// The Laplacian's sums over an image's interior pixels (count 0: smaller than 3 x 3).
struct LaplacianSums {
    double sum = 0;
    double sum_sq = 0;
    double count = 0;
};

// The CPU twins: NCHW floats for the images; the Laplacian sums of an image's luma.
std::vector<float> resize_normalize_cpu(std::span<const Image> images, const ResizeRequest& r);
LaplacianSums laplacian_sums_cpu(const Image& image);

// The device choice, made on first use under a lock: true when the CUDA library loaded and
// cudaGetDeviceCount found a device (and ROP_GPU is not "cpu"). The first decision writes one
// line to stderr saying which path runs and why; later calls write nothing.
bool use_cuda();

// The line that decision wrote ("std.gpu: ..."); empty before the first use.
std::string device_notice();

// Forgets the decision, so that the next use decides (and logs) again: for tests only.
void reset_device_for_testing();

// The device path (use_cuda() must be true): throws rop::RecordFailure with CUDA's reason.
std::vector<float> resize_normalize_cuda(std::span<const Image> images, const ResizeRequest& r);
LaplacianSums laplacian_sums_cuda(const Image& image);

// The resize kernel's mean time over `repeats` launches on the batch already on the device, the
// bytes it moves and the device's peak memory bandwidth (benchmark B6; use_cuda() must be true).
struct KernelTiming {
    double seconds = 0;
    double bytes = 0;
    double peak_bytes_per_second = 0;
};
KernelTiming time_resize_cuda(std::span<const Image> images, const ResizeRequest& r, int repeats);

// The calling thread's current CUDA device as the CUDA library sees it (-1: none or no library).
int current_cuda_device();

}  // namespace rop::stdlib::gpu::detail
