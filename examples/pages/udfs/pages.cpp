#include "pages.hpp"

#include <sstream>

namespace pages {
namespace {

std::string json_string(const std::string& text) {
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            out += ' ';
        } else {
            out += c;
        }
    }
    return out + "\"";
}

}  // namespace

std::vector<Page> split_pages(const std::string& text) {
    std::vector<Page> out;
    std::istringstream in(text);
    std::string line;
    std::string page;
    auto flush = [&] {
        if (!page.empty()) out.push_back({page});
        page.clear();
    };
    while (std::getline(in, line)) {
        if (line.empty()) {
            flush();
        } else {
            page += (page.empty() ? "" : " ") + line;
        }
    }
    flush();
    return out;
}

std::string read_page(const Page& page) {
    if (page.text.find("UNREADABLE") != std::string::npos) {
        throw rop::RecordFailure("page is unreadable");
    }
    return page.text;
}

std::tuple<rop::stdlib::JsonText, rop::stdlib::JsonText> assemble(
    std::span<const std::string> texts, rop::Ordinals ordinals, rop::Skipped skipped) {
    std::string doc = "{\"pages\": [";
    for (std::size_t i = 0; i < texts.size(); ++i) {
        doc += std::string(i ? ", " : "") + "{\"ordinal\": " + std::to_string(ordinals[i]) +
               ", \"text\": " + json_string(texts[i]) + "}";
    }
    doc += "], \"skipped\": [";
    for (std::size_t i = 0; i < skipped.size(); ++i) {
        doc += std::string(i ? ", " : "") + "{\"ordinal\": " + std::to_string(skipped[i].ordinal) +
               ", \"reason\": " + json_string(skipped[i].reason) + "}";
    }
    doc += "]}\n";
    const std::string stats = "{\"pages\": " + std::to_string(texts.size() + skipped.size()) +
                              ", \"read\": " + std::to_string(texts.size()) +
                              ", \"skipped\": " + std::to_string(skipped.size()) + "}\n";
    return {rop::stdlib::JsonText{doc}, rop::stdlib::JsonText{stats}};
}

}  // namespace pages
