// Picture scores on the CPU: HSV content difference, gray difference, Laplacian variance.
#include "scene.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace rop::stdlib::video::detail {

std::vector<std::uint8_t> rgb_to_hsv(const std::vector<std::uint8_t>& rgb) {
    std::vector<std::uint8_t> hsv(rgb.size());
    for (std::size_t i = 0; i + 2 < rgb.size(); i += 3) {
        const int r = rgb[i];
        const int g = rgb[i + 1];
        const int b = rgb[i + 2];
        const int v = std::max({r, g, b});
        const int delta = v - std::min({r, g, b});
        const int s = v == 0 ? 0 : (255 * delta + v / 2) / v;
        double h = 0;
        if (delta > 0) {
            if (v == r) {
                h = 60.0 * (g - b) / delta;
            } else if (v == g) {
                h = 120.0 + 60.0 * (b - r) / delta;
            } else {
                h = 240.0 + 60.0 * (r - g) / delta;
            }
            if (h < 0) {
                h += 360.0;
            }
        }
        hsv[i] = static_cast<std::uint8_t>(std::min(179L, std::lround(h / 2.0)));
        hsv[i + 1] = static_cast<std::uint8_t>(s);
        hsv[i + 2] = static_cast<std::uint8_t>(v);
    }
    return hsv;
}

double content_value(const std::vector<std::uint8_t>& hsv_a,
                     const std::vector<std::uint8_t>& hsv_b) {
    const std::size_t n = std::min(hsv_a.size(), hsv_b.size());
    if (n < 3) {
        return 0;
    }
    double sum = 0;  // the three channels' sums together: their mean is the sum over 3 * pixels
    for (std::size_t i = 0; i < n; ++i) {
        sum += std::abs(static_cast<int>(hsv_a[i]) - static_cast<int>(hsv_b[i]));
    }
    return sum / static_cast<double>(n - n % 3);
}

double mean_abs_difference(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
    const std::size_t n = std::min(a.size(), b.size());
    if (n == 0) {
        return 0;
    }
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
        sum +=
            static_cast<std::uint64_t>(std::abs(static_cast<int>(a[i]) - static_cast<int>(b[i])));
    }
    return static_cast<double>(sum) / static_cast<double>(n);
}

double laplacian_variance(const std::uint8_t* gray, int width, int height) {
    if (width < 3 || height < 3) {
        return 0;
    }
    double sum = 0;
    double sum_sq = 0;
    const auto w = static_cast<std::size_t>(width);
    for (int y = 1; y + 1 < height; ++y) {
        const std::uint8_t* row = gray + static_cast<std::size_t>(y) * w;
        for (int x = 1; x + 1 < width; ++x) {
            const int value = row[x - 1] + row[x + 1] + row[x - w] + row[x + w] - 4 * row[x];
            sum += value;
            sum_sq += static_cast<double>(value) * value;
        }
    }
    const double count = static_cast<double>(width - 2) * (height - 2);
    const double mean = sum / count;
    return sum_sq / count - mean * mean;
}

std::vector<std::uint8_t> luma(const Image& image) {
    if (image.empty()) {
        return {};
    }
    const auto& pixels = *image.pixels;
    if (image.channels == 1) {
        return pixels;
    }
    const std::size_t count = static_cast<std::size_t>(image.width) * image.height;
    std::vector<std::uint8_t> gray(count);
    for (std::size_t i = 0; i < count; ++i) {
        const std::size_t p = i * static_cast<std::size_t>(image.channels);
        gray[i] = static_cast<std::uint8_t>(
            (299 * pixels[p] + 587 * pixels[p + 1] + 114 * pixels[p + 2] + 500) / 1000);
    }
    return gray;
}

}  // namespace rop::stdlib::video::detail
