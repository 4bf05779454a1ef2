// Escaping for everything that travels from a .rop file into generated C++: string literals,
// identifiers, `//` comments and `#line` directives. Nothing from a .rop file reaches C++ raw.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>

namespace rop::codegen {

// A C++ narrow string literal (quotes included) whose bytes are exactly `bytes`, whatever they
// are: quotes, backslashes, control bytes, NUL, invalid UTF-8. Printable ASCII stays readable;
// every `?` is escaped (no trigraph, ever), a `*` before `/` is escaped (no `*/` to end an
// enclosing comment), every other byte becomes a three-digit octal escape (never greedy, unlike
// `\x`).
std::string cpp_string_literal(std::string_view bytes);

// Text safe inside a `//` comment on one line: control bytes, non-ASCII bytes and backslashes
// are written as `\ooo` / `\\`, so no newline, line splice or `*/` comes through.
std::string cpp_comment_text(std::string_view text);

// `#line N "file"` (no trailing newline) with the file name escaped as a string literal.
// Throws std::invalid_argument for a line outside 1..2147483647 (the range C++ allows).
std::string line_directive(std::string_view file, std::uint32_t line);

// A valid, non-reserved C++ identifier derived from a .rop name: bytes outside [A-Za-z0-9_]
// become `_`, runs of `_` collapse to one (no `__`), leading `_` go (no `_X`), a leading digit
// gets an `r` in front, and keywords, alternative tokens and well-known macros (`class`, `and`,
// `assert`, `linux` ...) get a trailing `_`. Not injective: use IdentifierScope for uniqueness.
std::string cpp_identifier(std::string_view name);

// Hands out unique identifiers in one C++ scope, deterministically (by order of request).
class IdentifierScope {
  public:
    // Blocks an identifier the generated code uses itself (`main`, `make_pipeline`).
    void reserve(std::string_view identifier);
    // The identifier for a .rop name: the same name always gets the same identifier; different
    // names always get different ones (`a-b` -> `a_b`, then `a_b` -> `a_b_2`).
    const std::string& get(std::string_view rop_name);

  private:
    std::map<std::string, std::string, std::less<>> by_name_;
    std::set<std::string, std::less<>> used_;
};

}  // namespace rop::codegen
