// PNG writer: one IHDR, one IDAT (zlib stream), IEND. Rows use the Up filter (documents are
// mostly runs of identical rows, which Up turns into zeros), deflate at level 1: a page image is
// encoded in a few milliseconds and still compresses to a small fraction of its raw size.
#include "png_encoder.h"

#include <zlib.h>

#include <array>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace rop::stdlib::model::detail {
namespace {

void put_u32(std::string& out, std::uint32_t value) {
    out.push_back(static_cast<char>((value >> 24) & 0xFF));
    out.push_back(static_cast<char>((value >> 16) & 0xFF));
    out.push_back(static_cast<char>((value >> 8) & 0xFF));
    out.push_back(static_cast<char>(value & 0xFF));
}

void put_chunk(std::string& out, std::string_view type, std::string_view data) {
    put_u32(out, static_cast<std::uint32_t>(data.size()));
    const std::size_t type_at = out.size();
    out.append(type);
    out.append(data);
    const auto* crc_bytes = reinterpret_cast<const Bytef*>(out.data() + type_at);
    const uLong crc =
        crc32(crc32(0L, Z_NULL, 0), crc_bytes, static_cast<uInt>(out.size() - type_at));
    put_u32(out, static_cast<std::uint32_t>(crc));
}

int color_type(int channels) {
    switch (channels) {
        case 1: return 0;  // gray
        case 2: return 4;  // gray + alpha
        case 3: return 2;  // RGB
        case 4: return 6;  // RGBA
        default:
            throw std::invalid_argument("png: unsupported channel count " +
                                        std::to_string(channels));
    }
}

// The filtered scanlines: per row a filter byte then the row (Up: each byte minus the byte above).
std::vector<std::uint8_t> filtered_rows(const PixelView& image, std::size_t row_bytes,
                                        std::size_t stride) {
    std::vector<std::uint8_t> raw;
    raw.resize((row_bytes + 1) * static_cast<std::size_t>(image.height));
    std::uint8_t* out = raw.data();
    for (int y = 0; y < image.height; ++y) {
        const std::uint8_t* row = image.pixels.data() + static_cast<std::size_t>(y) * stride;
        if (y == 0) {
            *out++ = 0;  // None
            for (std::size_t x = 0; x < row_bytes; ++x) *out++ = row[x];
        } else {
            const std::uint8_t* above = row - stride;
            *out++ = 2;  // Up
            for (std::size_t x = 0; x < row_bytes; ++x) {
                *out++ = static_cast<std::uint8_t>(row[x] - above[x]);
            }
        }
    }
    return raw;
}

std::string deflate_bytes(const std::vector<std::uint8_t>& raw) {
    z_stream zs{};
    if (deflateInit(&zs, 1) != Z_OK) throw std::runtime_error("png: deflateInit failed");
    std::string out;
    out.resize(deflateBound(&zs, static_cast<uLong>(raw.size())));
    zs.next_in = const_cast<Bytef*>(raw.data());
    zs.avail_in = static_cast<uInt>(raw.size());
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = static_cast<uInt>(out.size());
    const int rc = deflate(&zs, Z_FINISH);
    const std::size_t produced = zs.total_out;
    deflateEnd(&zs);
    if (rc != Z_STREAM_END) throw std::runtime_error("png: deflate failed");
    out.resize(produced);
    return out;
}

}  // namespace

std::string encode_png(const PixelView& image) {
    const int type = color_type(image.channels);
    if (image.width <= 0 || image.height <= 0) {
        throw std::invalid_argument("png: empty image (" + std::to_string(image.width) + "x" +
                                    std::to_string(image.height) + ")");
    }
    const std::size_t row_bytes =
        static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.channels);
    const std::size_t stride = image.stride == 0 ? row_bytes : image.stride;
    if (stride < row_bytes) throw std::invalid_argument("png: stride shorter than a row");
    const std::size_t needed = stride * static_cast<std::size_t>(image.height - 1) + row_bytes;
    if (image.pixels.size() < needed) {
        throw std::invalid_argument("png: " + std::to_string(image.pixels.size()) +
                                    " pixel bytes, need " + std::to_string(needed));
    }

    std::string png = "\x89PNG\r\n\x1a\n";
    std::string header;
    put_u32(header, static_cast<std::uint32_t>(image.width));
    put_u32(header, static_cast<std::uint32_t>(image.height));
    header.push_back(8);                        // bit depth
    header.push_back(static_cast<char>(type));  // color type
    header.append(3, '\0');                     // compression, filter method, no interlace
    put_chunk(png, "IHDR", header);
    put_chunk(png, "IDAT", deflate_bytes(filtered_rows(image, row_bytes, stride)));
    put_chunk(png, "IEND", {});
    return png;
}

std::string base64_encode(std::string_view bytes) {
    static constexpr std::string_view kAlphabet =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        const std::uint32_t v =
            (static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[i])) << 16) |
            (static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[i + 1])) << 8) |
            static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[i + 2]));
        out.push_back(kAlphabet[(v >> 18) & 63]);
        out.push_back(kAlphabet[(v >> 12) & 63]);
        out.push_back(kAlphabet[(v >> 6) & 63]);
        out.push_back(kAlphabet[v & 63]);
    }
    const std::size_t rest = bytes.size() - i;
    if (rest > 0) {
        std::uint32_t v = static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[i])) << 16;
        if (rest == 2)
            v |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[i + 1])) << 8;
        out.push_back(kAlphabet[(v >> 18) & 63]);
        out.push_back(kAlphabet[(v >> 12) & 63]);
        out.push_back(rest == 2 ? kAlphabet[(v >> 6) & 63] : '=');
        out.push_back('=');
    }
    return out;
}

std::string png_data_url(const PixelView& image) {
    return "data:image/png;base64," + base64_encode(encode_png(image));
}

}  // namespace rop::stdlib::model::detail
