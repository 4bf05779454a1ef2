// Comments survive `ropc fmt`: own-line ones stay on their lines, trailing ones after their
// statement (aligned per block), ones inside a statement after their argument or just before
// the statement. Their text is never changed, except for trailing spaces.
#include <catch2/catch_test_macros.hpp>
#include <string>

#include "format_util.h"

using rop::test::fmt;

TEST_CASE("own-line comments keep their place and the blank lines around them", "[format]") {
    const std::string input =
        "# file comment\n# second line   \n\npipeline p;\n  // slash comment, indented\n"
        "use \"a.hpp\";\n\n\n# before the stages\n\na = map x with f;\n# at the end\n";
    CHECK(fmt(input) ==
          "# file comment\n# second line\n\npipeline p;\n// slash comment, indented\n"
          "use \"a.hpp\";\n\n# before the stages\n\na = map x with f;\n# at the end\n");
}

TEST_CASE("trailing comments: two spaces after the longest line of their block", "[format]") {
    const std::string input =
        "pipeline p; # header\nuse \"a.hpp\";\n\na = map x with f; # short\n"
        "longer = map a with g batch 8;# long\nc = map a with h;\n\nsink c -> s;   # alone\n";
    CHECK(fmt(input) ==
          "pipeline p;  # header\nuse \"a.hpp\";\n\n"
          "a      = map x with f;          # short\n"
          "longer = map a with g batch 8;  # long\n"
          "c      = map a with h;\n\n"
          "sink c -> s;  # alone\n");
}

TEST_CASE("a comment after an argument keeps the argument list wrapped", "[format]") {
    const std::string input =
        "pipeline p;\na = map x with f(k: 1, # the k\n  j: [1,\n 2], l: 3) batch 2; # end\n";
    const std::string expected =
        "pipeline p;\n"
        "a = map x with f(k: 1,  # the k\n"
        "                 j: [1, 2],\n"
        "                 l: 3) batch 2;  # end\n";
    CHECK(fmt(input) == expected);
    CHECK(fmt(expected) == expected);
}

TEST_CASE("a comment after the last argument becomes the trailing comment", "[format]") {
    CHECK(fmt("pipeline p;\na = map x with f(k: 1, j: 2  # about j\n);\n") ==
          "pipeline p;\na = map x with f(k: 1, j: 2);  # about j\n");
    // ... unless the statement has one: then it moves before the statement.
    CHECK(fmt("pipeline p;\na = map x with f(k: 1  # about k\n); # end\n") ==
          "pipeline p;\n# about k\na = map x with f(k: 1);  # end\n");
}

TEST_CASE("other comments inside a statement move just before it, in order", "[format]") {
    const std::string input =
        "pipeline # name next\n p;\n\na = reduce x # one\n  to Doc # two\n  with f;\n"
        "use # path next\n \"a.hpp\";\n";
    const std::string expected =
        "# name next\npipeline p;\n\n# one\n# two\na = reduce x to Doc with f;\n"
        "# path next\nuse \"a.hpp\";\n";
    CHECK(fmt(input) == expected);
    CHECK(fmt(expected) == expected);
}

TEST_CASE("a comment character inside a string is not a comment", "[format]") {
    CHECK(fmt("pipeline p;\nuse \"a#b.hpp\";  # c\n") == "pipeline p;\nuse \"a#b.hpp\";  # c\n");
}
