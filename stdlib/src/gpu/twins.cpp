// std.gpu's CPU twins: the same arithmetic as the kernels (arithmetic.h), on the host. Built with
// -ffp-contract=off so that the compiler fuses no multiply-add the kernels do not fuse either.
#include "twins.h"

#include <cstddef>

#include "arithmetic.h"

namespace rop::stdlib::gpu::detail {

std::vector<float> resize_normalize_cpu(std::span<const Image> images, const ResizeRequest& r) {
    const std::size_t plane = static_cast<std::size_t>(r.height) * r.width;
    std::vector<float> out(images.size() * r.channels * plane);
    float* next = out.data();
    std::vector<Tap> columns(r.width);
    std::vector<Tap> rows(r.height);
    for (const Image& image : images) {
        for (int x = 0; x < r.width; ++x) columns[x] = tap(x, image.width, r.width);
        for (int y = 0; y < r.height; ++y) rows[y] = tap(y, image.height, r.height);
        const std::uint8_t* pixels = image.pixels->data();
        for (int c = 0; c < r.channels; ++c) {
            for (int y = 0; y < r.height; ++y) {
                for (int x = 0; x < r.width; ++x) {
                    *next++ = resized_normalized(pixels, image.width, image.channels, rows[y],
                                                 columns[x], r.channels, c, r.mean[c], r.stddev[c]);
                }
            }
        }
    }
    return out;
}

LaplacianSums laplacian_sums_cpu(const Image& image) {
    LaplacianSums sums;
    if (image.width < 3 || image.height < 3) return sums;
    std::vector<std::uint8_t> gray;
    const std::uint8_t* pixels = image.pixels->data();
    if (image.channels != 1) {
        const std::size_t count = static_cast<std::size_t>(image.width) * image.height;
        gray.resize(count);
        for (std::size_t i = 0; i < count; ++i) {
            const std::uint8_t* p = pixels + i * static_cast<std::size_t>(image.channels);
            gray[i] = static_cast<std::uint8_t>(luma_of(p[0], p[1], p[2]));
        }
        pixels = gray.data();
    }
    for (int y = 1; y + 1 < image.height; ++y) {
        for (int x = 1; x + 1 < image.width; ++x) {
            const double value = laplacian_at(pixels, image.width, x, y);
            sums.sum += value;
            sums.sum_sq += value * value;
        }
    }
    sums.count = static_cast<double>(image.width - 2) * (image.height - 2);
    return sums;
}

}  // namespace rop::stdlib::gpu::detail
