// layout(): generated expressions packed within the column limit, aligned after their opening,
// with a `#line` before every continuation line when asked (so a wrapped UDF call keeps mapping
// to its .rop line).
#include <catch2/catch_test_macros.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/wrap.h"

namespace rop::codegen {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

Placement place(std::size_t column, std::size_t indent, std::size_t trail = 0,
                std::string continuation_line = "") {
    return {.column = column,
            .indent = indent,
            .trail = trail,
            .continuation_line = std::move(continuation_line)};
}

std::vector<Expr> words(std::size_t n, std::size_t width) {
    std::vector<Expr> items;
    for (std::size_t i = 0; i < n; ++i) {
        items.push_back(leaf(std::string(width - 1, static_cast<char>('a' + i % 26)) + "0"));
    }
    return items;
}

TEST_CASE("an expression that fits stays on one line", "[codegen][wrap]") {
    Expr call = list("f(", {leaf("a"), list("{", {leaf("1"), leaf("2")}, "}")}, ")");
    CHECK(flat(call) == "f(a, {1, 2})");
    CHECK(layout(call, place(8, 8, 1)) == "f(a, {1, 2})");
    CHECK(flat(list("g(", {}, ")")) == "g()");
    // Exactly at the limit still fits; one more column does not.
    Expr wide = leaf(std::string(kColumnLimit - 10, 'x'));
    CHECK(layout(list("(", {wide}, ")"), place(8, 8)) == flat(list("(", {wide}, ")")));
}

TEST_CASE("a long list packs its items and aligns them after the opening", "[codegen][wrap]") {
    Expr call = list("call(", words(12, 12), ");");
    const std::string text = layout(call, place(4, 4));
    const std::vector<std::string> lines = lines_of(text);
    REQUIRE(lines.size() > 1);
    CHECK(lines[0].starts_with("call(aaaaaaaaaaa0, "));
    INFO(text);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        // The first line starts at column 4; the printer indents the others by 4 itself.
        CHECK(4 + lines[i].size() <= kColumnLimit);
        if (i == 0) continue;
        // Aligned after `call(`, at column 9: 5 columns of padding.
        REQUIRE(lines[i].size() > 5);
        CHECK(lines[i].substr(0, 5) == "     ");
        CHECK(lines[i][5] != ' ');
    }
    CHECK(lines.back().ends_with(");"));
    // Nothing lost or reordered: the text without breaks and padding is the flat form.
    std::string joined;
    for (const std::string& line : lines) {
        std::string_view piece = line;
        if (!joined.empty()) piece.remove_prefix(piece.find_first_not_of(' '));
        joined += (joined.empty() ? "" : " ") + std::string(piece);
    }
    CHECK(joined == flat(call));
}

TEST_CASE("the trailing characters count against the last line", "[codegen][wrap]") {
    // `f(a..., b...)`, 98 columns: it fits alone, not with a `);` of 2 after it.
    Expr call = list("f(", {leaf(std::string(46, 'a')), leaf(std::string(47, 'b'))}, ")");
    REQUIRE(flat(call).size() == kColumnLimit - 1);
    CHECK(lines_of(layout(call, place(0, 0, 0))).size() == 1);
    CHECK(lines_of(layout(call, place(0, 0, 1))).size() == 1);
    CHECK(lines_of(layout(call, place(0, 0, 2))) ==
          std::vector<std::string>{"f(" + std::string(46, 'a') + ",",
                                   "  " + std::string(47, 'b') + ")"});
}

TEST_CASE("a long opening breaks after itself", "[codegen][wrap]") {
    const std::string callee = "::some::deeply::nested::name_space::with_a_long_function_name(";
    Expr call = list(callee, words(4, 20), ")");
    const std::vector<std::string> lines = lines_of(layout(call, place(22, 8)));
    REQUIRE(lines.size() >= 2);
    CHECK(lines[0] == callee);
    // Continuation at indentation + 4: the printer's 8 plus 4 of padding.
    CHECK(lines[1].starts_with("    aaaaaaaaaaaaaaaaaaa0, "));
}

TEST_CASE("every continuation line can be preceded by a #line", "[codegen][wrap]") {
    const std::string directive = "#line 12 \"p.rop\"";
    Expr call = list("f(", words(12, 20), ")");
    const std::vector<std::string> lines = lines_of(layout(call, place(8, 8, 1, directive)));
    REQUIRE(lines.size() == 5);  // three lines of four items, two directives
    CHECK(lines[0].starts_with("f("));
    for (std::size_t i = 1; i + 1 < lines.size(); i += 2) {
        CHECK(lines[i] == directive);
        CHECK(lines[i + 1].starts_with("  "));  // aligned after `f(`: column 10
    }
}

}  // namespace
}  // namespace rop::codegen
