// The text renderer: GCC/Clang's shape, so editors and CI log parsers understand it.
//   file:line:col: error: message [E0100]
//    12 | ocr = map pagez with ocr;
//       |           ^~~~~
#include <algorithm>
#include <optional>
#include <string>

#include "support/diagnostics.h"
#include "support/render_common.h"
#include "support/utf8.h"

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
        case Severity::Note: return "1;36";
        case Severity::Warning: return "1;35";
        case Severity::Error:
        case Severity::Fatal: return "1;31";
    }
    return "1;31";
}

// A source line is shown whole when it fits in kMaxShownColumns terminal columns. A longer one
// is shown as a window of that many columns around the caret, with "..." where it is cut, so one
// diagnostic on a megabyte-long line prints a few hundred bytes, not the line.
constexpr std::uint32_t kMaxShownColumns = 120;
constexpr std::uint32_t kLeftContext = 40;  // columns kept before the caret in a cut line
constexpr std::uint32_t kRightContext =
    20;  // a caret this close to the right edge moves the window
constexpr std::size_t kMaxShownBytes =
    16 * kMaxShownColumns;  // zero-width characters are bytes too
constexpr std::string_view kCut = "...";

// One character of a source line as the snippet shows it.
struct Shown {
    std::size_t bytes;      // how many bytes of the line it is
    std::string_view text;  // what is printed (empty: a tab, printed as spaces)
    std::uint32_t width;    // terminal columns, tabs excepted
    bool tab;
};

// Control and invisible characters and bytes that are not UTF-8 are shown as '?', so the caret
// line below lines up in any terminal and no byte of the source can move the cursor.
Shown shown_at(std::string_view line, std::size_t at) {
    if (line[at] == '\t') return {1, {}, 0, true};
    std::size_t length = utf8::sequence_length(line, at);
    if (length == 0) return {1, "?", 1, false};
    char32_t cp = utf8::decode(line, at, length);
    if (utf8::is_invisible(cp)) return {length, "?", 1, false};
    return {length, line.substr(at, length), utf8::display_width(cp), false};
}

std::uint32_t tab_width(std::uint32_t column) { return kTabStop - column % kTabStop; }

// Whether line[0, to) fits in `columns` terminal columns, reading at most that much of it.
bool fits(std::string_view line, std::size_t to, std::uint32_t columns) {
    std::uint32_t width = 0;
    for (std::size_t i = 0; i < to && i < line.size();) {
        if (i > kMaxShownBytes) return false;
        Shown c = shown_at(line, i);
        width += c.tab ? tab_width(width) : c.width;
        if (width > columns) return false;
        i += c.bytes;
    }
    return true;
}

// The byte where a window that keeps about `columns` columns before `at` starts: walks back one
// character at a time (a tab counted as a full stop, the most it can take).
std::size_t back_up(std::string_view line, std::size_t at, std::uint32_t columns) {
    std::uint32_t width = 0;
    std::size_t begin = at;
    while (begin > 0) {
        std::size_t lead = begin - 1;
        while (lead > 0 && begin - lead < 4 &&
               (static_cast<unsigned char>(line[lead]) & 0xC0) == 0x80) {
            --lead;
        }
        if (utf8::sequence_length(line, lead) != begin - lead) lead = begin - 1;
        Shown c = shown_at(line, lead);
        width += c.tab ? kTabStop : c.width;
        if (width > columns || at - lead > kMaxShownBytes / 2) break;
        begin = lead;
    }
    return begin;
}

// The shown part of a line and where, in terminal columns, the underline and the fix-it go.
struct Window {
    std::string text;
    std::uint32_t caret = 0;                 // column of the range's first character
    std::uint32_t caret_end = 0;             // column just past its last shown character
    std::optional<std::uint32_t> insertion;  // column of the fix-it, when it is in the window
    std::uint32_t end_column = 0;            // columns the shown text takes, marks included
};

// `begin`/`end`: the underlined bytes of the line; `insertion`: a fix-it's byte, if any.
Window window(std::string_view line, std::size_t begin, std::size_t end,
              std::optional<std::size_t> insertion) {
    std::size_t start = 0;
    if (!fits(line, line.size(), kMaxShownColumns) &&
        !fits(line, begin, kMaxShownColumns - kRightContext)) {
        start = back_up(line, begin, kLeftContext);
    }
    Window out;
    std::uint32_t column = 0;
    if (start > 0) {
        out.text = kCut;
        column = static_cast<std::uint32_t>(kCut.size());
    }
    const std::uint32_t limit = column + kMaxShownColumns;
    bool caret_set = false;
    bool end_set = false;
    std::size_t i = start;
    auto mark = [&] {  // positions reached before the character at i is shown
        if (!caret_set && i >= begin) {
            out.caret = column;
            caret_set = true;
        }
        if (!end_set && i >= end) {
            out.caret_end = column;
            end_set = true;
        }
        if (insertion && !out.insertion && i >= *insertion) out.insertion = column;
    };
    while (i < line.size()) {
        mark();
        Shown c = shown_at(line, i);
        std::uint32_t width = c.tab ? tab_width(column) : c.width;
        if (column + width > limit || i - start > kMaxShownBytes) break;
        if (c.tab) {
            out.text.append(width, ' ');
        } else {
            out.text += c.text;
        }
        column += width;
        i += c.bytes;
    }
    if (i >= line.size()) {
        mark();
    } else {
        out.text += kCut;
    }
    if (!caret_set) out.caret = column;  // past the window: cannot happen, but never misplace it
    if (!end_set) out.caret_end = column;
    out.end_column = column;
    return out;
}

std::string location(const detail::Span& span) {
    if (!span.known) return span.file;
    return span.file + ":" + std::to_string(span.line) + ":" + std::to_string(span.column);
}

// The source line and a caret/tilde underline over the range; a range that spans lines is
// underlined to the end of its first line. `insertion` (a fix-it's text) goes on a third line.
std::string snippet(const SourceManager& sources, const detail::Span& span, const Style& style,
                    const std::string* insertion = nullptr, std::uint32_t insertion_offset = 0) {
    if (!span.known) return "";
    std::string_view line = sources.line_text(span.file_id, span.line);
    std::uint32_t line_start = sources.line_start(span.file_id, span.line);
    auto in_line = [&](std::uint32_t offset) -> std::size_t {
        return offset < line_start ? 0 : std::min<std::size_t>(offset - line_start, line.size());
    };
    std::size_t begin = in_line(span.begin_offset);
    std::size_t end = span.end_line == span.line ? in_line(span.end_offset) : line.size();
    std::optional<std::size_t> insert;
    if (insertion) insert = in_line(insertion_offset);
    Window shown = window(line, begin, std::max(begin, end), insert);

    std::string underline(shown.caret, ' ');
    underline += '^';
    if (shown.caret_end > shown.caret + 1)
        underline += std::string(shown.caret_end - shown.caret - 1, '~');

    std::string number = std::to_string(span.line);
    std::string gutter = " " + std::string(number.size(), ' ') + " | ";
    std::string out = " " + number + " | " + shown.text + "\n";
    out += gutter + style.wrap("1;32", underline) + "\n";
    if (insertion && shown.insertion) {
        // The fix-it's text is cut like the line, so a long replacement stays one short line.
        const auto widest = static_cast<std::uint32_t>(kMaxShownColumns + 2 * kCut.size());
        std::uint32_t room = widest > *shown.insertion + 1 ? widest - *shown.insertion : 1;
        std::string text = *insertion;
        if (text.size() > room + kCut.size()) {
            std::size_t keep = room;
            while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) --keep;
            text = text.substr(0, keep) + std::string(kCut);
        }
        out += gutter + std::string(*shown.insertion, ' ') + style.wrap("1;32", text) + "\n";
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
        out += snippet(sources, span, style, insertion, fix.begin_offset);
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

namespace rop {

std::string render_text(const RunFailure& failure) {
    return "ropc: " + std::string(to_string(Severity::Fatal)) + ": " + failure.message + " [" +
           std::string(diag_info(DiagId::UnreadableFile).code) + "]\n";
}

}  // namespace rop
