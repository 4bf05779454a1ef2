// Names and graph: undefined and duplicate streams, use before definition, Domains, sources and
// feedback loops, each row with its exact diagnostic id and line:col.
#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "sema_test_util.h"

using rop::test::at;
using rop::test::run_sema;

namespace {

struct Row {
    std::string name;
    std::string text;
    std::vector<std::string> errors;
};

void check_rows(const std::vector<Row>& rows) {
    for (const Row& row : rows) {
        INFO(row.name << "\n" << row.text);
        const auto run = run_sema(row.text);
        REQUIRE(run.parsed_cleanly);
        CHECK(run.found() == row.errors);
    }
}

const std::string kHead = "pipeline p;\nsource docs : Doc = std.files(glob: \"x\");\n";

}  // namespace

TEST_CASE("names are defined once and before use", "[sema][names]") {
    check_rows({
        {"clean", kHead + "a = map docs with f;\nsink a -> out;\n", {}},
        {"undefined input", kHead + "a = map dcos with f;\nsink a -> out;\n", {at("E0100", 3, 9)}},
        {"undefined in a list",
         kHead + "a = map (docs, zzz) with f;\nsink a -> out;\n",
         {at("E0100", 3, 16)}},
        {"undefined in a sink", kHead + "sink (docs, nope) -> out;\n", {at("E0100", 3, 13)}},
        {"every undefined use",
         kHead + "a = map x with f;\nb = map x with f;\nsink (a, b) -> o;\n",
         {at("E0100", 3, 9), at("E0100", 4, 9)}},
        {"duplicate stage",
         kHead + "a = map docs with f;\na = map docs with g;\nsink a -> o;\n",
         {at("E0101", 4, 1)}},
        {"stage shadows source",
         kHead + "docs = map docs with f;\nsink docs -> o;\n",
         {at("E0101", 3, 1)}},
        {"duplicate in one multi-output",
         kHead + "(a, b, a) = map docs with f;\nsink (a, b) -> o;\n",
         {at("E0101", 3, 8)}},
        {"use before definition",
         kHead + "b = map a with g;\na = map docs with f;\nsink b -> o;\n",
         {at("E0102", 3, 9)}},
        {"sink before definition",
         kHead + "sink a -> o;\na = map docs with f;\n",
         {at("E0102", 3, 6)}},
    });
}

TEST_CASE("did-you-mean suggests the nearest stream", "[sema][names]") {
    const auto run = run_sema(
        kHead + "pages = expand docs as Page with s;\nx = map pgaes with f;\nsink x -> o;\n");
    REQUIRE(run.diagnostics.size() == 1);
    REQUIRE(run.diagnostics[0].fixit.has_value());
    CHECK(run.diagnostics[0].fixit->replacement == "pages");
    const auto far = run_sema(kHead + "x = map completely_else with f;\nsink x -> o;\n");
    REQUIRE(far.diagnostics.size() == 1);
    CHECK_FALSE(far.diagnostics[0].fixit.has_value());
}

TEST_CASE("Domains are declared before use", "[sema][names]") {
    const std::string pages = "pages = expand docs as Page with s;\n";
    check_rows({
        {"broadcast to known",
         kHead + pages + "h = broadcast docs to Page;\nsink (pages, h) -> o;\n",
         {}},
        {"broadcast to unknown",
         kHead + pages + "h = broadcast docs to Pgae;\nsink (pages, h) -> o;\n",
         {at("E0103", 4, 23)}},
        {"reduce to unknown",
         kHead + pages + "r = reduce pages to Document;\nsink r -> o;\n",
         {at("E0103", 4, 21)}},
        {"broadcast before expand",
         kHead + "h = broadcast docs to Page;\n" + pages + "sink (pages, h) -> o;\n",
         {at("E0104", 3, 23)}},
        {"no source and an undefined sink input",
         "pipeline p;\nsink x -> o;\n",
         {at("E0105", 1, 1), at("E0100", 2, 6)}},
    });
}

TEST_CASE("one source / one root Domain", "[sema][names]") {
    check_rows({
        {"no source", "pipeline p;\n", {at("E0105", 1, 1)}},
        {"no source, only use", "pipeline p;\nuse \"a.hpp\";\n", {at("E0105", 1, 1)}},
        {"two sources",
         kHead + "source more : Doc = std.files(glob: \"y\");\nsink (docs, more) -> o;\n",
         {at("E0106", 3, 1)}},
        {"three sources",
         kHead + "source b : B = s;\nsource c : C = s;\nsink (docs, b, c) -> o;\n",
         {at("E0106", 3, 1), at("E0106", 4, 1)}},
    });
}

TEST_CASE("feedback loops are outside the model", "[sema][graph]") {
    check_rows({
        {"self loop", kHead + "a = map (docs, a?) with f;\nsink a -> o;\n", {at("E0400", 3, 16)}},
        {"two-statement loop",
         kHead + "a = map (docs, b?) with f;\nb = map a with g;\nsink b -> o;\n",
         {at("E0400", 3, 16)}},
        {"loop plus a plain forward use",
         kHead + "z = map y with h;\na = map (docs, b?) with f;\nb = map a with g;\ny = map docs "
                 "with f;\nsink (z, b) -> o;\n",
         {at("E0102", 3, 9), at("E0400", 4, 16)}},
        {"two separate loops",
         kHead + "a = map (docs, a?) with f;\nb = map (docs, b?) with f;\nsink (a, b) -> o;\n",
         {at("E0400", 3, 16), at("E0400", 4, 16)}},
        {"loop through a Domain",
         kHead +
             "pages = expand h as Page with s;\nh = broadcast docs to Page;\nsink pages -> o;\n",
         {at("E0400", 3, 16)}},
    });
}

TEST_CASE("a loop is printed as one note per edge", "[sema][graph]") {
    const auto run = run_sema(
        kHead + "a = map (docs, c?) with f;\nb = map a with g;\nc = map b with h;\nsink c -> o;\n");
    REQUIRE(run.diagnostics.size() == 1);
    const auto& notes = run.diagnostics[0].notes;
    REQUIRE(notes.size() == 3);
    std::vector<unsigned> lines;
    for (const auto& note : notes) {
        REQUIRE(note.range.has_value());
        lines.push_back(run.sources->line_col(note.range->file, note.range->begin).line);
    }
    CHECK(lines == std::vector<unsigned>{4, 5, 3});  // a -> b -> c -> a, in data-flow order
}

TEST_CASE("unused streams warn / '_' names stay quiet", "[sema][lint]") {
    const auto run = run_sema(
        kHead +
        "a = map docs with f;\n_b = map docs with f;\n(c, d) = map docs with g;\nsink c -> o;\n");
    CHECK(run.found(rop::Severity::Warning) ==
          std::vector<std::string>{at("W0001", 3, 1), at("W0001", 5, 5)});
    CHECK(run.program.has_value());
    const auto promoted = run_sema(kHead + "a = map docs with f;\nsink docs -> o;\n", true);
    CHECK(promoted.found() == std::vector<std::string>{at("W0001", 3, 1)});
    CHECK_FALSE(promoted.program.has_value());
}
