#include "lsp/positions.h"

#include <filesystem>

namespace rop::lsp {

namespace {

// UTF-16 code units of the UTF-8 character whose first byte is `lead`: two for the 4-byte
// sequences (outside the Basic Multilingual Plane), one otherwise; 0 for a continuation byte.
// A byte that is not well-formed UTF-8 counts as one, as SourceManager counts it.
std::uint32_t utf16_units(unsigned char lead) {
    if ((lead & 0xC0) == 0x80) return 0;
    return lead >= 0xF0 ? 2 : 1;
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

}  // namespace

Position to_position(const SourceManager& sources, FileId file, std::uint32_t offset) {
    const std::string_view text = sources.text(file);
    if (offset > text.size()) offset = static_cast<std::uint32_t>(text.size());
    const std::uint32_t line = sources.line_col(file, offset).line;
    std::uint32_t character = 0;
    for (std::uint32_t i = sources.line_start(file, line); i < offset; ++i) {
        character += utf16_units(static_cast<unsigned char>(text[i]));
    }
    return {line - 1, character};
}

std::uint32_t to_offset(const SourceManager& sources, FileId file, Position position) {
    const std::string_view text = sources.text(file);
    const std::size_t lines = sources.line_count(file);
    if (position.line + 1 > lines) return static_cast<std::uint32_t>(text.size());
    const std::uint32_t start = sources.line_start(file, position.line + 1);
    const std::string_view line = sources.line_text(file, position.line + 1);
    std::uint32_t units = 0;
    std::uint32_t i = 0;
    while (i < line.size()) {
        const std::uint32_t width = utf16_units(static_cast<unsigned char>(line[i]));
        if (width != 0 && units + width > position.character) break;
        units += width;
        ++i;
    }
    return start + i;
}

std::optional<std::string> uri_to_path(std::string_view uri) {
    constexpr std::string_view kScheme = "file://";
    if (uri.substr(0, kScheme.size()) != kScheme) return std::nullopt;
    uri.remove_prefix(kScheme.size());
    // `file://host/path`: the host (usually empty or localhost) is not part of the path.
    const std::size_t slash = uri.find('/');
    if (slash == std::string_view::npos) return std::nullopt;
    uri.remove_prefix(slash);
    std::string path;
    for (std::size_t i = 0; i < uri.size(); ++i) {
        if (uri[i] == '%' && i + 2 < uri.size()) {
            const int hi = hex_digit(uri[i + 1]);
            const int lo = hex_digit(uri[i + 2]);
            if (hi >= 0 && lo >= 0) {
                path += static_cast<char>(hi * 16 + lo);
                i += 2;
                continue;
            }
        }
        path += uri[i];
    }
    return path;
}

std::string path_to_uri(const std::string& path) {
    std::error_code ec;
    const std::string absolute = std::filesystem::absolute(path, ec).lexically_normal().string();
    std::string uri = "file://";
    constexpr char kHex[] = "0123456789ABCDEF";
    for (const char c : ec ? path : absolute) {
        const auto byte = static_cast<unsigned char>(c);
        const bool plain = (byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') ||
                           (byte >= '0' && byte <= '9') || c == '/' || c == '-' || c == '.' ||
                           c == '_' || c == '~';
        if (plain) {
            uri += c;
        } else {
            uri += '%';
            uri += kHex[byte >> 4];
            uri += kHex[byte & 15];
        }
    }
    return uri;
}

}  // namespace rop::lsp
