// The document: entries (entries.h) in source order, one statement per line group, blank lines
// where the source had any (at most one), '=' aligned across a block of consecutive stages and
// trailing comments aligned across a block. Then the result is parsed again and compared with
// the input, as Black does, so a bug in the printer can never rewrite a user's pipeline.
#include "format/format.h"

#include <algorithm>
#include <stdexcept>

#include "format/entries.h"
#include "format/layout.h"
#include "format/structure.h"
#include "frontend/lexer.h"
#include "frontend/parser.h"

namespace rop::format {

namespace {

using detail::Entry;

std::string comment_text(SourceRange range, std::string_view text) {
    std::string_view comment = text.substr(range.begin, range.end - range.begin);
    while (!comment.empty() && (comment.back() == ' ' || comment.back() == '\t')) {
        comment.remove_suffix(1);
    }
    return std::string(comment);
}

bool blank_before(const std::vector<Entry>& entries, std::size_t i) {
    return i > 0 && entries[i].first_line > entries[i - 1].last_line + 1;
}

bool is_stage(const Entry& entry) {
    return entry.statement && std::holds_alternative<ast::Stage>(*entry.statement);
}

// One statement's lines, without its trailing comment.
std::vector<std::string> statement_lines(const Entry& entry, std::size_t lhs_width,
                                         std::string_view text) {
    StatementText pieces =
        entry.header ? header_text(*entry.header) : statement_text(*entry.statement, text);
    std::vector<std::string> arg_comments;
    for (const auto& comment : entry.arg_comments) {
        arg_comments.push_back(comment ? comment_text(*comment, text) : "");
    }
    return lay_out(pieces, lhs_width, arg_comments);
}

std::string print(const std::vector<Entry>& entries, std::string_view text) {
    // '=' alignment: a group is a run of stages with no blank line and no other statement
    // between them (own-line comments do not end it).
    std::vector<std::size_t> lhs_width(entries.size(), 0);
    for (std::size_t begin = 0; begin < entries.size();) {
        std::size_t end = begin;
        std::size_t width = 0;
        while (end < entries.size() && (end == begin || !blank_before(entries, end)) &&
               (is_stage(entries[end]) || entries[end].comment)) {
            if (is_stage(entries[end])) {
                width = std::max(width, statement_text(*entries[end].statement, text).lhs.size());
            }
            ++end;
        }
        for (std::size_t i = begin; i < end; ++i) lhs_width[i] = width;
        begin = std::max(end, begin + 1);
    }

    std::vector<std::vector<std::string>> lines(entries.size());
    for (std::size_t i = 0; i < entries.size(); ++i) {
        if (entries[i].comment) {
            lines[i] = {comment_text(*entries[i].comment, text)};
        } else {
            lines[i] = statement_lines(entries[i], lhs_width[i], text);
        }
    }

    // Trailing comments: aligned two columns after the longest line that has one, per block
    // of entries between blank lines.
    for (std::size_t begin = 0; begin < entries.size();) {
        std::size_t end = begin + 1;
        while (end < entries.size() && !blank_before(entries, end)) ++end;
        std::size_t column = 0;
        for (std::size_t i = begin; i < end; ++i) {
            if (entries[i].trailing) column = std::max(column, display_width(lines[i].back()) + 2);
        }
        for (std::size_t i = begin; i < end; ++i) {
            if (!entries[i].trailing) continue;
            std::string& last = lines[i].back();
            last += std::string(column - display_width(last), ' ');
            last += comment_text(*entries[i].trailing, text);
        }
        begin = end;
    }

    std::string out;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        if (blank_before(entries, i)) out += "\n";
        for (const SourceRange& comment : entries[i].hoisted) {
            out += comment_text(comment, text) + "\n";
        }
        for (const std::string& line : lines[i]) out += line + "\n";
    }
    return out;
}

// Every comment's text, sorted: the formatter moves comments but never drops or changes one.
std::vector<std::string> comment_texts(const std::vector<SourceRange>& comments,
                                       std::string_view text) {
    std::vector<std::string> out;
    for (const SourceRange& comment : comments) out.push_back(comment_text(comment, text));
    std::sort(out.begin(), out.end());
    return out;
}

void verify(const ast::Program& program, const std::vector<SourceRange>& comments,
            const SourceManager& sources, const std::string& formatted) {
    SourceManager again;
    FileId file = again.add_buffer(sources.name(program.file), formatted);
    DiagnosticEngine diags(again);
    ast::Program reparsed = parse(file, again, diags);
    std::vector<SourceRange> new_comments;
    DiagnosticEngine lex_diags(again);
    lex(file, again, lex_diags, &new_comments);
    const std::string what = "ropc fmt: the canonical text of '" + sources.name(program.file);
    if (diags.has_errors()) throw std::logic_error(what + "' does not parse");
    if (structure(reparsed, again) != structure(program, sources)) {
        throw std::logic_error(what + "' parses to a different program");
    }
    if (comment_texts(new_comments, formatted) !=
        comment_texts(comments, sources.text(program.file))) {
        throw std::logic_error(what + "' lost or changed a comment");
    }
}

}  // namespace

std::optional<std::string> format_file(FileId file, const SourceManager& sources,
                                       DiagnosticEngine& diags) {
    ast::Program program = parse(file, sources, diags);
    if (diags.has_errors()) return std::nullopt;
    DiagnosticEngine lex_diags(sources);  // already reported by parse()
    std::vector<SourceRange> comments;
    std::vector<Token> tokens = lex(file, sources, lex_diags, &comments);
    std::string formatted =
        print(detail::entries(program, tokens, comments, sources), sources.text(file));
    verify(program, comments, sources, formatted);
    return formatted;
}

std::optional<std::size_t> first_different_line(std::string_view a, std::string_view b) {
    std::size_t line = 1;
    while (true) {
        std::size_t a_end = a.find('\n');
        std::size_t b_end = b.find('\n');
        if (a.substr(0, a_end) != b.substr(0, b_end) || (a_end == a.npos) != (b_end == b.npos)) {
            return line;
        }
        if (a_end == a.npos) return std::nullopt;
        a.remove_prefix(a_end + 1);
        b.remove_prefix(b_end + 1);
        ++line;
    }
}

}  // namespace rop::format
