// The parser on shared actor pools (docs/language.md, "pool"): the `pool NAME = op options;`
// statement with exact ranges, `with POOL.METHOD(...)` as an ordinary operator name, `pool` kept
// usable as a stream name, recovery around a broken pool, and the AST dump of a pool.
#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "frontend/dump.h"
#include "test_util.h"

using namespace rop;
using rop::test::ids_at;
using rop::test::parse_text;
using rop::test::span;
using Ids = std::vector<std::string>;

TEST_CASE("frontend: parser reads a pool statement with its ranges", "[frontend][pool]") {
    auto p = parse_text(
        "pipeline t;\n"
        "pool vlm = my.Model(base_url: \"http://x\", model: \"m\") actors 4 gpus 1;\n"
        "layout = map pages with vlm.layout(stage: \"layout\") batch 8;\n"
        "regions = expand layout as Region with vlm.regions();\n");
    REQUIRE(p->diags.empty());
    REQUIRE(p->program.statements.size() == 3);
    const auto& pool = std::get<ast::Pool>(p->program.statements[0]);
    CHECK(pool.name.name == "vlm");
    CHECK(span(p->sources, pool.keyword_range) == "2:1-2:5");
    CHECK(span(p->sources, pool.name.range) == "2:6-2:9");
    CHECK(pool.op.name.str() == "my.Model");
    CHECK(span(p->sources, pool.op.range) == "2:12-2:54");
    REQUIRE(pool.op.args.size() == 2);
    CHECK(pool.op.args[1].name.name == "model");
    CHECK(pool.op.args[1].value.text == "m");
    REQUIRE(pool.options.size() == 2);
    CHECK(pool.options[0].name.name == "actors");
    CHECK(pool.options[0].value.int_value == 4);
    CHECK(pool.options[1].name.name == "gpus");
    CHECK(span(p->sources, pool.range) == "2:1-2:70");  // without the ';'

    // A pooled Call's operator is an ordinary qualified name: sema resolves the pool.
    const auto& layout = std::get<ast::Stage>(p->program.statements[1]);
    REQUIRE(layout.op);
    REQUIRE(layout.op->name.parts.size() == 2);
    CHECK(layout.op->name.parts[0].name == "vlm");
    CHECK(layout.op->name.parts[1].name == "layout");
    CHECK(span(p->sources, layout.op->name.parts[1].range) == "3:29-3:35");
    CHECK(layout.op->args.at(0).name.name == "stage");
    CHECK(layout.options.at(0).name.name == "batch");
    const auto& regions = std::get<ast::Stage>(p->program.statements[2]);
    CHECK(regions.op->name.str() == "vlm.regions");
    CHECK(regions.op->has_parens);
    CHECK(regions.op->args.empty());
}

TEST_CASE("frontend: a pool without arguments or options and one on several lines",
          "[frontend][pool]") {
    auto p = parse_text(
        "pipeline t;\n"
        "pool a = Plain;\n"
        "pool b = ns.Model(\n"
        "    path: \"m.bin\",\n"
        ")\n"
        "    actors 2\n"
        "    isolation process;\n");
    REQUIRE(p->diags.empty());
    REQUIRE(p->program.statements.size() == 2);
    const auto& a = std::get<ast::Pool>(p->program.statements[0]);
    CHECK(a.op.name.str() == "Plain");
    CHECK_FALSE(a.op.has_parens);
    CHECK(a.options.empty());
    const auto& b = std::get<ast::Pool>(p->program.statements[1]);
    CHECK(b.options.size() == 2);
    CHECK(b.options[1].value.text == "process");
    CHECK(span(p->sources, b.range) == "3:1-7:22");
}

TEST_CASE("frontend: pool stays usable as a stream name", "[frontend][pool]") {
    auto p = parse_text(
        "pipeline t;\n"
        "pool = map docs with f;\n"
        "x = map pool with pool.g;\n"
        "sink pool -> out;\n");
    REQUIRE(p->diags.empty());
    REQUIRE(p->program.statements.size() == 3);
    const auto& first = std::get<ast::Stage>(p->program.statements[0]);
    CHECK(first.outputs.at(0).name == "pool");
    const auto& second = std::get<ast::Stage>(p->program.statements[1]);
    CHECK(second.inputs.at(0).name.name == "pool");
    CHECK(second.op->name.str() == "pool.g");
    CHECK(std::holds_alternative<ast::Sink>(p->program.statements[2]));
}

TEST_CASE("frontend: broken pool statements are reported and skipped", "[frontend][pool]") {
    SECTION("no '='") {
        auto p = parse_text("pipeline t;\npool vlm my.Model();\nx = map d with f;\n");
        CHECK(ids_at(*p) == Ids{"E0010@2:10"});
        CHECK(p->diags[0].message ==
              "expected '=' after the pool's name, as in 'pool vlm = my.Model()', found "
              "identifier 'my'");
        CHECK(p->program.statements.size() == 1);  // the stage after it survives
    }
    SECTION("no operator") {
        auto p = parse_text("pipeline t;\npool vlm = ;\nx = map d with f;\n");
        CHECK(ids_at(*p) == Ids{"E0010@2:12"});
        CHECK(p->program.statements.size() == 1);
    }
    SECTION("a missing ';' before a pool keeps both statements") {
        auto p = parse_text("pipeline t;\nx = map d with f\npool vlm = my.Model();\n");
        CHECK(ids_at(*p) == Ids{"E0010@2:17"});
        CHECK(p->diags[0].message == "expected ';' after statement, found identifier 'pool'");
        CHECK(p->program.statements.size() == 2);
    }
    SECTION("a missing ';' after a pool") {
        auto p = parse_text("pipeline t;\npool vlm = my.Model() actors 2\nx = map d with f;\n");
        CHECK(ids_at(*p) == Ids{"E0010@2:31"});
        CHECK(p->program.statements.size() == 2);
    }
}

TEST_CASE("frontend: the AST dump shows a pool", "[frontend][pool]") {
    auto p = parse_text("pipeline t;\npool vlm = my.Model(n: 1) actors 2;\n");
    REQUIRE(p->diags.empty());
    const std::string dump = dump_ast_json(p->program, p->sources);
    CHECK(dump.find("\"kind\": \"Pool\"") != std::string::npos);
    CHECK(dump.find("\"keyword_range\": \"2:1-2:5\"") != std::string::npos);
    CHECK(dump.find("\"name\": \"my.Model\"") != std::string::npos);
}
