#include "ropc/explanations.h"

#include <string>

#include "ropc/diagnostics_doc.h"  // generated: kDiagnosticsDoc, kDiagnosticsDocSize

namespace rop::cli {

std::string_view diagnostics_doc() {
    return {reinterpret_cast<const char*>(kDiagnosticsDoc), kDiagnosticsDocSize};
}

std::optional<std::string_view> explanation(std::string_view code) {
    const std::string_view doc = diagnostics_doc();
    const std::string heading = "\n### " + std::string(code);
    std::size_t begin = doc.find(heading);
    while (begin != std::string_view::npos) {
        const char after = begin + heading.size() < doc.size() ? doc[begin + heading.size()] : '\n';
        if (after == ' ' || after == ':' || after == '\n') break;  // E0200 is not E02001
        begin = doc.find(heading, begin + 1);
    }
    if (begin == std::string_view::npos) return std::nullopt;
    ++begin;
    std::size_t end = doc.find("\n#", begin);
    if (end == std::string_view::npos) end = doc.size();
    return doc.substr(begin, end + 1 - begin);
}

}  // namespace rop::cli
