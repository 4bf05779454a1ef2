// The parser on valid input: every construct, with exact line:col ranges on its nodes.
#include <catch2/catch_test_macros.hpp>

#include "test_util.h"

using namespace rop;
using rop::test::parse_text;
using rop::test::span;

namespace {

const ast::Stage& stage_at(const test::Parsed& p, std::size_t i) {
    return std::get<ast::Stage>(p.program.statements.at(i));
}

}  // namespace

TEST_CASE("frontend: parser reads the full example pipeline", "[frontend]") {
    auto p = parse_text(
        "pipeline mineru;\n"
        "use \"udfs/mineru.hpp\";\n"
        "source docs : Doc = std.files(glob: \"in/*.pdf\");\n"
        "pages = expand docs as Page with std.pdf.render(dpi: 144);\n"
        "ocr = map pages with std.ocr.tesseract(lang: \"eng\") batch 48 actors 4 gpus 1;\n"
        "kept = filter ocr with std.text.nonempty;\n"
        "hint = broadcast title to Page;\n"
        "fixed = map (kept, hint?) with fix_hyphens retries 3 recovery isolate_tail timeout 30s;\n"
        "md = reduce fixed to Doc with std.text.join(sep: \"\\n\\n\");\n"
        "(a, b) = map docs with split_two;\n"
        "sink out -> std.markdown_dir(path: \"out\");\n");
    REQUIRE(p->diags.empty());
    const auto& prog = p->program;
    REQUIRE(prog.header);
    CHECK(prog.header->name.name == "mineru");
    CHECK(span(p->sources, prog.header->range) == "1:1-1:16");
    CHECK(span(p->sources, prog.header->name.range) == "1:10-1:16");
    REQUIRE(prog.statements.size() == 10);

    const auto& use = std::get<ast::Use>(prog.statements[0]);
    CHECK(use.path == "udfs/mineru.hpp");
    CHECK(span(p->sources, use.range) == "2:1-2:22");

    const auto& src = std::get<ast::Source>(prog.statements[1]);
    CHECK(src.name.name == "docs");
    CHECK(span(p->sources, src.name.range) == "3:8-3:12");
    CHECK(src.domain.name == "Doc");
    CHECK(span(p->sources, src.domain.range) == "3:15-3:18");
    CHECK(src.op.name.str() == "std.files");
    CHECK(src.op.has_parens);
    CHECK(span(p->sources, src.op.range) == "3:21-3:48");
    REQUIRE(src.op.args.size() == 1);
    CHECK(src.op.args[0].name.name == "glob");
    CHECK(span(p->sources, src.op.args[0].range) == "3:31-3:47");
    CHECK(src.op.args[0].value.kind == ast::Value::Kind::String);
    CHECK(src.op.args[0].value.text == "in/*.pdf");
    CHECK(span(p->sources, src.range) == "3:1-3:48");  // the ';' is not part of a statement

    const auto& pages = stage_at(*p, 2);
    CHECK(pages.kind == ast::StageKind::Expand);
    CHECK(span(p->sources, pages.kind_range) == "4:9-4:15");
    REQUIRE(pages.domain);
    CHECK(pages.domain->name == "Page");
    CHECK(span(p->sources, pages.domain->range) == "4:24-4:28");
    CHECK(pages.op->name.str() == "std.pdf.render");
    CHECK(span(p->sources, pages.op->name.range) == "4:34-4:48");
    CHECK(pages.op->args[0].value.int_value == 144);

    const auto& ocr = stage_at(*p, 3);
    CHECK(ocr.kind == ast::StageKind::Map);
    REQUIRE(ocr.options.size() == 3);
    CHECK(ocr.options[0].name.name == "batch");
    CHECK(ocr.options[0].value.int_value == 48);
    CHECK(span(p->sources, ocr.options[0].range) == "5:53-5:61");
    CHECK(ocr.options[2].name.name == "gpus");
    CHECK(span(p->sources, ocr.range) == "5:1-5:77");

    const auto& kept = stage_at(*p, 4);
    CHECK(kept.kind == ast::StageKind::Filter);
    CHECK_FALSE(kept.op->has_parens);
    CHECK(kept.op->args.empty());

    const auto& hint = stage_at(*p, 5);
    CHECK(hint.kind == ast::StageKind::Broadcast);
    CHECK_FALSE(hint.op);
    CHECK(hint.domain->name == "Page");

    const auto& fixed = stage_at(*p, 6);
    CHECK(fixed.parenthesized_inputs);
    REQUIRE(fixed.inputs.size() == 2);
    CHECK_FALSE(fixed.inputs[0].optional);
    CHECK(fixed.inputs[1].optional);
    CHECK(span(p->sources, fixed.inputs[1].range) == "8:20-8:25");
    REQUIRE(fixed.options.size() == 3);
    CHECK(fixed.options[1].value.kind == ast::Value::Kind::Ident);
    CHECK(fixed.options[1].value.text == "isolate_tail");
    CHECK(fixed.options[2].value.kind == ast::Value::Kind::Duration);
    CHECK(fixed.options[2].value.int_value == 30'000);

    const auto& md = stage_at(*p, 7);
    CHECK(md.kind == ast::StageKind::Reduce);
    CHECK(md.domain->name == "Doc");
    CHECK(md.op->args[0].value.text == "\n\n");

    const auto& split = stage_at(*p, 8);
    REQUIRE(split.outputs.size() == 2);
    CHECK(span(p->sources, split.outputs[1].range) == "10:5-10:6");
    CHECK(span(p->sources, split.range) == "10:1-10:33");
    CHECK_FALSE(split.parenthesized_inputs);

    const auto& sink = std::get<ast::Sink>(prog.statements[9]);
    REQUIRE(sink.inputs.size() == 1);
    CHECK(sink.inputs[0].name.name == "out");
    CHECK(sink.op.name.str() == "std.markdown_dir");
    CHECK(span(p->sources, sink.range) == "11:1-11:42");
}

TEST_CASE("frontend: parser accepts reduce without an operator", "[frontend]") {
    auto p = parse_text(test::kHeader + "pages_of = reduce pages to Doc;\n");
    REQUIRE(p->diags.empty());
    const auto& s = stage_at(*p, 0);
    CHECK(s.kind == ast::StageKind::Reduce);
    CHECK_FALSE(s.op);
    CHECK(span(p->sources, s.range) == "2:1-2:31");
}

TEST_CASE("frontend: parser reads sinks with several inputs and options", "[frontend]") {
    auto p =
        parse_text(test::kHeader + "sink (a, b?) -> std.jsonl(path: \"o.jsonl\") retries 2;\n");
    REQUIRE(p->diags.empty());
    const auto& s = std::get<ast::Sink>(p->program.statements.at(0));
    REQUIRE(s.inputs.size() == 2);
    CHECK(s.inputs[1].optional);
    REQUIRE(s.options.size() == 1);
    CHECK(s.options[0].name.name == "retries");
}

TEST_CASE("frontend: parser reads every kind of value", "[frontend]") {
    auto p = parse_text(test::kHeader +
                        "x = map d with f(s: \"t\", i: -3, r: 0.5, b: true, c: false, d: 250ms,\n"
                        "                 n: name, l: [1, [\"a\", []], x,], e: []) knob [1, 2];\n");
    REQUIRE(p->diags.empty());
    const auto& args = stage_at(*p, 0).op->args;
    REQUIRE(args.size() == 9);
    using K = ast::Value::Kind;
    CHECK(args[0].value.kind == K::String);
    CHECK(args[1].value.int_value == -3);
    CHECK(span(p->sources, args[1].value.range) == "2:29-2:31");
    CHECK(args[2].value.float_value == 0.5);
    CHECK(args[3].value.bool_value);
    CHECK(args[4].value.kind == K::Bool);
    CHECK_FALSE(args[4].value.bool_value);
    CHECK(args[5].value.int_value == 250);
    CHECK(args[6].value.kind == K::Ident);
    CHECK(args[6].value.text == "name");
    const ast::Value& list = args[7].value;
    CHECK(list.kind == K::List);
    REQUIRE(list.items.size() == 3);  // the trailing comma adds nothing
    CHECK(list.items[1].items.size() == 2);
    CHECK(list.items[1].items[1].kind == K::List);
    CHECK(list.items[1].items[1].items.empty());
    CHECK(span(p->sources, list.range) == "3:30-3:48");
    CHECK(args[8].value.items.empty());
    const auto& opts = stage_at(*p, 0).options;
    REQUIRE(opts.size() == 1);
    CHECK(opts[0].value.items.size() == 2);
}

TEST_CASE("frontend: parser allows options across lines and a trailing argument comma",
          "[frontend]") {
    auto p = parse_text(test::kHeader +
                        "ocr = map pages with std.ocr(lang: \"eng\",)\n"
                        "    batch 8\n"
                        "    actors 2;\n"
                        "next = map ocr with g;\n");
    REQUIRE(p->diags.empty());
    REQUIRE(p->program.statements.size() == 2);
    const auto& s = stage_at(*p, 0);
    REQUIRE(s.options.size() == 2);
    CHECK(span(p->sources, s.options[1].range) == "4:5-4:13");
    CHECK(span(p->sources, s.range) == "2:1-4:13");
}

TEST_CASE("frontend: parser keeps comments and blank lines out of ranges", "[frontend]") {
    auto p = parse_text("# leading comment\n\npipeline c;  // trailing\n\nuse \"a.hpp\"; # x\n");
    REQUIRE(p->diags.empty());
    CHECK(span(p->sources, p->program.header->range) == "3:1-3:11");
    CHECK(span(p->sources, std::get<ast::Use>(p->program.statements.at(0)).range) == "5:1-5:12");
}

TEST_CASE("frontend: AST helpers name stage and value kinds", "[frontend]") {
    CHECK(std::string(ast::to_string(ast::StageKind::Broadcast)) == "broadcast");
    CHECK(std::string(ast::to_string(ast::Value::Kind::Duration)) == "duration");
    ast::QualifiedName q{{{"std", {}}, {"pdf", {}}, {"render", {}}}, {}};
    CHECK(q.str() == "std.pdf.render");
}
