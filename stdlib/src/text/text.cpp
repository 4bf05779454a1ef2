// std.text: read, normalize_whitespace, nonempty, join, to_markdown, to_json_string.
#include "rop/stdlib/text.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

namespace rop::stdlib::text {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the valid UTF-8 sequence at text[i], or 0 when it is not one.
std::size_t utf8_sequence(std::string_view text, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(text[k]); };
    const std::uint8_t lead = byte(i);
    if (lead < 0x80) return 1;
    std::size_t length = 0;
    std::uint32_t min = 0;
    std::uint32_t code = 0;
    if ((lead & 0xE0) == 0xC0) {
        length = 2, min = 0x80, code = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
        length = 3, min = 0x800, code = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
        length = 4, min = 0x10000, code = lead & 0x07;
    } else {
        return 0;
    }
    if (i + length > text.size()) return 0;
    for (std::size_t k = 1; k < length; ++k) {
        if ((byte(i + k) & 0xC0) != 0x80) return 0;
        code = (code << 6) | (byte(i + k) & 0x3F);
    }
    if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
    return length;
}

std::string valid_utf8(std::string_view text) {
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t length = utf8_sequence(text, i);
        if (length == 0) {
            out += kReplacement;
            ++i;
        } else {
            out.append(text, i, length);
            i += length;
        }
    }
    return out;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v'; }

}  // namespace

std::string read(const File& file) {
    std::ifstream in(file.path, std::ios::binary);
    if (!in) throw rop::RecordFailure("cannot read '" + file.path + "': " + std::strerror(errno));
    std::ostringstream bytes;
    bytes << in.rdbuf();
    if (in.bad()) throw rop::RecordFailure("cannot read '" + file.path + "': read error");
    return valid_utf8(bytes.str());
}

std::string normalize_whitespace(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    bool pending_blank = false;
    std::size_t i = 0;
    while (i <= text.size()) {
        // One line: [i, end).
        std::size_t end = i;
        while (end < text.size() && text[end] != '\n' && text[end] != '\r') ++end;
        std::string line;
        bool space = false;
        for (std::size_t k = i; k < end; ++k) {
            if (is_space(text[k])) {
                space = true;
            } else {
                if (space && !line.empty()) line += ' ';
                space = false;
                line += text[k];
            }
        }
        if (line.empty()) {
            pending_blank = !out.empty();
        } else {
            if (!out.empty()) out += pending_blank ? "\n\n" : "\n";
            pending_blank = false;
            out += line;
        }
        if (end >= text.size()) break;
        i = end + ((text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n') ? 2 : 1);
    }
    return out;
}

bool nonempty(const std::string& text) {
    for (char c : text) {
        if (!is_space(c) && c != '\n' && c != '\r') return true;
    }
    return false;
}

std::string join(std::span<const std::string> parts, std::string sep) {
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i > 0) out += sep;
        out += parts[i];
    }
    return out;
}

Markdown to_markdown(const std::string& text) { return Markdown{text}; }

JsonText to_json_string(const std::string& text) {
    std::string out = "\"";
    for (char c : valid_utf8(text)) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    static const char* hex = "0123456789abcdef";
                    out += "\\u00";
                    out += hex[(c >> 4) & 0xF];
                    out += hex[c & 0xF];
                } else {
                    out += c;
                }
        }
    }
    out += '"';
    return JsonText{out};
}

}  // namespace rop::stdlib::text
