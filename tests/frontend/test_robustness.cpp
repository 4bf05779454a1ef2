// Robustness: seeded random bytes, random token soup and pathological nesting must never
// crash, hang or produce a diagnostic outside the file; every renderer must cope with the
// result. Fast: a few thousand small inputs.
#include <catch2/catch_test_macros.hpp>
#include <nlohmann/json.hpp>
#include <random>

#include "frontend/dump.h"
#include "frontend/lexer.h"
#include "test_util.h"

using namespace rop;

namespace {

// `render_all` also renders and parses back JSON and SARIF: slow in a Debug build, so the random
// loops do it for every 16th input only.
void check_sane(const std::string& text, bool render_all = true) {
    SourceManager sm;
    FileId f = sm.add_buffer("r.rop", text);
    DiagnosticEngine engine(sm);
    ast::Program program = parse(f, sm, engine);
    auto diags = engine.finish();
    for (const Diagnostic& d : diags) {
        REQUIRE(d.range.begin <= d.range.end);
        REQUIRE(d.range.end <= text.size());
        if (d.fixit) REQUIRE(d.fixit->range.end <= text.size());
    }
    CHECK((diags.empty() || !render_text(sm, diags).empty()));
    if (!render_all) return;
    CHECK_NOTHROW(nlohmann::json::parse(dump_ast_json(program, sm)));
    CHECK_NOTHROW(nlohmann::json::parse(render_json(sm, diags)));
    CHECK_NOTHROW(nlohmann::json::parse(render_sarif(sm, diags, "test")));
}

}  // namespace

TEST_CASE("frontend: random byte strings never crash the front end", "[frontend]") {
    std::mt19937 rng(20261130);
    std::uniform_int_distribution<int> length(0, 200);
    std::uniform_int_distribution<int> byte(0, 255);
    for (int i = 0; i < 1000; ++i) {
        std::string text(static_cast<std::size_t>(length(rng)), '\0');
        for (char& c : text) c = static_cast<char>(byte(rng));
        check_sane(text, i % 16 == 0);
    }
}

TEST_CASE("frontend: random token soup never crashes the parser", "[frontend]") {
    static const char* vocabulary[] = {"pipeline",
                                       "use",
                                       "source",
                                       "sink",
                                       "map",
                                       "filter",
                                       "expand",
                                       "broadcast",
                                       "reduce",
                                       "as",
                                       "to",
                                       "with",
                                       "true",
                                       "false",
                                       "x",
                                       "std",
                                       "batch",
                                       ";",
                                       ":",
                                       "=",
                                       "(",
                                       ")",
                                       "[",
                                       "]",
                                       ",",
                                       ".",
                                       "->",
                                       "?",
                                       "\"s\"",
                                       "\"\\q",
                                       "42",
                                       "-1",
                                       "1.5",
                                       "30s",
                                       "1.5s",
                                       "#c\n",
                                       "\n",
                                       "\t",
                                       "@",
                                       "99999999999999999999",
                                       "\"\\u{D800}\""};
    constexpr std::size_t kWords = sizeof(vocabulary) / sizeof(vocabulary[0]);
    std::mt19937 rng(7);
    std::uniform_int_distribution<std::size_t> pick(0, kWords - 1);
    std::uniform_int_distribution<int> length(0, 60);
    for (int i = 0; i < 2000; ++i) {
        std::string text = i % 2 ? "pipeline p;\n" : "";
        for (int n = length(rng); n > 0; --n) text += std::string(vocabulary[pick(rng)]) + " ";
        check_sane(text, i % 16 == 0);
    }
}

TEST_CASE("frontend: pathological nesting and length stay bounded", "[frontend]") {
    const std::size_t n = 50'000;
    check_sane("pipeline p;\na = map x with f(l: " + std::string(n, '[') + ");");
    check_sane("pipeline p;\na = map x with f(l: " + std::string(n, '[') + std::string(n, ']') +
               ");");
    check_sane(std::string(n, '('));
    check_sane(std::string(n, ';'));
    check_sane("pipeline p;\n" + std::string(n, 'a'));
    check_sane("pipeline p;\n\"" + std::string(n, '\\'));
    check_sane(std::string(n, '@'));

    auto p = test::parse_text("pipeline p;\na = map x with f(l: " + std::string(n, '[') + ");\n");
    CHECK(test::ids_at(*p) == std::vector<std::string>{"E0015@2:53"});  // one error, not n
}

TEST_CASE("frontend: a file of invalid bytes yields one diagnostic per run", "[frontend]") {
    auto p = test::parse_text(std::string(1000, '\xff'));
    // One E0001 for the run, plus the missing header.
    CHECK(test::ids_at(*p) == std::vector<std::string>{"E0012@1:1", "E0001@1:1"});
}
