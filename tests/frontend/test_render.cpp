// The three renderers: exact GCC/Clang-shaped text, and JSON/SARIF parsed back and checked.
#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <nlohmann/json.hpp>

#include "support/diagnostics.h"

using namespace rop;
using nlohmann::json;

namespace {

// `needle`'s byte range in the buffer, for writing ranges by eye.
SourceRange find(const SourceManager& sm, FileId f, std::string_view needle, std::size_t from = 0) {
    auto at = static_cast<std::uint32_t>(sm.text(f).find(needle, from));
    return {f, at, at + static_cast<std::uint32_t>(needle.size())};
}

DiagId first_warning() {
    for (const DiagInfo& info : diag_catalog()) {
        if (info.severity == Severity::Warning) return info.id;
    }
    FAIL("the catalogue has no warning");
    return DiagId::ExpectedToken;
}

}  // namespace

TEST_CASE(
    "frontend: text renderer prints file:line:col and the source line and a caret with tildes",
    "[frontend]") {
    SourceManager sm;
    auto f = sm.add_buffer("p.rop", "pipeline p;\nocr = map pagez with ocr;\n");
    std::vector<Diagnostic> diags{
        {DiagId::ExpectedToken, Severity::Error, find(sm, f, "pagez"), "bad stream", {}, {}}};
    CHECK(render_text(sm, diags) ==
          "p.rop:2:11: error: bad stream [E0010]\n"
          " 2 | ocr = map pagez with ocr;\n"
          "   |           ^~~~~\n"
          "1 error generated.\n");
}

TEST_CASE("frontend: text renderer prints nothing for no diagnostics", "[frontend]") {
    SourceManager sm;
    CHECK(render_text(sm, {}).empty());
}

TEST_CASE("frontend: text renderer lines the caret up under tabs", "[frontend]") {
    SourceManager sm;
    auto f = sm.add_buffer("t.rop", "\tx =\tmap y;\n");
    std::vector<Diagnostic> diags{
        {DiagId::ExpectedToken, Severity::Error, find(sm, f, "map"), "m", {}, {}}};
    // Tabs expand to stops of 8 in both the source line and the underline.
    CHECK(render_text(sm, diags) ==
          "t.rop:1:6: error: m [E0010]\n"
          " 1 |         x =     map y;\n"
          "   |                 ^~~\n"
          "1 error generated.\n");
}

TEST_CASE("frontend: text renderer underlines a multi-line range to the end of its first line",
          "[frontend]") {
    SourceManager sm;
    auto f = sm.add_buffer("m.rop", "a = map b\n  with c;\n");
    SourceRange r{f, 4, static_cast<std::uint32_t>(sm.text(f).find(';'))};
    std::vector<Diagnostic> diags{{DiagId::ExpectedToken, Severity::Error, r, "m", {}, {}}};
    CHECK(render_text(sm, diags) ==
          "m.rop:1:5: error: m [E0010]\n"
          " 1 | a = map b\n"
          "   |     ^~~~~\n"
          "1 error generated.\n");
}

TEST_CASE("frontend: text renderer prints notes and fix-its and the summary", "[frontend]") {
    SourceManager sm;
    auto f = sm.add_buffer("n.rop", "pipeline p;\na = map b with f\nc = map a with g;\n");
    Diagnostic missing{DiagId::ExpectedToken,
                       Severity::Error,
                       {f, 28, 28},
                       "expected ';' after statement, found identifier 'c'",
                       {},
                       {}};
    missing.fixit = FixIt{{f, 28, 28}, ";"};
    missing.notes.push_back({find(sm, f, "a = map b with f"), "statement started here"});
    missing.notes.push_back({std::nullopt, "every statement ends with ';'"});
    Diagnostic warning{first_warning(), Severity::Warning, find(sm, f, "c"), "unused", {}, {}};
    CHECK(render_text(sm, {missing, warning}) ==
          "n.rop:2:17: error: expected ';' after statement, found identifier 'c' [E0010]\n"
          " 2 | a = map b with f\n"
          "   |                 ^\n"
          "   |                 ;\n"
          "fix-it:\"n.rop\":{2:17-2:17}:\";\"\n"
          "n.rop:2:1: note: statement started here\n"
          " 2 | a = map b with f\n"
          "   | ^~~~~~~~~~~~~~~~\n"
          "n.rop:2:17: note: every statement ends with ';'\n"
          "n.rop:3:1: warning: unused [" +
              std::string(diag_info(first_warning()).code) +
              "]\n"
              " 3 | c = map a with g;\n"
              "   | ^\n"
              "1 error, 1 warning generated.\n");
}

TEST_CASE("frontend: text renderer pluralizes the summary and counts fatal as error",
          "[frontend]") {
    SourceManager sm;
    auto f = sm.add_buffer("s.rop", "x\n");
    std::vector<Diagnostic> diags{{DiagId::ExpectedToken, Severity::Error, {f, 0, 1}, "a", {}, {}},
                                  {DiagId::TooManyErrors, Severity::Fatal, {f, 0, 1}, "b", {}, {}}};
    std::string text = render_text(sm, diags);
    CHECK(text.find("s.rop:1:1: fatal error: b [F0001]\n") != std::string::npos);
    CHECK(text.substr(text.size() - 20) == "2 errors generated.\n");
}

TEST_CASE("frontend: text renderer colors on request only", "[frontend]") {
    SourceManager sm;
    auto f = sm.add_buffer("c.rop", "x\n");
    std::vector<Diagnostic> diags{{DiagId::ExpectedToken, Severity::Error, {f, 0, 1}, "a", {}, {}}};
    CHECK(render_text(sm, diags, false).find('\033') == std::string::npos);
    CHECK(render_text(sm, diags, true).find("\033[1;31merror:\033[0m") != std::string::npos);
}

TEST_CASE("frontend: text renderer escapes control bytes in the shown line", "[frontend]") {
    SourceManager sm;
    auto f = sm.add_buffer("z.rop", std::string("a\0b\x1b c", 6));
    std::vector<Diagnostic> diags{
        {DiagId::InvalidCharacter, Severity::Error, {f, 5, 6}, "m", {}, {}}};
    CHECK(render_text(sm, diags) ==
          "z.rop:1:6: error: m [E0001]\n"
          " 1 | a?b? c\n"
          "   |      ^\n"
          "1 error generated.\n");
}

TEST_CASE("frontend: JSON renderer round-trips every field", "[frontend]") {
    SourceManager sm;
    auto f = sm.add_buffer("j.rop", "pipeline p;\na = map b with f\n");
    Diagnostic d{DiagId::ExpectedToken, Severity::Error, find(sm, f, "map"), "msg", {}, {}};
    d.notes.push_back({find(sm, f, "b"), "note with range"});
    d.notes.push_back({std::nullopt, "note without"});
    d.fixit = FixIt{{f, 28, 28}, ";"};
    json out = json::parse(render_json(sm, {d}));
    REQUIRE(out.is_array());
    REQUIRE(out.size() == 1);
    const json& j = out[0];
    CHECK(j["id"] == "E0010");
    CHECK(j["severity"] == "error");
    CHECK(j["file"] == "j.rop");
    CHECK(j["line"] == 2);
    CHECK(j["column"] == 5);
    CHECK(j["end_line"] == 2);
    CHECK(j["end_column"] == 8);
    CHECK(j["message"] == "msg");
    REQUIRE(j["notes"].size() == 2);
    CHECK(j["notes"][0]["message"] == "note with range");
    CHECK(j["notes"][0]["column"] == 9);
    CHECK_FALSE(j["notes"][1].contains("line"));
    CHECK(j["fixit"]["replacement"] == ";");
    CHECK(j["fixit"]["line"] == 2);
    CHECK(j["fixit"]["column"] == 17);

    CHECK(json::parse(render_json(sm, {})) == json::array());
}

TEST_CASE("frontend: SARIF renderer writes a valid 2.1.0 log", "[frontend]") {
    SourceManager sm;
    auto f = sm.add_buffer("dir/s s.rop", "pipeline p;\n\xc3\xa9 = map b with f\n");
    Diagnostic d{DiagId::ExpectedToken, Severity::Error, find(sm, f, "map"), "msg", {}, {}};
    d.notes.push_back({find(sm, f, "b"), "here"});
    d.fixit = FixIt{find(sm, f, "f"), "g"};
    Diagnostic w{first_warning(), Severity::Warning, find(sm, f, "b"), "w", {}, {}};
    json log = json::parse(render_sarif(sm, {d, w}, "1.2.3"));

    CHECK(log["version"] == "2.1.0");
    CHECK(log["$schema"].get<std::string>().find("sarif") != std::string::npos);
    REQUIRE(log["runs"].size() == 1);
    const json& run = log["runs"][0];
    const json& driver = run["tool"]["driver"];
    CHECK(driver["name"] == "ropc");
    CHECK(driver["version"] == "1.2.3");
    REQUIRE(driver["rules"].size() == diag_catalog().size());
    for (std::size_t i = 0; i < diag_catalog().size(); ++i) {
        CHECK(driver["rules"][i]["id"] == diag_catalog()[i].code);
        CHECK(driver["rules"][i]["shortDescription"]["text"] == diag_catalog()[i].summary);
    }

    REQUIRE(run["results"].size() == 2);
    const json& r = run["results"][0];
    CHECK(r["ruleId"] == "E0010");
    CHECK(driver["rules"][r["ruleIndex"].get<std::size_t>()]["id"] == "E0010");
    CHECK(r["level"] == "error");
    CHECK(r["message"]["text"] == "msg");
    const json& loc = r["locations"][0]["physicalLocation"];
    CHECK(loc["artifactLocation"]["uri"] == "dir/s%20s.rop");
    // "é" is two bytes but one code point: byte column 6 is code point column 5.
    CHECK(loc["region"] ==
          json{{"startLine", 2}, {"startColumn", 5}, {"endLine", 2}, {"endColumn", 8}});
    CHECK(r["relatedLocations"][0]["message"]["text"] == "here");
    CHECK(r["relatedLocations"][0]["physicalLocation"]["region"]["startColumn"] == 9);
    const json& change = r["fixes"][0]["artifactChanges"][0];
    CHECK(change["replacements"][0]["insertedContent"]["text"] == "g");
    CHECK(change["replacements"][0]["deletedRegion"]["startColumn"] == 16);
    CHECK(run["results"][1]["level"] == "warning");
    CHECK(run["columnKind"] == "unicodeCodePoints");
}
