// render_size.h (internal to rop_stdlib_pdf): the pixel arithmetic of std.pdf.pages, kept pure so
// it is unit-tested without poppler: a page's expected image size at a dpi, the largest dpi that
// keeps a page within a pixel budget, and the check of what poppler returned against both.
#pragma once

#include <cstdint>
#include <string>

namespace rop::stdlib::pdf {

// An image size in pixels; 64-bit so that a huge page's product cannot overflow.
struct PixelSize {
    std::int64_t width = 0;
    std::int64_t height = 0;

    std::int64_t pixels() const { return width * height; }
};

// The image poppler's Splash renderer makes for a page of `width` x `height` points at `dpi`:
// each side is points * dpi / 72 rounded to nearest, and at least 1 (SplashOutputDev::startPage).
PixelSize expected_pixels(double width, double height, int dpi);

// The largest dpi <= `dpi` at which the page's expected image holds at most `max_pixels` pixels;
// `dpi` itself when it fits, 0 when not even 1 dpi does.
int fitting_dpi(double width, double height, int dpi, std::int64_t max_pixels);

// Empty when an image of `got` (valid: poppler said so) is the `expected` one, each side within
// kSizeTolerance pixels; else why not, e.g. "poppler returned a 1x1 image for 1700x2200 px" (what
// poppler returns when it cannot allocate the bitmap) or "poppler returned no image for ...".
inline constexpr std::int64_t kSizeTolerance = 2;
std::string image_mismatch(bool valid, PixelSize got, PixelSize expected);

}  // namespace rop::stdlib::pdf
