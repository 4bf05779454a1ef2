// --emit=ast: the JSON dump of the syntax tree, parsed back and checked.
#include <catch2/catch_test_macros.hpp>
#include <nlohmann/json.hpp>

#include "frontend/dump.h"
#include "test_util.h"

using namespace rop;
using nlohmann::json;

TEST_CASE("frontend: AST dump gives every node its kind and range", "[frontend]") {
    auto p = test::parse_text(
        "pipeline t;\n(a, b) = map (x, y?) with f(k: [1, 2]) batch 4 timeout 2s;\n");
    REQUIRE(p->diags.empty());
    json j = json::parse(dump_ast_json(p->program, p->sources));
    CHECK(j["kind"] == "Program");
    CHECK(j["file"] == "t.rop");
    CHECK(j["header"]["range"] == "1:1-1:11");
    CHECK(j["header"]["name"]["name"] == "t");
    REQUIRE(j["statements"].size() == 1);
    const json& s = j["statements"][0];
    CHECK(s["kind"] == "Stage");
    CHECK(s["stage"] == "map");
    CHECK(s["range"] == "2:1-2:58");
    CHECK(s["stage_range"] == "2:10-2:13");
    CHECK(s["outputs"][1]["name"] == "b");
    CHECK(s["outputs"][1]["range"] == "2:5-2:6");
    CHECK(s["inputs"][1] ==
          json{{"kind", "InputRef"}, {"range", "2:18-2:20"}, {"name", "y"}, {"optional", true}});
    CHECK(s["parenthesized_inputs"] == true);
    CHECK(s["domain"].is_null());
    CHECK(s["op"]["name"] == "f");
    CHECK(s["op"]["range"] == "2:27-2:39");
    CHECK(s["op"]["args"][0]["value"]["type"] == "list");
    CHECK(s["op"]["args"][0]["value"]["items"][1]["value"] == 2);
    CHECK(s["options"][1]["name"]["name"] == "timeout");
    CHECK(s["options"][1]["value"]["millis"] == 2000);
}

TEST_CASE("frontend: AST dump of every statement kind", "[frontend]") {
    auto p = test::parse_text(
        "pipeline t;\nuse \"u.hpp\";\nsource d : Doc = std.files(glob: \"*\");\n"
        "p = expand d as Page with split;\nsink p -> std.out;\n");
    REQUIRE(p->diags.empty());
    json j = json::parse(dump_ast_json(p->program, p->sources));
    REQUIRE(j["statements"].size() == 4);
    CHECK(j["statements"][0]["kind"] == "Use");
    CHECK(j["statements"][0]["path"] == "u.hpp");
    CHECK(j["statements"][1]["kind"] == "Source");
    CHECK(j["statements"][1]["domain"]["name"] == "Doc");
    CHECK(j["statements"][2]["domain"]["range"] == "4:17-4:21");
    CHECK(j["statements"][3]["kind"] == "Sink");
    CHECK(j["statements"][3]["op"]["has_parens"] == false);
}
