// cpp_identifier and IdentifierScope: keywords, reserved spellings (`_X`, `__x`), odd bytes,
// duplicates; then every identifier handed out is declared in a file the host compiler accepts.
#include <catch2/catch_test_macros.hpp>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "codegen/escape.h"
#include "host_compiler.h"

namespace rop::codegen {
namespace {

bool is_safe_identifier(const std::string& id) {
    if (id.empty() || id.front() == '_' || (id.front() >= '0' && id.front() <= '9')) return false;
    if (id.find("__") != std::string::npos) return false;
    for (char c : id) {
        bool ok =
            (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        if (!ok) return false;
    }
    return true;
}

TEST_CASE("cpp_identifier maps .rop names to safe identifiers", "[codegen][identifier]") {
    CHECK(cpp_identifier("ocr") == "ocr");
    CHECK(cpp_identifier("fix_hyphens") == "fix_hyphens");
    CHECK(cpp_identifier("class") == "class_");
    CHECK(cpp_identifier("and") == "and_");
    CHECK(cpp_identifier("co_await") == "co_await_");
    CHECK(cpp_identifier("main") == "main_");
    CHECK(cpp_identifier("assert") == "assert_");
    CHECK(cpp_identifier("linux") == "linux_");
    CHECK(cpp_identifier("_X") == "X");
    CHECK(cpp_identifier("__x") == "x");
    CHECK(cpp_identifier("a__b") == "a_b");
    CHECK(cpp_identifier("std.pdf.render") == "std_pdf_render");
    CHECK(cpp_identifier("a-b c") == "a_b_c");
    CHECK(cpp_identifier("3d") == "r3d");
    CHECK(cpp_identifier("") == "unnamed");
    CHECK(cpp_identifier("___") == "unnamed");
    CHECK(cpp_identifier("caf\xc3\xa9") == "caf_");
    CHECK(cpp_identifier("_class") == "class_");
}

TEST_CASE("IdentifierScope keeps identifiers unique and stable", "[codegen][identifier]") {
    IdentifierScope scope;
    scope.reserve("make_pipeline");
    CHECK(scope.get("a-b") == "a_b");
    CHECK(scope.get("a_b") == "a_b_2");
    CHECK(scope.get("a b") == "a_b_3");
    CHECK(scope.get("a-b") == "a_b");  // the same name, the same identifier
    CHECK(scope.get("make_pipeline") == "make_pipeline_2");
    CHECK(scope.get("class") == "class_");
    CHECK(scope.get("class_") == "class_2");  // not `class__2`: no `__`
    CHECK(scope.get("a_b_2") == "a_b_2_2");

    // The same requests in the same order give the same identifiers.
    IdentifierScope again;
    again.reserve("make_pipeline");
    CHECK(again.get("a-b") == "a_b");
    CHECK(again.get("a_b") == "a_b_2");
}

TEST_CASE("IdentifierScope identifiers compile, for keywords, odd and random names",
          "[codegen][identifier][host]") {
    std::vector<std::string> names = {
        "class",    "int",    "and",    "or",   "not",  "xor",   "bitand", "compl", "final",
        "override", "import", "module", "main", "std",  "rop",   "NULL",   "EOF",   "errno",
        "assert",   "linux",  "unix",   "_X",   "__x",  "_",     "x_",     "x__",   "3",
        "a-b",      "a_b",    "a b",    "",     "\xff", "class_"};
    std::mt19937 random(7);
    std::uniform_int_distribution<int> length(0, 12);
    std::uniform_int_distribution<int> any_byte(0, 255);
    for (int i = 0; i < 500; ++i) {
        std::string name;
        for (int n = length(random); n > 0; --n) name += static_cast<char>(any_byte(random));
        names.push_back(name);
    }

    IdentifierScope scope;
    std::set<std::string> seen;
    std::set<std::string> distinct_names(names.begin(), names.end());
    std::string program = "// Every identifier IdentifierScope handed out, declared once.\n";
    for (const std::string& name : names) {
        std::string id = scope.get(name);
        INFO("name bytes: " << cpp_string_literal(name) << " -> " << id);
        CHECK(is_safe_identifier(id));
        if (seen.insert(id).second) program += "[[maybe_unused]] static int " + id + " = 0;\n";
    }
    CHECK(seen.size() == distinct_names.size());
    program += "int main() { return 0; }\n";

    namespace t = rop::codegen::test;
    auto dir = t::work_dir("identifiers_compile");
    t::write_file(dir / "identifiers.cpp", program);
    auto compiled = t::run_command(t::host_cxx() + " -std=gnu++20 -fsyntax-only -Wall -Werror " +
                                       t::shell_quote((dir / "identifiers.cpp").string()),
                                   dir / "compile.log");
    INFO(compiled.output);
    CHECK(compiled.exit_code == 0);
}

}  // namespace
}  // namespace rop::codegen
