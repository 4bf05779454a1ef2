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

TEST_CASE("frontend: every format counts columns in characters, fix-its included", "[frontend]") {
    SourceManager sm;
    // "é" is two bytes and one column, "中" three bytes, one column and two terminal cells.
    auto f =
        sm.add_buffer("u.rop", "pipeline p;\n\xc3\xa9 = map b with f\n\xe4\xb8\xad = map b;\n");
    Diagnostic d{DiagId::ExpectedToken, Severity::Error, find(sm, f, "map"), "m", {}, {}};
    d.fixit = FixIt{find(sm, f, "f"), "g"};
    Diagnostic wide{DiagId::ExpectedToken,
                    Severity::Error,
                    find(sm, f, "map", sm.text(f).find("\xe4")),
                    "w",
                    {},
                    {}};
    CHECK(render_text(sm, {d, wide}) ==
          "u.rop:2:5: error: m [E0010]\n"
          " 2 | \xc3\xa9 = map b with f\n"
          "   |     ^~~\n"
          "   |                g\n"
          "fix-it:\"u.rop\":{2:16-2:17}:\"g\"\n"
          "u.rop:3:5: error: w [E0010]\n"
          " 3 | \xe4\xb8\xad = map b;\n"
          "   |      ^~~\n"  // under "map": the wide character takes two cells
          "2 errors generated.\n");

    json j = json::parse(render_json(sm, {d}))[0];
    CHECK(j["column"] == 5);
    CHECK(j["end_column"] == 8);
    CHECK(j["fixit"]["column"] == 16);
    CHECK(j["fixit"]["end_column"] == 17);
    json region = json::parse(render_sarif(
        sm, {d}, "t"))["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"];
    CHECK(region == json{{"startLine", 2}, {"startColumn", 5}, {"endLine", 2}, {"endColumn", 8}});
}

TEST_CASE("frontend: text renderer shows bytes that are not UTF-8 as one '?' each", "[frontend]") {
    SourceManager sm;
    auto f = sm.add_buffer("b.rop", "\xff\xfe = map x;\n");
    std::vector<Diagnostic> diags{
        {DiagId::ExpectedToken, Severity::Error, find(sm, f, "map"), "m", {}, {}}};
    CHECK(render_text(sm, diags) ==
          "b.rop:1:6: error: m [E0010]\n"
          " 1 | ?? = map x;\n"
          "   |      ^~~\n"
          "1 error generated.\n");
}

TEST_CASE("frontend: text renderer cuts a long line to a window around the caret", "[frontend]") {
    SourceManager sm;
    std::string line = std::string(300, 'a') + " bad " + std::string(300, 'b');
    auto f = sm.add_buffer("w.rop", line + "\n");
    std::vector<Diagnostic> diags{
        {DiagId::ExpectedToken, Severity::Error, find(sm, f, "bad"), "m", {}, {}}};
    // 40 columns before the caret, 120 in all, "..." where the line goes on.
    CHECK(render_text(sm, diags) ==
          "w.rop:1:302: error: m [E0010]\n"
          " 1 | ..." +
              std::string(39, 'a') + " bad " + std::string(76, 'b') + "...\n" + "   | " +
              std::string(43, ' ') + "^~~\n" + "1 error generated.\n");
}

TEST_CASE("frontend: text renderer cuts only the start of a long line whose end is the caret",
          "[frontend]") {
    SourceManager sm;
    auto f = sm.add_buffer("e.rop", std::string(200, 'x') + "\nnext\n");
    Diagnostic d{DiagId::ExpectedToken, Severity::Error, {f, 200, 200}, "m", {}, {}};
    d.fixit = FixIt{{f, 200, 200}, ";"};
    CHECK(render_text(sm, {d}) ==
          "e.rop:1:201: error: m [E0010]\n"
          " 1 | ..." +
              std::string(40, 'x') + "\n" + "   | " + std::string(43, ' ') + "^\n" + "   | " +
              std::string(43, ' ') + ";\n" +
              "fix-it:\"e.rop\":{1:201-1:201}:\";\"\n"
              "1 error generated.\n");
}

TEST_CASE("frontend: text renderer keeps the start of a long line when the caret is near it",
          "[frontend]") {
    SourceManager sm;
    auto f = sm.add_buffer("s.rop", "bad " + std::string(500, 'z'));
    Diagnostic d{DiagId::ExpectedToken,
                 Severity::Error,
                 find(sm, f, "bad " + std::string(200, 'z')),
                 "m",
                 {},
                 {}};
    CHECK(render_text(sm, {d}) ==
          "s.rop:1:1: error: m [E0010]\n"
          " 1 | bad " +
              std::string(116, 'z') + "...\n" + "   | ^" + std::string(119, '~') +
              "\n" +  // the underline stops where the text does
              "1 error generated.\n");
}

TEST_CASE("frontend: text output stays small for diagnostics on a megabyte-long line",
          "[frontend]") {
    SourceManager sm;
    std::string line;
    for (int i = 0; i < 100'000; ++i) line += "opt" + std::to_string(i) + " 1 ";
    auto f = sm.add_buffer("huge.rop", line);
    std::vector<Diagnostic> diags;
    for (std::uint32_t at = 0; at < line.size();
         at += static_cast<std::uint32_t>(line.size() / 1000)) {
        diags.push_back({first_warning(), Severity::Warning, {f, at, at + 3}, "w", {}, {}});
    }
    std::string out = render_text(sm, diags);
    // About 300 bytes a diagnostic, however long the line: a million before the window.
    CHECK(out.size() < diags.size() * 400);
}

TEST_CASE("frontend: JSON and SARIF carry a file that could not be read", "[frontend]") {
    SourceManager sm;
    std::vector<RunFailure> failures{
        {"gone dir/x.rop", "cannot read 'gone dir/x.rop': No such file or directory"}};
    json items = json::parse(render_json(sm, {}, failures));
    REQUIRE(items.size() == 1);
    CHECK(items[0]["id"] == "F0002");
    CHECK(items[0]["severity"] == "fatal error");
    CHECK(items[0]["file"] == "gone dir/x.rop");
    CHECK(items[0]["message"] == "cannot read 'gone dir/x.rop': No such file or directory");
    CHECK_FALSE(items[0].contains("line"));

    json run = json::parse(render_sarif(sm, {}, "t", failures))["runs"][0];
    CHECK(run["results"].empty());
    REQUIRE(run["invocations"].size() == 1);
    const json& invocation = run["invocations"][0];
    CHECK(invocation["executionSuccessful"] == false);
    REQUIRE(invocation["toolExecutionNotifications"].size() == 1);
    const json& note = invocation["toolExecutionNotifications"][0];
    CHECK(note["level"] == "error");
    CHECK(note["message"]["text"] == "cannot read 'gone dir/x.rop': No such file or directory");
    CHECK(note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] ==
          "gone%20dir/x.rop");
    CHECK(note["associatedRule"]["id"] == "F0002");
    CHECK(
        run["tool"]["driver"]["rules"][note["associatedRule"]["index"].get<std::size_t>()]["id"] ==
        "F0002");

    CHECK(render_text(failures[0]) ==
          "ropc: fatal error: cannot read 'gone dir/x.rop': No such file or directory [F0002]\n");
}

TEST_CASE("frontend: SARIF says a run without failures executed successfully", "[frontend]") {
    SourceManager sm;
    auto f = sm.add_buffer("e.rop", "x\n");
    std::vector<Diagnostic> diags{{DiagId::ExpectedToken, Severity::Error, {f, 0, 1}, "a", {}, {}}};
    // Errors in the input are results; the tool still ran to the end.
    for (const auto& list : {std::vector<Diagnostic>{}, diags}) {
        json invocation = json::parse(render_sarif(sm, list, "t"))["runs"][0]["invocations"][0];
        CHECK(invocation["executionSuccessful"] == true);
        CHECK_FALSE(invocation.contains("toolExecutionNotifications"));
    }
}
