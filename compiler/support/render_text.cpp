// The text renderer: GCC/Clang's shape, so editors and CI log parsers understand it.
//   file:line:col: error: message [E0100]
//    12 | ocr = map pagez with ocr;
//       |           ^~~~~
#include <string>

#include "support/diagnostics.h"
#include "support/render_common.h"

namespace rop {

namespace {

constexpr std::uint32_t kTabStop = 8;

struct Style {
    bool on;
    std::string wrap(const char* code, const std::string& text) const {
        return on ? std::string("\033[") + code + "m" + text + "\033[0m" : text;
    }
};

const char* severity_color(Severity severity) {
    switch (severity) {
        case Severity::Note:
            return "1;36";
        case Severity::Warning:
            return "1;35";
        case Severity::Error:
        case Severity::Fatal:
            return "1;31";
    }
    return "1;31";
}

bool is_utf8_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The source line as shown: tabs expanded to the next tab stop and control bytes replaced, so
// the caret line below it lines up in any terminal.
std::string display_line(std::string_view line) {
    std::string out;
    std::uint32_t width = 0;
    for (char c : line) {
        if (c == '\t') {
            do {
                out += ' ';
            } while (++width % kTabStop != 0);
            continue;
        }
        auto byte = static_cast<unsigned char>(c);
        out += byte < 0x20 || byte == 0x7F ? '?' : c;
        if (!is_utf8_continuation(c)) ++width;
    }
    return out;
}

// Display width of the first `bytes` bytes of `line` (a UTF-8 sequence counts as one column).
std::uint32_t display_width(std::string_view line, std::size_t bytes) {
    std::uint32_t width = 0;
    for (std::size_t i = 0; i < bytes && i < line.size(); ++i) {
        if (line[i] == '\t') {
            width += kTabStop - width % kTabStop;
        } else if (!is_utf8_continuation(line[i])) {
            ++width;
        }
    }
    return width;
}

std::string location(const detail::Span& span) {
    if (!span.known) return span.file;
    return span.file + ":" + std::to_string(span.line) + ":" + std::to_string(span.column);
}

// The source line and a caret/tilde underline over the range; a range that spans lines is
// underlined to the end of its first line. `insertion` (a fix-it's text) goes on a third line.
std::string snippet(const SourceManager& sources, const detail::Span& span, const Style& style,
                    const std::string* insertion = nullptr, std::uint32_t insertion_column = 0) {
    if (!span.known) return "";
    std::string_view line = sources.line_text(span.file_id, span.line);
    std::uint32_t start = display_width(line, span.column - 1);
    std::uint32_t stop = span.end_line == span.line ? display_width(line, span.end_column - 1)
                                                    : display_width(line, line.size());
    std::string underline(start, ' ');
    underline += '^';
    if (stop > start + 1) underline += std::string(stop - start - 1, '~');

    std::string number = std::to_string(span.line);
    std::string gutter = " " + std::string(number.size(), ' ') + " | ";
    std::string out = " " + number + " | " + display_line(line) + "\n";
    out += gutter + style.wrap("1;32", underline) + "\n";
    if (insertion) {
        std::uint32_t at = display_width(line, insertion_column - 1);
        out += gutter + std::string(at, ' ') + style.wrap("1;32", *insertion) + "\n";
    }
    return out;
}

std::string escape_fixit(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '\\' || c == '"') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out;
}

std::string header(const detail::Span& span, Severity severity, const std::string& message,
                   const Style& style) {
    return style.wrap("1", location(span) + ":") + " " +
           style.wrap(severity_color(severity), std::string(to_string(severity)) + ":") + " " +
           style.wrap("1", message) + "\n";
}

std::string summary(std::size_t errors, std::size_t warnings) {
    auto count = [](std::size_t n, const char* word) {
        return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
    };
    std::string out;
    if (errors > 0) out += count(errors, "error");
    if (warnings > 0) out += (out.empty() ? "" : ", ") + count(warnings, "warning");
    return out + " generated.\n";
}

}  // namespace

std::string render_text(const SourceManager& sources, const std::vector<Diagnostic>& diags,
                        bool color) {
    Style style{color};
    std::string out;
    std::size_t errors = 0;
    std::size_t warnings = 0;
    for (const Diagnostic& d : diags) {
        if (d.severity >= Severity::Error) ++errors;
        if (d.severity == Severity::Warning) ++warnings;

        detail::Span span = detail::resolve(sources, d.range);
        std::string code(diag_info(d.id).code);
        out += header(span, d.severity, d.message + " [" + code + "]", style);

        const std::string* insertion = nullptr;
        detail::Span fix;
        if (d.fixit) {
            fix = detail::resolve(sources, d.fixit->range);
            bool one_line = d.fixit->replacement.find('\n') == std::string::npos;
            bool same_line = fix.known && fix.file_id == span.file_id && fix.line == span.line;
            if (one_line && same_line) insertion = &d.fixit->replacement;
        }
        out += snippet(sources, span, style, insertion, fix.column);
        if (d.fixit && fix.known) {
            out += "fix-it:\"" + escape_fixit(fix.file) + "\":{" + std::to_string(fix.line) + ":" +
                   std::to_string(fix.column) + "-" + std::to_string(fix.end_line) + ":" +
                   std::to_string(fix.end_column) + "}:\"" + escape_fixit(d.fixit->replacement) +
                   "\"\n";
        }
        for (const Note& note : d.notes) {
            // A note that points nowhere is printed at its diagnostic's location, without a
            // snippet, so tools that need a file:line still place it.
            detail::Span at = note.range ? detail::resolve(sources, *note.range) : span;
            out += header(at, Severity::Note, note.message, style);
            if (note.range) out += snippet(sources, at, style);
        }
    }
    if (errors + warnings > 0) out += summary(errors, warnings);
    return out;
}

}  // namespace rop
