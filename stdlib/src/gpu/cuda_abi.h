// The C interface of librop_stdlib_gpu_cuda.so, the CUDA half of std.gpu: rop_stdlib_gpu loads
// it with dlopen and finds these functions with dlsym (device.cpp), so nothing that links
// rop_stdlib_gpu links a CUDA library. Each returns 0 on success; otherwise it writes a
// NUL-terminated reason into `error` (at most `error_size` bytes) and returns non-zero.
// Every call runs on the calling thread's current device (cudaGetDevice) and is synchronous.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

struct RopGpuImage {
    const std::uint8_t* pixels;  // rows packed, width * channels bytes a row
    int width;
    int height;
    int channels;  // 1 or 3
};

// cudaGetDeviceCount: returns its cudaError_t (0: success) with `count`; on an error `error` is
// "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version".
using RopGpuDeviceCount = int (*)(int* count, char* error, std::size_t error_size);
inline constexpr const char* kRopGpuDeviceCount = "rop_gpu_cuda_device_count";

// resize_normalize (gpu.h) into `out` (count * channels * height * width floats, NCHW); mean
// and stddev have `channels` values.
using RopGpuResizeNormalize = int (*)(const RopGpuImage* images, int count, int height, int width,
                                      int channels, const float* mean, const float* stddev,
                                      float* out, char* error, std::size_t error_size);
inline constexpr const char* kRopGpuResizeNormalize = "rop_gpu_cuda_resize_normalize";

// The sum and the sum of squares of the Laplacian of the image's luma over its interior pixels
// (the image is at least 3 x 3), the Laplacian computed by cudnnConvolutionForward.
using RopGpuLaplacianSums = int (*)(const RopGpuImage* image, double* sum, double* sum_sq,
                                    char* error, std::size_t error_size);
inline constexpr const char* kRopGpuLaplacianSums = "rop_gpu_cuda_laplacian_sums";

// The resize kernel alone on `count` uploaded images, `repeats` times (benchmark B6): its mean
// time, the bytes it moves (input once, output floats) and the device's peak memory bandwidth
// (from cudaDevAttrMemoryClockRate and cudaDevAttrGlobalMemoryBusWidth).
using RopGpuTimeResize = int (*)(const RopGpuImage* images, int count, int height, int width,
                                 int channels, int repeats, double* seconds, double* bytes,
                                 double* peak_bytes_per_second, char* error,
                                 std::size_t error_size);
inline constexpr const char* kRopGpuTimeResize = "rop_gpu_cuda_time_resize";

// The calling thread's current device (cudaGetDevice), for tests: -1 on an error.
using RopGpuCurrentDevice = int (*)();
inline constexpr const char* kRopGpuCurrentDevice = "rop_gpu_cuda_current_device";
}
