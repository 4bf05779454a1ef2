// PNG and base64 encoding for the model client: page images travel to the server as
// `data:image/png;base64,...` URLs, so the client encodes raw gray/RGB pixels (libpng, OpenSSL).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace rop::stdlib::model::detail {

// Raw 8-bit pixels, row-major, `channels` interleaved bytes per pixel (1 gray, 2 gray+alpha,
// 3 RGB, 4 RGBA); `stride` bytes from one row to the next (0: width * channels).
struct PixelView {
    int width = 0;
    int height = 0;
    int channels = 0;
    std::size_t stride = 0;
    std::span<const std::uint8_t> pixels;
};

// A complete PNG file (8-bit, no interlace). Throws std::invalid_argument when the view is
// inconsistent (zero size, unknown channel count, too few bytes).
std::string encode_png(const PixelView& image);

// Standard base64 (RFC 4648, with padding).
std::string base64_encode(std::string_view bytes);

// `data:image/png;base64,...` for the image.
std::string png_data_url(const PixelView& image);

}  // namespace rop::stdlib::model::detail
