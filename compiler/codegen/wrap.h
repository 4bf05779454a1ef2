// Lays a generated C++ expression out within the column limit: an expression is a tree of brace
// or parenthesis lists whose items are packed onto lines and aligned after their opening bracket
// (clang-format's bin packing), so generated lines stay under 100 columns.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace rop::codegen {

// The longest line the generator writes (when no single token is longer).
inline constexpr std::size_t kColumnLimit = 99;

// `text` (a leaf), or `open` items... `close` with the items separated by ", ".
struct Expr {
    std::string open;  // a leaf's whole text; a list's opening: "f(", "{", ".options = {"
    std::vector<Expr> items;
    std::string close;  // ")", "}"
    bool is_list = false;
};

Expr leaf(std::string text);
Expr list(std::string open, std::vector<Expr> items, std::string close);

// The expression on one line.
std::string flat(const Expr& expr);

// Where a laid-out expression goes: it starts at `column` (0-based), `trail` characters follow
// it on its last line (a `;`), and the printer indents every continuation line by `indent`
// itself, so the text holds only the padding beyond it. When `continuation_line` is not empty
// (a `#line` directive) it is printed before every continuation line, so that each line of a
// wrapped UDF call maps to the same `.rop` line.
struct Placement {
    std::size_t column = 0;
    std::size_t indent = 0;
    std::size_t trail = 0;
    std::string continuation_line;
};

// `expr` on one line when it fits, else its lists broken after their items.
std::string layout(const Expr& expr, const Placement& at);

}  // namespace rop::codegen
