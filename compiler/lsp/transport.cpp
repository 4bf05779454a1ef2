#include "lsp/transport.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <istream>
#include <ostream>
#include <string_view>

namespace rop::lsp {

namespace {

// The longest body read: a bad or hostile length must not make the server allocate gigabytes.
constexpr std::size_t kMaxBody = std::size_t{256} << 20;

std::string lower(std::string_view text) {
    std::string out(text);
    std::ranges::transform(out, out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
        text.remove_suffix(1);
    }
    return text;
}

}  // namespace

std::optional<Frame> read_frame(std::istream& in) {
    std::optional<std::size_t> length;
    bool bad_length = false;
    std::string line;
    bool any_header = false;
    while (true) {
        if (!std::getline(in, line)) return std::nullopt;
        const std::string_view header = trim(line);
        if (header.empty()) {
            if (!any_header) continue;  // stray blank lines between messages
            break;
        }
        any_header = true;
        const std::size_t colon = header.find(':');
        if (colon == std::string_view::npos) {
            bad_length = true;
            continue;
        }
        if (lower(trim(header.substr(0, colon))) != "content-length") continue;
        const std::string_view value = trim(header.substr(colon + 1));
        std::size_t n = 0;
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
        if (ec != std::errc() || end != value.data() + value.size() || n > kMaxBody) {
            bad_length = true;
        } else {
            length = n;
        }
    }
    if (!length || bad_length) {
        return Frame{"", "the message header has no valid Content-Length"};
    }
    Frame frame;
    frame.body.resize(*length);
    if (!in.read(frame.body.data(), static_cast<std::streamsize>(*length))) return std::nullopt;
    return frame;
}

void write_frame(std::ostream& out, const std::string& body) {
    out << "Content-Length: " << body.size() << "\r\n\r\n" << body;
    out.flush();
}

}  // namespace rop::lsp
