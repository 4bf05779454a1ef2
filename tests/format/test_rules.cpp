// The layout rules of `ropc fmt` (docs/build.md), one table row per rule: input -> output.
#include <catch2/catch_test_macros.hpp>
#include <string>

#include "format_util.h"

using rop::test::fmt;

namespace {

struct Row {
    const char* rule;
    std::string input;
    std::string expected;
};

const std::string kHead = "pipeline p;\n";

}  // namespace

TEST_CASE("each layout rule, input to canonical output", "[format]") {
    const std::vector<Row> rows = {
        {"single spaces between words, none inside brackets", "pipeline   p ;\nuse  \"a.hpp\" ;\n",
         "pipeline p;\nuse \"a.hpp\";\n"},
        {"source: spaces around ':' and '=', none before an argument's ':'",
         kHead + "source d:Doc=std.io.Files( glob :\"in/*\" );\n",
         kHead + "source d : Doc = std.io.Files(glob: \"in/*\");\n"},
        {"stage with parenthesized inputs, an optional input and options",
         kHead + "a=map(x ,y ?)with f batch 4 actors   2;\n",
         kHead + "a = map (x, y?) with f batch 4 actors 2;\n"},
        {"expand, broadcast, reduce with and without an operator",
         kHead + "a = expand d as  Page with s;\nb =broadcast t to Page;\nc = reduce a to Doc;\n",
         kHead + "a = expand d as Page with s;\nb = broadcast t to Page;\nc = reduce a to Doc;\n"},
        {"'=' aligned across consecutive stages",
         kHead + "a = map x with f;\nlonger = map a with g;\n(p, q)=map a with h;\n",
         kHead + "a      = map x with f;\nlonger = map a with g;\n(p, q) = map a with h;\n"},
        {"a blank line starts a new alignment group",
         kHead + "a = map x with f;\n\nlonger = map a with g;\n",
         kHead + "a = map x with f;\n\nlonger = map a with g;\n"},
        {"a statement other than a stage ends the alignment group",
         kHead + "a = map x with f;\nsink a -> s;\nlonger = map a with g;\n",
         kHead + "a = map x with f;\nsink a -> s;\nlonger = map a with g;\n"},
        {"an own-line comment does not end the alignment group",
         kHead + "a = map x with f;\n# c\nlonger = map a with g;\n",
         kHead + "a      = map x with f;\n# c\nlonger = map a with g;\n"},
        {"blank lines: at most one kept, none at the start or the end",
         "\n\n" + kHead + "\n\n\nuse \"a.hpp\";\n\n\n", kHead + "\nuse \"a.hpp\";\n"},
        {"no blank line is added where there was none", kHead + "use \"a.hpp\"; use \"b.hpp\";\n",
         kHead + "use \"a.hpp\";\nuse \"b.hpp\";\n"},
        {"a statement over several lines is joined when it fits",
         kHead + "a = map x\n    with f(k: 1,\n           j: 2)\n    batch 4\n;\n",
         kHead + "a = map x with f(k: 1, j: 2) batch 4;\n"},
        {"literals keep their spelling; lists get ', ' and lose a trailing comma",
         kHead + "a = map x with f(s: \"\\u{e9}\\n\", r: 1.50, t: 30s, n: -3, b: true, "
                 "l: [a,b , [1,],],);\n",
         kHead + "a = map x with f(s: \"\\u{e9}\\n\", r: 1.50, t: 30s, n: -3, b: true, "
                 "l: [a, b, [1]]);\n"},
        {"empty parentheses stay, no parentheses stay none",
         kHead + "a = map x with f( );\nb = map x with g;\n",
         kHead + "a = map x with f();\nb = map x with g;\n"},
        {"one output or sink input in parentheses loses them",
         kHead + "(a) = map x with f;\nsink (a) -> s;\nsink (a,b) -> t;\n",
         kHead + "a = map x with f;\nsink a -> s;\nsink (a, b) -> t;\n"},
        {"a qualified name loses its spaces", kHead + "a = map x with std . text . read;\n",
         kHead + "a = map x with std.text.read;\n"},
        {"CRLF line ends become LF", "pipeline p;\r\nuse \"a.hpp\";\r\n",
         "pipeline p;\nuse \"a.hpp\";\n"},
        {"a missing final newline is added", "pipeline p;", "pipeline p;\n"},
    };
    for (const Row& row : rows) {
        INFO(row.rule);
        CHECK(fmt(row.input) == row.expected);
        CHECK(fmt(row.expected) == row.expected);  // the expected text is canonical itself
    }
}

TEST_CASE("an argument list wraps one argument per line past 100 columns", "[format]") {
    // 100 columns exactly stays on one line; one more wraps, aligned after the '('.
    const std::string fits = "a = map x with f(first: \"" + std::string(49, 'x') +
                             "\", second: \"" + std::string(11, 'y') + "\");";
    REQUIRE(fits.size() == 100);
    CHECK(fmt(kHead + fits + "\n") == kHead + fits + "\n");

    const std::string input = "a = map x with f(first: \"" + std::string(50, 'x') +
                              "\", second: \"" + std::string(11, 'y') + "\");\n";
    const std::string wrapped = "a = map x with f(first: \"" + std::string(50, 'x') + "\",\n" +
                                std::string(17, ' ') + "second: \"" + std::string(11, 'y') +
                                "\");\n";
    CHECK(fmt(kHead + input) == kHead + wrapped);
    CHECK(fmt(kHead + wrapped) == kHead + wrapped);

    // With '=' alignment the padding counts, and the continuation lines follow the '('.
    const std::string aligned = "longer = map x with g;\n";
    CHECK(fmt(kHead + input + aligned) ==
          kHead + "a      = map x with f(first: \"" + std::string(50, 'x') + "\",\n" +
              std::string(22, ' ') + "second: \"" + std::string(11, 'y') + "\");\n" + aligned);

    // A single argument never wraps, however long.
    const std::string one = "a = map x with f(first: \"" + std::string(120, 'x') + "\");\n";
    CHECK(fmt(kHead + one) == kHead + one);
}

TEST_CASE("width counts characters, not bytes", "[format]") {
    // 100 characters, 150 bytes: 50 two-byte letters in the string.
    std::string letters;
    for (int i = 0; i < 50; ++i) letters += "\xc3\xa9";
    const std::string line =
        "a = map x with f(first: \"" + letters + "\", second: \"" + std::string(10, 'y') + "\");";
    CHECK(fmt(kHead + line + "\n") == kHead + line + "\n");
}
