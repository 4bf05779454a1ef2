// The diagnostic catalogue and engine: ids, ordering, deduplication, the error cap, -Werror.
#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <regex>
#include <set>

#include "support/diagnostics.h"

using namespace rop;

namespace {

DiagId first_with(Severity severity) {
    const auto& catalog = diag_catalog();
    auto it = std::find_if(catalog.begin(), catalog.end(),
                           [&](const DiagInfo& i) { return i.severity == severity; });
    REQUIRE(it != catalog.end());
    return it->id;
}

}  // namespace

TEST_CASE("frontend: catalogue ids are unique and well formed and found by code", "[frontend]") {
    std::set<std::string_view> codes;
    std::set<std::string_view> names;
    std::regex shape("[EWF][0-9]{4}");
    for (const DiagInfo& info : diag_catalog()) {
        INFO(info.code);
        CHECK(codes.insert(info.code).second);
        CHECK(names.insert(info.name).second);
        CHECK(std::regex_match(std::string(info.code), shape));
        CHECK_FALSE(info.summary.empty());
        CHECK(&diag_info(info.id) == &info);
        CHECK(diag_by_code(info.code) == info.id);
    }
    CHECK(diag_info(DiagId::ExpectedToken).code == "E0010");
    CHECK(diag_info(DiagId::TooManyErrors).severity == Severity::Fatal);
    CHECK_FALSE(diag_by_code("E9999"));
    CHECK_FALSE(diag_by_code(""));
}

TEST_CASE("frontend: engine sorts by file and offset and keeps report order at one spot",
          "[frontend]") {
    SourceManager sm;
    auto a = sm.add_buffer("a.rop", "0123456789");
    auto b = sm.add_buffer("b.rop", "0123456789");
    DiagnosticEngine engine(sm);
    engine.report(DiagId::ExpectedToken, {b, 1, 2}, "b1");
    engine.report(DiagId::ExpectedToken, {a, 5, 6}, "a5");
    engine.report(DiagId::ExpectedValue, {a, 1, 2}, "a1 first");
    engine.report(DiagId::ExpectedToken, {a, 1, 2}, "a1 second");
    auto diags = engine.finish();
    REQUIRE(diags.size() == 4);
    CHECK(diags[0].message == "a1 first");
    CHECK(diags[1].message == "a1 second");
    CHECK(diags[2].message == "a5");
    CHECK(diags[3].message == "b1");
}

TEST_CASE("frontend: engine drops exact duplicates even when not adjacent", "[frontend]") {
    SourceManager sm;
    auto f = sm.add_buffer("a.rop", "0123456789");
    DiagnosticEngine engine(sm);
    engine.report(DiagId::ExpectedToken, {f, 1, 2}, "same");
    engine.report(DiagId::ExpectedValue, {f, 1, 2}, "other");
    engine.report(DiagId::ExpectedToken, {f, 1, 2}, "same");
    engine.report(DiagId::ExpectedToken, {f, 1, 3}, "same");  // another range: kept
    auto diags = engine.finish();
    REQUIRE(diags.size() == 3);
    CHECK(diags[0].message == "same");
    CHECK(diags[1].message == "other");
    CHECK(diags[2].range.end == 3);
    CHECK(engine.error_count() == 4);  // counts are of reports; finish() is the view
}

TEST_CASE("frontend: engine caps errors at max_errors and appends one F0001", "[frontend]") {
    SourceManager sm;
    auto f = sm.add_buffer("a.rop", "0123456789");
    DiagnosticEngine engine(sm);
    engine.set_max_errors(2);
    DiagId warning = first_with(Severity::Warning);
    for (std::uint32_t i = 0; i < 5; ++i) engine.report(DiagId::ExpectedToken, {f, i, i + 1}, "e");
    engine.report(warning, {f, 0, 1}, "w");
    auto diags = engine.finish();
    REQUIRE(diags.size() == 4);
    CHECK(diags[0].id == DiagId::ExpectedToken);
    CHECK(diags[1].id == warning);  // warnings do not count toward the cap
    CHECK(diags[2].id == DiagId::ExpectedToken);
    CHECK(diags[3].id == DiagId::TooManyErrors);
    CHECK(diags[3].severity == Severity::Fatal);
    CHECK(diags[3].range.begin == 2);  // where the cut happened
    CHECK(diags[3].message == "too many errors emitted, stopping now (limit 2)");

    engine.set_max_errors(0);  // no cap
    CHECK(engine.finish().size() == 6);
}

TEST_CASE("frontend: -Werror promotes warnings to errors", "[frontend]") {
    SourceManager sm;
    auto f = sm.add_buffer("a.rop", "x");
    DiagnosticEngine engine(sm);
    engine.report(first_with(Severity::Warning), {f, 0, 1}, "w");
    CHECK_FALSE(engine.has_errors());
    CHECK(engine.warning_count() == 1);
    CHECK(engine.finish()[0].severity == Severity::Warning);

    engine.set_warnings_as_errors(true);
    CHECK(engine.has_errors());
    CHECK(engine.error_count() == 1);
    CHECK(engine.warning_count() == 0);
    CHECK(engine.finish()[0].severity == Severity::Error);
}

TEST_CASE("frontend: report returns the diagnostic for notes and fix-its", "[frontend]") {
    SourceManager sm;
    auto f = sm.add_buffer("a.rop", "abc");
    DiagnosticEngine engine(sm);
    Diagnostic& d = engine.report(DiagId::ExpectedToken, {f, 1, 2}, "m");
    d.notes.push_back({SourceRange{f, 0, 1}, "here"});
    d.fixit = FixIt{{f, 3, 3}, ";"};
    auto diags = engine.finish();
    REQUIRE(diags[0].notes.size() == 1);
    CHECK(diags[0].fixit->replacement == ";");
    CHECK(diags[0].severity == Severity::Error);
    CHECK(std::string(to_string(Severity::Fatal)) == "fatal error");
}
