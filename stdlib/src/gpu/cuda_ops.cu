// librop_stdlib_gpu_cuda.so: std.gpu's device path (the C interface in cuda_abi.h). The resize
// kernel and the Laplacian's reduction evaluate arithmetic.h, as the CPU twins do; the Laplacian
// itself is a cuDNN convolution (cudnnConvolutionForward, FMA math, implicit GEMM: exact on the
// integer-valued luma). Each thread keeps one stream, one cuDNN handle and its buffers per
// device, so a call uses the calling thread's current device and nothing is shared across threads.
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "arithmetic.h"
#include "cuda_abi.h"

namespace {

using rop::stdlib::gpu::detail::luma_of;
using rop::stdlib::gpu::detail::resized_normalized;
using rop::stdlib::gpu::detail::Tap;
using rop::stdlib::gpu::detail::tap;

struct Failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) {
        throw Failure(std::string(what) + ": " + cudaGetErrorName(status) + ": " +
                      cudaGetErrorString(status));
    }
}

void check(cudnnStatus_t status, const char* what) {
    if (status != CUDNN_STATUS_SUCCESS) {
        throw Failure(std::string(what) + ": " + cudnnGetErrorString(status));
    }
}

// A device buffer that only grows.
class Buffer {
  public:
    Buffer() = default;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer() { cudaFree(data_); }

    void* reserve(std::size_t bytes) {
        if (bytes > capacity_) {
            cudaFree(data_);
            data_ = nullptr;
            capacity_ = 0;
            check(cudaMalloc(&data_, bytes), "cudaMalloc");
            capacity_ = bytes;
        }
        return data_;
    }

  private:
    void* data_ = nullptr;
    std::size_t capacity_ = 0;
};

// One thread's resources on one device.
struct DeviceContext {
    cudaStream_t stream = nullptr;
    cudnnHandle_t cudnn = nullptr;
    Buffer pixels, params, output, luma, laplacian, workspace, filter, sums;

    explicit DeviceContext() {
        check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    }
    DeviceContext(const DeviceContext&) = delete;
    DeviceContext& operator=(const DeviceContext&) = delete;
    ~DeviceContext() {
        if (cudnn != nullptr) cudnnDestroy(cudnn);
        cudaStreamDestroy(stream);
    }

    cudnnHandle_t handle() {
        if (cudnn == nullptr) {
            check(cudnnCreate(&cudnn), "cudnnCreate");
            check(cudnnSetStream(cudnn, stream), "cudnnSetStream");
        }
        return cudnn;
    }
};

DeviceContext& context() {
    int device = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    thread_local std::map<int, std::unique_ptr<DeviceContext>> contexts;
    std::unique_ptr<DeviceContext>& slot = contexts[device];
    if (!slot) slot = std::make_unique<DeviceContext>();
    return *slot;
}

void report(const std::exception& e, char* error, std::size_t error_size) {
    if (error != nullptr && error_size > 0) std::snprintf(error, error_size, "%s", e.what());
}

struct ImageParams {
    std::size_t offset;  // into the packed pixels
    int width;
    int height;
    int channels;
};

struct ResizeParams {
    int count;
    int height;
    int width;
    int channels;
    float mean[3];
    float stddev[3];
};

__global__ void resize_normalize_kernel(const std::uint8_t* pixels, const ImageParams* images,
                                        ResizeParams p, float* out) {
    const int plane = p.height * p.width;
    const int pixel = blockIdx.x * blockDim.x + threadIdx.x;
    if (pixel >= plane) return;
    const int y = pixel / p.width;
    const int x = pixel % p.width;
    for (int n = blockIdx.y; n < p.count; n += gridDim.y) {
        const ImageParams image = images[n];
        const Tap ty = tap(y, image.height, p.height);
        const Tap tx = tap(x, image.width, p.width);
        for (int c = 0; c < p.channels; ++c) {
            out[(static_cast<std::size_t>(n) * p.channels + c) * plane + pixel] =
                resized_normalized(pixels + image.offset, image.width, image.channels, ty, tx,
                                   p.channels, c, p.mean[c], p.stddev[c]);
        }
    }
}

__global__ void luma_kernel(const std::uint8_t* pixels, int count, int channels, float* luma) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    const std::uint8_t* p = pixels + static_cast<std::size_t>(i) * channels;
    luma[i] = static_cast<float>(channels == 1 ? p[0] : luma_of(p[0], p[1], p[2]));
}

// Sum and sum of squares of the convolution's output, in double: integers, so exact in any order.
__global__ void sums_kernel(const float* values, std::size_t count, double* sums) {
    __shared__ double shared_sum[256];
    __shared__ double shared_sq[256];
    double sum = 0;
    double sq = 0;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        const double v = values[i];
        sum += v;
        sq += v * v;
    }
    shared_sum[threadIdx.x] = sum;
    shared_sq[threadIdx.x] = sq;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) {
            shared_sum[threadIdx.x] += shared_sum[threadIdx.x + stride];
            shared_sq[threadIdx.x] += shared_sq[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        atomicAdd(&sums[0], shared_sum[0]);
        atomicAdd(&sums[1], shared_sq[0]);
    }
}

constexpr int kThreads = 256;

// A resize_normalize call on the device: the images uploaded, the kernel launchable, the output
// in ctx.output.
struct ResizeLaunch {
    const std::uint8_t* pixels = nullptr;
    const ImageParams* images = nullptr;
    ResizeParams params{};
    float* out = nullptr;
    std::size_t values = 0;
    std::size_t input_bytes = 0;
    dim3 grid;

    void launch(cudaStream_t stream) const {
        resize_normalize_kernel<<<grid, kThreads, 0, stream>>>(pixels, images, params, out);
        check(cudaGetLastError(), "resize_normalize kernel");
    }
};

ResizeLaunch prepare_resize(DeviceContext& ctx, const RopGpuImage* images, int count, int height,
                            int width, int channels, const float* mean, const float* stddev) {
    ResizeLaunch r;
    std::vector<ImageParams> params(count);
    std::size_t total = 0;
    for (int i = 0; i < count; ++i) {
        params[i] = ImageParams{total, images[i].width, images[i].height, images[i].channels};
        total += static_cast<std::size_t>(images[i].width) * images[i].height * images[i].channels;
    }
    auto* pixels = static_cast<std::uint8_t*>(ctx.pixels.reserve(total));
    for (int i = 0; i < count; ++i) {
        const std::size_t bytes =
            static_cast<std::size_t>(images[i].width) * images[i].height * images[i].channels;
        check(cudaMemcpyAsync(pixels + params[i].offset, images[i].pixels, bytes,
                              cudaMemcpyHostToDevice, ctx.stream),
              "cudaMemcpyAsync");
    }
    auto* device_params =
        static_cast<ImageParams*>(ctx.params.reserve(sizeof(ImageParams) * count));
    check(cudaMemcpyAsync(device_params, params.data(), sizeof(ImageParams) * count,
                          cudaMemcpyHostToDevice, ctx.stream),
          "cudaMemcpyAsync");
    r.values = static_cast<std::size_t>(count) * channels * height * width;
    r.out = static_cast<float*>(ctx.output.reserve(r.values * sizeof(float)));
    r.pixels = pixels;
    r.images = device_params;
    r.input_bytes = total;
    r.params = ResizeParams{count, height, width, channels, {}, {}};
    for (int c = 0; c < channels; ++c) {
        r.params.mean[c] = mean[c];
        r.params.stddev[c] = stddev[c];
    }
    const int plane = height * width;
    r.grid = dim3((plane + kThreads - 1) / kThreads, count < 65535 ? count : 65535);
    return r;
}

void resize_normalize(const RopGpuImage* images, int count, int height, int width, int channels,
                      const float* mean, const float* stddev, float* out) {
    if (count == 0) return;
    DeviceContext& ctx = context();
    const ResizeLaunch r =
        prepare_resize(ctx, images, count, height, width, channels, mean, stddev);
    r.launch(ctx.stream);
    check(cudaMemcpyAsync(out, r.out, r.values * sizeof(float), cudaMemcpyDeviceToHost, ctx.stream),
          "cudaMemcpyAsync");
    check(cudaStreamSynchronize(ctx.stream), "cudaStreamSynchronize");
}

// The kernel alone, `repeats` times on uploaded images: its mean time, the bytes it moves (every
// input byte read once, every output float written) and the device's peak memory bandwidth.
void time_resize(const RopGpuImage* images, int count, int height, int width, int channels,
                 int repeats, double* seconds, double* bytes, double* peak_bytes_per_second) {
    DeviceContext& ctx = context();
    const float mean[3] = {0.485f, 0.456f, 0.406f};
    const float stddev[3] = {0.229f, 0.224f, 0.225f};
    const ResizeLaunch r =
        prepare_resize(ctx, images, count, height, width, channels, mean, stddev);
    r.launch(ctx.stream);  // warm-up
    cudaEvent_t start = nullptr;
    cudaEvent_t stop = nullptr;
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
    check(cudaEventRecord(start, ctx.stream), "cudaEventRecord");
    for (int i = 0; i < repeats; ++i) r.launch(ctx.stream);
    check(cudaEventRecord(stop, ctx.stream), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float milliseconds = 0;
    check(cudaEventElapsedTime(&milliseconds, start, stop), "cudaEventElapsedTime");
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    *seconds = milliseconds / 1000.0 / repeats;
    *bytes = static_cast<double>(r.input_bytes) + static_cast<double>(r.values) * sizeof(float);
    int device = 0;
    int clock_khz = 0;
    int bus_bits = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device),
          "cudaDeviceGetAttribute");
    check(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device),
          "cudaDeviceGetAttribute");
    *peak_bytes_per_second = 2.0 * clock_khz * 1000.0 * bus_bits / 8.0;  // double data rate
}

// cuDNN descriptors, destroyed with the call.
struct Descriptors {
    cudnnTensorDescriptor_t input = nullptr;
    cudnnTensorDescriptor_t output = nullptr;
    cudnnFilterDescriptor_t filter = nullptr;
    cudnnConvolutionDescriptor_t convolution = nullptr;

    Descriptors() {
        check(cudnnCreateTensorDescriptor(&input), "cudnnCreateTensorDescriptor");
        check(cudnnCreateTensorDescriptor(&output), "cudnnCreateTensorDescriptor");
        check(cudnnCreateFilterDescriptor(&filter), "cudnnCreateFilterDescriptor");
        check(cudnnCreateConvolutionDescriptor(&convolution), "cudnnCreateConvolutionDescriptor");
    }
    Descriptors(const Descriptors&) = delete;
    Descriptors& operator=(const Descriptors&) = delete;
    ~Descriptors() {
        cudnnDestroyConvolutionDescriptor(convolution);
        cudnnDestroyFilterDescriptor(filter);
        cudnnDestroyTensorDescriptor(output);
        cudnnDestroyTensorDescriptor(input);
    }
};

void laplacian_sums(const RopGpuImage& image, double* sum, double* sum_sq) {
    DeviceContext& ctx = context();
    const int w = image.width;
    const int h = image.height;
    const std::size_t count = static_cast<std::size_t>(w) * h;
    auto* pixels = static_cast<std::uint8_t*>(ctx.pixels.reserve(count * image.channels));
    check(cudaMemcpyAsync(pixels, image.pixels, count * image.channels, cudaMemcpyHostToDevice,
                          ctx.stream),
          "cudaMemcpyAsync");
    auto* luma = static_cast<float*>(ctx.luma.reserve(count * sizeof(float)));
    luma_kernel<<<static_cast<unsigned>((count + kThreads - 1) / kThreads), kThreads, 0,
                  ctx.stream>>>(pixels, static_cast<int>(count), image.channels, luma);
    check(cudaGetLastError(), "luma kernel");

    static constexpr float kLaplacian[9] = {0, 1, 0, 1, -4, 1, 0, 1, 0};
    auto* filter = static_cast<float*>(ctx.filter.reserve(sizeof(kLaplacian)));
    check(
        cudaMemcpyAsync(filter, kLaplacian, sizeof(kLaplacian), cudaMemcpyHostToDevice, ctx.stream),
        "cudaMemcpyAsync");
    Descriptors d;
    check(cudnnSetTensor4dDescriptor(d.input, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, h, w),
          "cudnnSetTensor4dDescriptor");
    check(cudnnSetFilter4dDescriptor(d.filter, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 1, 1, 3, 3),
          "cudnnSetFilter4dDescriptor");
    check(cudnnSetConvolution2dDescriptor(d.convolution, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                          CUDNN_DATA_FLOAT),
          "cudnnSetConvolution2dDescriptor");
    // No tensor cores (TF32 would round): plain float multiply-adds of small integers are exact.
    check(cudnnSetConvolutionMathType(d.convolution, CUDNN_FMA_MATH),
          "cudnnSetConvolutionMathType");
    int n = 0, c = 0, out_h = 0, out_w = 0;
    check(cudnnGetConvolution2dForwardOutputDim(d.convolution, d.input, d.filter, &n, &c, &out_h,
                                                &out_w),
          "cudnnGetConvolution2dForwardOutputDim");
    check(cudnnSetTensor4dDescriptor(d.output, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, out_h,
                                     out_w),
          "cudnnSetTensor4dDescriptor");
    const std::size_t out_count = static_cast<std::size_t>(out_h) * out_w;
    auto* laplacian = static_cast<float*>(ctx.laplacian.reserve(out_count * sizeof(float)));
    cudnnHandle_t handle = ctx.handle();
    // Implicit GEMM first (no workspace, direct sums); the precomputed variant if it is refused.
    const cudnnConvolutionFwdAlgo_t algorithms[] = {
        CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM};
    cudnnStatus_t status = CUDNN_STATUS_NOT_SUPPORTED;
    for (const cudnnConvolutionFwdAlgo_t algorithm : algorithms) {
        std::size_t workspace_bytes = 0;
        status = cudnnGetConvolutionForwardWorkspaceSize(handle, d.input, d.filter, d.convolution,
                                                         d.output, algorithm, &workspace_bytes);
        if (status != CUDNN_STATUS_SUCCESS) continue;
        void* workspace = workspace_bytes > 0 ? ctx.workspace.reserve(workspace_bytes) : nullptr;
        const float alpha = 1.0f;
        const float beta = 0.0f;
        status = cudnnConvolutionForward(handle, &alpha, d.input, luma, d.filter, filter,
                                         d.convolution, algorithm, workspace, workspace_bytes,
                                         &beta, d.output, laplacian);
        if (status == CUDNN_STATUS_SUCCESS) break;
    }
    check(status, "cudnnConvolutionForward");

    auto* sums = static_cast<double*>(ctx.sums.reserve(2 * sizeof(double)));
    check(cudaMemsetAsync(sums, 0, 2 * sizeof(double), ctx.stream), "cudaMemsetAsync");
    const std::size_t blocks_needed = (out_count + kThreads - 1) / kThreads;
    const unsigned blocks = static_cast<unsigned>(blocks_needed < 1024 ? blocks_needed : 1024);
    sums_kernel<<<blocks, kThreads, 0, ctx.stream>>>(laplacian, out_count, sums);
    check(cudaGetLastError(), "sums kernel");
    double host[2] = {0, 0};
    check(cudaMemcpyAsync(host, sums, sizeof(host), cudaMemcpyDeviceToHost, ctx.stream),
          "cudaMemcpyAsync");
    check(cudaStreamSynchronize(ctx.stream), "cudaStreamSynchronize");
    *sum = host[0];
    *sum_sq = host[1];
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int rop_gpu_cuda_device_count(int* count, char* error,
                                                                     std::size_t error_size) {
    *count = 0;
    const cudaError_t status = cudaGetDeviceCount(count);
    if (status != cudaSuccess) {
        std::snprintf(error, error_size, "%s: %s", cudaGetErrorName(status),
                      cudaGetErrorString(status));
        *count = 0;
    }
    return static_cast<int>(status);
}

__attribute__((visibility("default"))) int rop_gpu_cuda_resize_normalize(
    const RopGpuImage* images, int count, int height, int width, int channels, const float* mean,
    const float* stddev, float* out, char* error, std::size_t error_size) {
    try {
        resize_normalize(images, count, height, width, channels, mean, stddev, out);
        return 0;
    } catch (const std::exception& e) {
        report(e, error, error_size);
        return 1;
    }
}

__attribute__((visibility("default"))) int rop_gpu_cuda_laplacian_sums(const RopGpuImage* image,
                                                                       double* sum, double* sum_sq,
                                                                       char* error,
                                                                       std::size_t error_size) {
    try {
        laplacian_sums(*image, sum, sum_sq);
        return 0;
    } catch (const std::exception& e) {
        report(e, error, error_size);
        return 1;
    }
}

__attribute__((visibility("default"))) int rop_gpu_cuda_time_resize(
    const RopGpuImage* images, int count, int height, int width, int channels, int repeats,
    double* seconds, double* bytes, double* peak_bytes_per_second, char* error,
    std::size_t error_size) {
    try {
        time_resize(images, count, height, width, channels, repeats, seconds, bytes,
                    peak_bytes_per_second);
        return 0;
    } catch (const std::exception& e) {
        report(e, error, error_size);
        return 1;
    }
}

__attribute__((visibility("default"))) int rop_gpu_cuda_current_device() {
    int device = -1;
    return cudaGetDevice(&device) == cudaSuccess ? device : -1;
}
}
