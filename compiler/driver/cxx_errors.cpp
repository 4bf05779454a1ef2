#include "driver/cxx_errors.h"

#include <filesystem>
#include <optional>
#include <regex>
#include <sstream>

namespace rop::driver {
namespace {

std::string base_name(const std::string& path) {
    return std::filesystem::path(path).filename().string();
}

struct Location {
    std::uint32_t line = 0;
    std::uint32_t column = 0;
    std::string call;
};

// The Call a generated line belongs to, from the line map.
std::optional<Location> from_generated(std::uint32_t line, const CxxErrorContext& context) {
    if (context.line_map == nullptr) return std::nullopt;
    for (const codegen::LineMapEntry& entry : *context.line_map) {
        if (line >= entry.first_line && line <= entry.last_line) {
            return Location{entry.rop_line, entry.rop_column, entry.call};
        }
    }
    return std::nullopt;
}

// A `.rop` line (from `#line`): the column of the Call that starts there.
Location from_rop(std::uint32_t line, const CxxErrorContext& context) {
    Location at{line, 1, ""};
    if (context.line_map == nullptr) return at;
    for (const codegen::LineMapEntry& entry : *context.line_map) {
        if (entry.rop_line == line) return Location{line, entry.rop_column, entry.call};
    }
    return at;
}

void source_snippet(std::ostringstream& out, const Location& at, const CxxErrorContext& context) {
    if (context.sources == nullptr) return;
    if (at.line == 0 || at.line > 1'000'000) return;
    std::string_view text = context.sources->line_text(context.rop_id, at.line);
    out << "  " << at.line << " | " << text << "\n";
    std::string pad(std::to_string(at.line).size(), ' ');
    std::string spaces;
    for (std::uint32_t i = 1; i < at.column && i <= text.size(); ++i) {
        spaces += text[i - 1] == '\t' ? '\t' : ' ';
    }
    out << "  " << pad << " | " << spaces << "^\n";
}

}  // namespace

std::string render_cxx_errors(const std::string& compiler_output, const CxxErrorContext& context) {
    static const std::regex diagnostic(
        R"(^(.+?):([0-9]+):(?:([0-9]+):)? (error|warning|note|fatal error): (.*)$)");
    static const std::regex context_line(R"(^(.+?): (In |At ).*$)");
    static const std::regex snippet(R"(^ *[0-9]* *\|.*$)");
    std::ostringstream out;
    std::istringstream in(compiler_output);
    std::string line;
    bool skip_snippet = false;
    while (std::getline(in, line)) {
        std::smatch m;
        if (std::regex_match(line, m, diagnostic)) {
            const std::string file = m[1];
            const auto number = static_cast<std::uint32_t>(std::stoul(m[2]));
            const std::string severity = m[4];
            const std::string message = m[5];
            std::optional<Location> at;
            if (base_name(file) == context.generated_name) {
                at = from_generated(number, context);
                if (!at) {
                    out << line << "\n";
                    skip_snippet = false;
                    continue;
                }
                if (!at->call.empty()) {
                    out << context.rop_file << ":" << at->line << ":" << at->column << ": "
                        << severity << ": " << message << " [in the code generated for '"
                        << at->call << "']\n";
                } else {
                    out << context.rop_file << ":" << at->line << ":" << at->column << ": "
                        << severity << ": " << message << "\n";
                }
            } else if (file == context.rop_file) {
                at = from_rop(number, context);
                out << context.rop_file << ":" << at->line << ":" << at->column << ": " << severity
                    << ": " << message << "\n";
            } else {
                out << line << "\n";
                skip_snippet = false;
                continue;
            }
            source_snippet(out, *at, context);
            skip_snippet = true;
            continue;
        }
        if (skip_snippet && std::regex_match(line, snippet)) continue;
        skip_snippet = false;
        std::smatch c;
        if (std::regex_match(line, c, context_line) &&
            (base_name(c[1]) == context.generated_name || c[1] == context.rop_file)) {
            continue;  // "In member function 'Call_x::process'": generated-code noise
        }
        out << line << "\n";
    }
    return out.str();
}

}  // namespace rop::driver
