// Printer: substitution, `$$`, dedent, nested blocks and their indentation, the errors (template
// name, line, variable) and byte-for-byte determinism.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "codegen/printer.h"

namespace rop::codegen {
namespace {

using Catch::Matchers::Equals;

std::string fill(std::string_view text, const std::vector<Printer::Var>& vars = {}) {
    Printer printer;
    printer.emit("unit", text, vars);
    return printer.take();
}

TEST_CASE("printer substitutes string and integer variables", "[codegen][printer]") {
    CHECK(fill("int $name$ = $value$;", {{"name", "answer"}, {"value", 42}}) ==
          "int answer = 42;\n");
    CHECK(fill("$a$$b$", {{"a", "x"}, {"b", "y"}}) == "xy\n");
    CHECK(fill("$a$ and $a$", {{"a", "twice"}}) == "twice and twice\n");
}

TEST_CASE("printer writes $$ as a literal dollar and never rescans values", "[codegen][printer]") {
    CHECK(fill("cost: $$$amount$ $$", {{"amount", 5}}) == "cost: $5 $\n");
    CHECK(fill("$v$", {{"v", "$not_a_var$"}}) == "$not_a_var$\n");
}

TEST_CASE("printer dedents a raw-string template", "[codegen][printer]") {
    std::string out = fill(R"tmpl(
        struct S {
            int x;
          
            int y;
        };
    )tmpl");
    CHECK(out == "struct S {\n    int x;\n\n    int y;\n};\n");
    // No blank first line to drop: the text is taken as is, still dedented.
    CHECK(fill("  a\n    b\n") == "a\n  b\n");
    CHECK(fill("") == "");
}

TEST_CASE("printer nests callback blocks at the indentation of their line", "[codegen][printer]") {
    Printer printer;
    auto body = [&] { printer.emit("body", "return;"); };
    auto members = [&] {
        printer.emit("member", R"tmpl(
            int $field$ = 0;
            void f() {
                $body$
            }
        )tmpl",
                     {{"field", "size"}, {"body", body}});
    };
    printer.emit("outer", R"tmpl(
        namespace n {
        class $name$ {
            $members$
        };
        }  // namespace n
    )tmpl",
                 {{"name", "Box"}, {"members", members}});
    CHECK_THAT(printer.output(), Equals("namespace n {\n"
                                        "class Box {\n"
                                        "    int size = 0;\n"
                                        "    void f() {\n"
                                        "        return;\n"
                                        "    }\n"
                                        "};\n"
                                        "}  // namespace n\n"));
}

TEST_CASE("printer continues a multi-line string value at its line's indentation",
          "[codegen][printer]") {
    CHECK(fill("{\n    $stmts$\n}", {{"stmts", "a();\nb();\n\nc();"}}) ==
          "{\n    a();\n    b();\n\n    c();\n}\n");
}

TEST_CASE("printer inlines a callback inside a line without its final newline",
          "[codegen][printer]") {
    Printer printer;
    printer.emit("call", "f($args$);", {{"args", [&] { printer.emit("args", "1, 2"); }}});
    CHECK(printer.output() == "f(1, 2);\n");
}

TEST_CASE("printer drops a line whose only variable expands to nothing", "[codegen][printer]") {
    Printer printer;
    printer.emit("optional", R"tmpl(
        a;
            $nothing$
        $empty_block$
        b;
    )tmpl",
                 {{"nothing", ""}, {"empty_block", [] {}}});
    CHECK(printer.output() == "a;\nb;\n");
}

TEST_CASE("printer lets nested templates see the enclosing variables", "[codegen][printer]") {
    Printer printer;
    printer.emit("outer", "$inner$",
                 {{"type", "int"}, {"inner", [&] { printer.emit("inner", "$type$ x;"); }}});
    CHECK(printer.output() == "int x;\n");
}

TEST_CASE("printer counts output lines for #line directives", "[codegen][printer]") {
    Printer printer;
    CHECK(printer.line() == 1);
    printer.emit("three", "a\nb\nc");
    CHECK(printer.line() == 4);
    printer.emit("block", "{\n    $here$\n}",
                 {{"here", [&] { printer.print("at " + std::to_string(printer.line())); }}});
    CHECK(printer.output() == "a\nb\nc\n{\n    at 5\n}\n");
}

TEST_CASE("printer tells a callback its column and indentation, for wrapping",
          "[codegen][printer]") {
    Printer printer;
    std::vector<std::size_t> seen;
    auto record = [&] {
        seen.push_back(printer.column());
        seen.push_back(printer.indent());
        printer.print("x\ny");  // a continuation line gets the indentation again
    };
    printer.emit("block", "{\n    auto v = $call$;\n    $alone$\n}",
                 {{"call", record}, {"alone", record}});
    CHECK(seen == std::vector<std::size_t>{13, 4, 4, 4});
    CHECK(printer.output() == "{\n    auto v = x\n    y;\n    x\n    y\n}\n");
    printer.take();
    CHECK(printer.column() == 0);
}

TEST_CASE("printer reports an unknown variable with template, line and name",
          "[codegen][printer]") {
    Printer printer;
    try {
        printer.emit("pipeline_main.cpp.tmpl", R"tmpl(
            int main() {
                return $nmae$;
            }
        )tmpl",
                     {{"name", "0"}});
        FAIL("no CodegenError");
    } catch (const CodegenError& error) {
        CHECK(error.template_name() == "pipeline_main.cpp.tmpl");
        CHECK(error.line() == 3);
        CHECK(error.variable() == "nmae");
        CHECK_THAT(error.what(), Equals("codegen template 'pipeline_main.cpp.tmpl', line 3: "
                                        "unknown variable '$nmae$'"));
    }
    CHECK(printer.output().empty());  // nothing half-printed
}

TEST_CASE("printer reports an unterminated or malformed variable", "[codegen][printer]") {
    try {
        fill("ok\ncost $5");
        FAIL("no CodegenError");
    } catch (const CodegenError& error) {
        CHECK(error.line() == 2);
        CHECK_THAT(error.what(),
                   Equals("codegen template 'unit', line 2: unterminated variable '$5' "
                          "(no closing '$' on the line)"));
    }
    CHECK_THROWS_AS(fill("$a b$", {{"a b", "x"}}), CodegenError);
    CHECK_THROWS_AS(fill("$9a$"), CodegenError);
    // A variable never spans lines.
    CHECK_THROWS_AS(fill("$a\n$", {{"a", "x"}}), CodegenError);
}

TEST_CASE("printer rejects a callback that uses its own variable", "[codegen][printer]") {
    Printer printer;
    Printer::Callback self = [&] { printer.emit("inner", "again: $self$"); };
    try {
        printer.emit("outer", "$self$", {{"self", self}});
        FAIL("no CodegenError");
    } catch (const CodegenError& error) {
        CHECK(error.template_name() == "inner");
        CHECK(error.variable() == "self");
        CHECK_THAT(error.what(), Equals("codegen template 'inner', line 1: callback variable "
                                        "'$self$' used inside itself"));
    }
}

TEST_CASE("printer reads a CRLF template like an LF one", "[codegen][printer]") {
    CHECK(fill("\r\n  a $x$\r\n    b\r\n", {{"x", 1}}) == "a 1\n  b\n");
}

TEST_CASE("printer rejects a variable given twice", "[codegen][printer]") {
    CHECK_THROWS_AS(fill("$a$", {{"a", "x"}, {"a", "y"}}), CodegenError);
}

TEST_CASE("printer output is deterministic", "[codegen][printer]") {
    auto render = [](bool reversed) {
        Printer printer;
        std::vector<Printer::Var> vars = {{"a", "1"}, {"b", "2"}, {"c", "3"}};
        if (reversed) vars = {{"c", "3"}, {"b", "2"}, {"a", "1"}};
        for (int i = 0; i < 50; ++i) printer.emit("det", "  $a$ $b$\n    $c$", vars);
        return printer.take();
    };
    std::string first = render(false);
    CHECK(first == render(false));
    CHECK(first == render(true));
}

TEST_CASE("template_variables lists the variables a template uses", "[codegen][printer]") {
    CHECK(template_variables("t", "$b$ $a$ $$ $b$\n$c$") ==
          std::vector<std::string>{"a", "b", "c"});
    CHECK_THROWS_AS(template_variables("t", "$open"), CodegenError);
}

}  // namespace
}  // namespace rop::codegen
