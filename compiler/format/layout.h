// How one statement of a .rop file is written in canonical form (docs/build.md, `ropc fmt`):
// its text split where an argument list may wrap, and the rule that decides whether it wraps.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/ast.h"
#include "support/source_manager.h"

namespace rop::format {

// Lines wrap at this many characters (the project's C++ column limit, .clang-format).
inline constexpr std::size_t kLineLimit = 100;

// A statement in pieces: `head` up to the operator's '(' (or the whole statement without its
// ';' when the operator has no parentheses), one piece per argument, and the `tail` from ')'
// on, ';' included. The left-hand side of a stage is kept apart so that consecutive stages can
// align their '='.
struct StatementText {
    std::string lhs;   // a stage's `name` or `(a, b)`; empty for other statements
    std::string head;  // `map pages with std.ocr.Tesseract` (after "lhs = "), or `sink x -> op`
    bool has_parens = false;
    std::vector<std::string> args;  // `lang: "eng"`
    std::string tail;               // ` batch 4 actors 2;` (options, then ';')
};

// The pieces of one statement (or of the header). Literals keep their spelling from `text`
// (the file's text): `"a\n"`, `1.50`, `30s` are written as they were.
StatementText statement_text(const ast::Statement& statement, std::string_view text);
StatementText header_text(const ast::PipelineDecl& header);

// One statement laid out. `lhs_width` pads a stage's left-hand side (to align '=' with its
// neighbours). `arg_comments[i]`, when not empty, is a comment that follows argument i; any
// such comment, or a line over kLineLimit, puts each argument on its own line, aligned after
// the '(' (only when there are at least two arguments).
std::vector<std::string> lay_out(const StatementText& statement, std::size_t lhs_width,
                                 const std::vector<std::string>& arg_comments);

// Width of `line` in characters (code points), as SourceManager counts columns.
std::size_t display_width(std::string_view line);

}  // namespace rop::format
