// rop/stdlib/gpu.h: image preprocessing on the GPU with CPU twins — batched bilinear resize and
// per-channel normalize into one NCHW float tensor (a CUDA kernel), and the sharpness score
// (variance of the Laplacian, a cuDNN convolution) that drops blurry frames.
// rop-link: rop_stdlib_gpu dl
//
// Device choice: the first call looks for a device once per process. The CUDA path lives in
// librop_stdlib_gpu_cuda.so (built when nvcc was found), loaded with dlopen, so a pipeline binary
// links no CUDA library and runs where there is none. No library, cudaGetDeviceCount failing
// (error 35 cudaErrorInsufficientDriver, 100 cudaErrorNoDevice, or any other) or finding no
// device, or ROP_GPU=cpu in the environment: every operator runs its CPU twin, and one line on
// stderr says so and why. On the device path each call runs on the calling thread's current CUDA
// device (cudaGetDevice; the runtime sets it per actor with cudaSetDevice) and returns when its
// results are on the host.
//
// Twins and tolerance: both paths evaluate the same inline arithmetic (src/gpu/arithmetic.h,
// float, no fused multiply-add on either side). resize_normalize: max |GPU - CPU| <= 1e-5 per
// element (in practice 0). laplacian_variance: exact (the Laplacian of 8-bit luma is an integer,
// its sums are exact in double), so the GPU score equals the CPU one and std.video.sharpness.
#pragma once

#include <rop/stdlib/types.h>
#include <rop/udf.h>

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace rop::stdlib::video {
struct Frame;  // rop/stdlib/video.h (a pipeline that has Frames includes it)
}

namespace rop::stdlib::gpu {

// A dense float tensor in NCHW order: n images of `channels` planes of height x width floats.
struct Tensor {
    int n = 0;
    int channels = 0;
    int height = 0;
    int width = 0;
    std::shared_ptr<const std::vector<float>> data;  // n * channels * height * width values

    std::size_t size() const { return static_cast<std::size_t>(n) * channels * height * width; }
    float at(int image, int channel, int y, int x) const {
        return (
            *data)[((static_cast<std::size_t>(image) * channels + channel) * height + y) * width +
                   x];
    }
};

// "cuda" when the operators run on a device, else "cpu" (decided, and logged, on first use).
std::string backend();

// Resize each image (8-bit gray or RGB, any size) to height x width, bilinearly with half-pixel
// centres (OpenCV INTER_LINEAR, PyTorch align_corners=false; edges clamped), and normalize each
// output channel c to (x / 255 - mean[c]) / stddev[c], all into one n x channels x height x width
// tensor. channels 3: a gray image is repeated in all three; channels 1: an RGB image is taken as
// its BT.601 luma (std.video's, rounded to 8 bits) before resizing. mean and stddev have one value
// per output channel (or one for all). Throws rop::RecordFailure for an empty image, a size or
// channel count it cannot do, or a zero stddev.
Tensor resize_normalize(std::span<const Image> images, int height, int width,
                        std::vector<double> mean = {0.485, 0.456, 0.406},
                        std::vector<double> stddev = {0.229, 0.224, 0.225}, int channels = 3);

// The variance of the 3x3 Laplacian (0 1 0 / 1 -4 1 / 0 1 0) of the image's luma over its
// interior pixels: std.video.sharpness's score. 0 for images under 3 x 3.
double laplacian_variance(const Image& image);

// batch map Frame -> Tensor: each frame as a 1 x channels x height x width tensor, the batch
// resized and normalized in one pass (resize_normalize).
std::vector<Tensor> frame_tensors(std::span<const video::Frame> frames, int height = 224,
                                  int width = 224, std::vector<double> mean = {0.485, 0.456, 0.406},
                                  std::vector<double> stddev = {0.229, 0.224, 0.225},
                                  int channels = 3);

// batch map Page -> Tensor: each page image so (a page without an image fails alone).
std::vector<rop::ItemResult<Tensor>> page_tensors(
    std::span<const Page> pages, int height = 224, int width = 224,
    std::vector<double> mean = {0.485, 0.456, 0.406},
    std::vector<double> stddev = {0.229, 0.224, 0.225}, int channels = 3);

// Drop-ins for std.video.sharpness, with_sharpness and sharp (the same scores, within the
// tolerance above, on the device when there is one).
double sharpness(const video::Frame& frame);
video::Frame with_sharpness(const video::Frame& frame);
bool sharp(const video::Frame& frame, double min = 100);

}  // namespace rop::stdlib::gpu
