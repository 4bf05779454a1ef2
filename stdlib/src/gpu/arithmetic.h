// The arithmetic std.gpu's CPU twins and CUDA kernels share, one inline definition for both
// (host and device under nvcc), so the twins compute the same floats in the same order. Neither
// side fuses multiply-adds (the CPU file is built with -ffp-contract=off, the kernels with
// --fmad=false), so the results agree to the last bit in practice; the header promises 1e-5.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define ROP_GPU_HOST_DEVICE __host__ __device__ inline
#else
#define ROP_GPU_HOST_DEVICE inline
#endif

namespace rop::stdlib::gpu::detail {

// BT.601 luma rounded to 8 bits, integer arithmetic (std.video's luma).
ROP_GPU_HOST_DEVICE int luma_of(int r, int g, int b) {
    return (299 * r + 587 * g + 114 * b + 500) / 1000;
}

// Channel `c` of a source pixel as the output sees it: as is when the channel counts match, a
// gray pixel repeated into every output channel, an RGB pixel as its luma for one channel.
ROP_GPU_HOST_DEVICE float source_sample(const std::uint8_t* pixels, int width, int channels, int x,
                                        int y, int c, int out_channels) {
    const std::uint8_t* p =
        pixels + (static_cast<std::size_t>(y) * static_cast<std::size_t>(width) +
                  static_cast<std::size_t>(x)) *
                     static_cast<std::size_t>(channels);
    if (channels == out_channels) return static_cast<float>(p[c]);
    if (channels == 1) return static_cast<float>(p[0]);
    return static_cast<float>(luma_of(p[0], p[1], p[2]));
}

// The two source indices and the weight of the second for output index `out` of `out_size`
// along an axis of `in_size` samples: half-pixel centres, s = (out + 0.5) * in / out_size - 0.5,
// clamped at both edges. s is the fraction ((2 out + 1) in - out_size) / (2 out_size), split in
// integers so that only the weight is rounded (once, to float): float coordinates would be off by
// up to 1e-4 px on a 1920 px axis, 1e-4 after normalizing.
struct Tap {
    int first;
    int second;
    float weight;
};

template <class Int>
ROP_GPU_HOST_DEVICE Tap tap_in(Int out, Int in_size, Int out_size) {
    const Int numerator = (2 * out + 1) * in_size - out_size;
    const Int denominator = 2 * out_size;
    if (numerator <= 0) return Tap{0, in_size > 1 ? 1 : 0, 0.0f};
    const Int first = numerator / denominator;
    if (first >= in_size - 1) {
        return Tap{static_cast<int>(in_size - 1), static_cast<int>(in_size - 1), 0.0f};
    }
    const Int remainder = numerator - first * denominator;
    return Tap{static_cast<int>(first), static_cast<int>(first) + 1,
               static_cast<float>(remainder) / static_cast<float>(denominator)};
}

// 32-bit integers while (2 out + 1) in fits (every real image; a 64-bit division costs a GPU
// dozens of instructions), 64-bit beyond: the same exact values either way.
ROP_GPU_HOST_DEVICE Tap tap(int out, int in_size, int out_size) {
    if (in_size <= 32767 && out_size <= 32767) return tap_in<int>(out, in_size, out_size);
    return tap_in<long long>(out, in_size, out_size);
}

// One element of the output tensor, the taps of its row (ty) and column (tx) given: channel c of
// the resized, normalized image.
ROP_GPU_HOST_DEVICE float resized_normalized(const std::uint8_t* pixels, int width, int channels,
                                             Tap ty, Tap tx, int out_channels, int c, float mean,
                                             float stddev) {
    const float p00 = source_sample(pixels, width, channels, tx.first, ty.first, c, out_channels);
    const float p01 = source_sample(pixels, width, channels, tx.second, ty.first, c, out_channels);
    const float p10 = source_sample(pixels, width, channels, tx.first, ty.second, c, out_channels);
    const float p11 = source_sample(pixels, width, channels, tx.second, ty.second, c, out_channels);
    const float top = p00 * (1.0f - tx.weight) + p01 * tx.weight;
    const float bottom = p10 * (1.0f - tx.weight) + p11 * tx.weight;
    const float value = top * (1.0f - ty.weight) + bottom * ty.weight;
    return (value / 255.0f - mean) / stddev;
}

// The 4-neighbour Laplacian at an interior pixel of a gray image: an integer in [-1020, 1020].
ROP_GPU_HOST_DEVICE int laplacian_at(const std::uint8_t* gray, int width, int x, int y) {
    const std::size_t w = static_cast<std::size_t>(width);
    const std::size_t i = static_cast<std::size_t>(y) * w + static_cast<std::size_t>(x);
    return gray[i - 1] + gray[i + 1] + gray[i - w] + gray[i + w] - 4 * gray[i];
}

// Variance from the sum and sum of squares of `count` values (both paths end here, on the host).
inline double variance_from_sums(double sum, double sum_sq, double count) {
    const double mean = sum / count;
    return sum_sq / count - mean * mean;
}

}  // namespace rop::stdlib::gpu::detail
