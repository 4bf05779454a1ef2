// The pixel arithmetic of std.pdf.pages (see render_size.h).
#include "render_size.h"

#include <algorithm>
#include <cmath>

namespace rop::stdlib::pdf {
namespace {

std::int64_t side(double points, int dpi) {
    const double pixels = points * dpi / 72.0 + 0.5;
    // A NaN, negative or absurd box still gives a size the budget can judge.
    if (!(pixels >= 1)) return 1;
    if (pixels >= 9.0e15) return static_cast<std::int64_t>(9.0e15);
    return static_cast<std::int64_t>(pixels);
}

std::string text(PixelSize size) {
    return std::to_string(size.width) + "x" + std::to_string(size.height);
}

bool fits(double width, double height, int dpi, std::int64_t max_pixels) {
    const PixelSize size = expected_pixels(width, height, dpi);
    // width * height can exceed int64 for absurd boxes: compare by division first.
    return size.width <= max_pixels / size.height && size.pixels() <= max_pixels;
}

}  // namespace

PixelSize expected_pixels(double width, double height, int dpi) {
    return PixelSize{side(width, dpi), side(height, dpi)};
}

int fitting_dpi(double width, double height, int dpi, std::int64_t max_pixels) {
    if (dpi < 1 || max_pixels < 1) return 0;
    if (fits(width, height, dpi, max_pixels)) return dpi;
    // Start at the exact answer of (w * d / 72) * (h * d / 72) = max_pixels, then step past the
    // rounding of each side to nearest.
    const double area = std::max(width, 1.0) * std::max(height, 1.0);
    const double exact = 72.0 * std::sqrt(static_cast<double>(max_pixels) / area);
    int guess = static_cast<int>(std::clamp(exact, 0.0, static_cast<double>(dpi - 1)));
    while (guess >= 1 && !fits(width, height, guess, max_pixels)) --guess;
    while (guess + 1 < dpi && fits(width, height, guess + 1, max_pixels)) ++guess;
    return std::max(guess, 0);
}

std::string image_mismatch(bool valid, PixelSize got, PixelSize expected) {
    if (!valid || got.width <= 0 || got.height <= 0) {
        return "poppler returned no image for " + text(expected) + " px";
    }
    if (std::abs(got.width - expected.width) <= kSizeTolerance &&
        std::abs(got.height - expected.height) <= kSizeTolerance) {
        return "";
    }
    return "poppler returned a " + text(got) + " image for " + text(expected) + " px";
}

}  // namespace rop::stdlib::pdf
