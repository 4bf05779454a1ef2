// classify: every shape in docs/udfs.md binds with the right inputs and outputs, and every wrong
// shape fails with its exact reason and the C++ location of the offending part.
#include <catch2/catch_test_macros.hpp>

#include "bind/classify.h"
#include "bind/types.h"
#include "bind_test_util.h"

namespace rop::bind::test {
namespace {

const UdfLibrary& shapes() { return read_fixture("shapes.hpp").library; }
const UdfLibrary& wrong() {
    const ReadResult& read = read_fixture("wrong_shapes.hpp");
    REQUIRE(read.errors.empty());
    return read.library;
}

Binding bind_ok(const UdfLibrary& lib, const std::string& name, Primitive primitive,
                std::size_t inputs = 1) {
    Classification c = classify(udf(lib, name), primitive, inputs);
    INFO(name << ": " << c.reason);
    REQUIRE(c.ok());
    return *c.binding;
}

struct Failure {
    std::string reason;
    SourceLoc note;
};

Failure bind_fails(const std::string& name, Primitive primitive, std::size_t inputs = 1) {
    Classification c = classify(udf(wrong(), name), primitive, inputs);
    REQUIRE_FALSE(c.ok());
    return {c.reason, c.note};
}

TEST_CASE("bind classify: element map", "[bind]") {
    Binding b = bind_ok(shapes(), "demo::title", Primitive::Map);
    CHECK(b.shape == Shape::ElementMap);
    REQUIRE(b.inputs.size() == 1);
    CHECK(b.inputs[0].item.name == "demo::Doc");
    CHECK(b.inputs[0].missing == Missing::NotAccepted);
    REQUIRE(b.outputs.size() == 1);
    CHECK(b.outputs[0].name == "std::string");
    CHECK(b.named.empty());
}

TEST_CASE("bind classify: the input count splits inputs from named arguments", "[bind]") {
    Binding zip = bind_ok(shapes(), "demo::fix_hyphens", Primitive::Map, 2);
    CHECK(zip.inputs.size() == 2);
    CHECK(zip.named.empty());
    CHECK(zip.inputs[1].item.name == "std::string");

    Binding named = bind_ok(shapes(), "demo::fix_hyphens", Primitive::Map, 1);
    CHECK(named.inputs.size() == 1);
    REQUIRE(named.named.size() == 1);
    CHECK(named.named[0].name == "hint");
    CHECK(named.first_named_param == 1);

    Classification three = classify(udf(shapes(), "demo::fix_hyphens"), Primitive::Map, 3);
    REQUIRE_FALSE(three.ok());
    CHECK(three.reason == "'demo::fix_hyphens' takes 2 parameters but the Call passes 3 inputs");
    CHECK(three.note == loc_of("shapes.hpp", "fix_hyphens("));
}

TEST_CASE("bind classify: optional inputs, as std::optional or as a pointer", "[bind]") {
    Binding opt = bind_ok(shapes(), "demo::with_hint", Primitive::Map, 2);
    CHECK(opt.inputs[1].missing == Missing::Nullopt);
    CHECK(opt.inputs[1].item.name == "std::string");
    Binding ptr = bind_ok(shapes(), "demo::with_hint_ptr", Primitive::Map, 2);
    CHECK(ptr.inputs[1].missing == Missing::Null);
    CHECK(ptr.inputs[1].item.canonical == opt.inputs[1].item.canonical);
}

TEST_CASE("bind classify: multi-output map returns a tuple", "[bind]") {
    Binding b = bind_ok(shapes(), "demo::split_stats", Primitive::Map);
    CHECK(b.multi_output);
    REQUIRE(b.outputs.size() == 2);
    CHECK(b.outputs[0].name == "std::string");
    CHECK(b.outputs[1].name == "int");
}

TEST_CASE("bind classify: batch map and batch filter take spans", "[bind]") {
    Binding map = bind_ok(shapes(), "demo::ocr_batch", Primitive::Map);
    CHECK(map.shape == Shape::BatchMap);
    CHECK(map.inputs[0].item.name == "demo::Page");
    CHECK(map.outputs[0].name == "std::string");
    Binding filter = bind_ok(shapes(), "demo::keep_batch", Primitive::Filter);
    CHECK(filter.shape == Shape::BatchFilter);
    CHECK(filter.outputs[0].name == "demo::Page");
}

TEST_CASE("bind classify: filter passes its input type on", "[bind]") {
    Binding b = bind_ok(shapes(), "demo::nonempty", Primitive::Filter);
    CHECK(b.shape == Shape::ElementFilter);
    REQUIRE(b.outputs.size() == 1);
    CHECK(b.outputs[0].name == "demo::Page");
}

TEST_CASE("bind classify: expand returns a vector or streams to an emitter", "[bind]") {
    Binding vec = bind_ok(shapes(), "demo::render", Primitive::Expand);
    CHECK(vec.shape == Shape::VectorExpand);
    CHECK(vec.outputs[0].name == "demo::Page");
    REQUIRE(vec.named.size() == 1);
    CHECK(vec.named[0].name == "dpi");
    CHECK(vec.named[0].has_default);

    Binding stream = bind_ok(shapes(), "demo::stream_pages", Primitive::Expand);
    CHECK(stream.shape == Shape::StreamingExpand);
    CHECK(stream.emitter_param == 1u);
    CHECK(stream.outputs[0].name == "demo::Page");
    REQUIRE(stream.named.size() == 1);
    CHECK(stream.named[0].name == "dpi");
    CHECK(stream.first_named_param == 2);
}

TEST_CASE("bind classify: reduce over a span, with ordinals and parent", "[bind]") {
    Binding join = bind_ok(shapes(), "demo::join", Primitive::Reduce);
    CHECK(join.shape == Shape::SpanReduce);
    CHECK(join.inputs[0].item.name == "std::string");
    CHECK_FALSE(join.ordinals_param);
    REQUIRE(join.named.size() == 1);
    CHECK(join.named[0].default_text == "\"\\n\\n\"");

    Binding numbered = bind_ok(shapes(), "demo::join_numbered", Primitive::Reduce);
    CHECK(numbered.ordinals_param == 1u);
    CHECK(numbered.named.empty());

    Binding assemble = bind_ok(shapes(), "demo::assemble", Primitive::Reduce);
    CHECK(assemble.ordinals_param == 1u);
    CHECK(assemble.parent_param == 2u);
    REQUIRE(assemble.parent);
    CHECK(assemble.parent->name == "demo::Doc");
    CHECK(assemble.outputs[0].name == "demo::Doc");
}

TEST_CASE("bind classify: reduce takes its skipped children as rop::Skipped", "[bind]") {
    Binding alone = bind_ok(shapes(), "demo::join_skipped", Primitive::Reduce);
    CHECK(alone.shape == Shape::SpanReduce);
    CHECK_FALSE(alone.ordinals_param);
    CHECK(alone.skipped_param == 1u);
    CHECK(alone.named.empty());

    // Spelt as the span it aliases, between ordinals and parent.
    Binding all = bind_ok(shapes(), "demo::assemble_partial", Primitive::Reduce);
    CHECK(all.ordinals_param == 1u);
    CHECK(all.skipped_param == 2u);
    CHECK(all.parent_param == 3u);
    CHECK(all.named.empty());
    CHECK(all.outputs[0].name == "demo::Doc");
}

TEST_CASE("bind classify: multi-output reduce returns a tuple", "[bind]") {
    Binding b = bind_ok(shapes(), "demo::join_stats", Primitive::Reduce);
    CHECK(b.shape == Shape::SpanReduce);
    CHECK(b.multi_output);
    REQUIRE(b.outputs.size() == 2);
    CHECK(b.outputs[0].name == "std::string");
    CHECK(b.outputs[1].name == "int");
}

TEST_CASE("bind classify: class UDFs bind operator() and name their constructor's params",
          "[bind]") {
    Binding ocr = bind_ok(shapes(), "demo::Ocr", Primitive::Map);
    CHECK(ocr.is_class);
    CHECK(ocr.shape == Shape::ElementMap);
    REQUIRE(ocr.named.size() == 2);
    CHECK(ocr.named[0].name == "lang");
    CHECK(ocr.named[1].name == "psm");

    Binding counter = bind_ok(shapes(), "demo::PageCounter", Primitive::Reduce);
    CHECK(counter.is_class);
    CHECK(counter.named.empty());
    CHECK(counter.outputs[0].canonical == "unsigned long");
}

TEST_CASE("bind classify: type flow compares canonical types", "[bind]") {
    Binding render = bind_ok(shapes(), "demo::render", Primitive::Expand);
    Binding ocr = bind_ok(shapes(), "demo::Ocr", Primitive::Map);
    Binding title = bind_ok(shapes(), "demo::title", Primitive::Map);
    Binding join = bind_ok(shapes(), "demo::join", Primitive::Reduce);
    CHECK(same_type(render.outputs[0], ocr.inputs[0].item));  // Page -> const Page&
    CHECK(
        same_type(ocr.outputs[0], join.inputs[0].item));  // std::string -> span<const std::string>
    CHECK(same_type(join.outputs[0], title.outputs[0]));  // demo::Text == std::string
    CHECK_FALSE(same_type(render.outputs[0], title.inputs[0].item));
    CHECK(describe_mismatch(title.inputs[0].item, render.outputs[0]) ==
          "expected 'demo::Doc', got 'demo::Page'");
}

TEST_CASE("bind classify: candidate primitives", "[bind]") {
    auto candidates = candidate_primitives(udf(shapes(), "demo::nonempty"));
    CHECK(candidates == std::vector<Primitive>{Primitive::Map, Primitive::Filter});
    CHECK(candidate_primitives(udf(shapes(), "demo::stream_pages")) ==
          std::vector<Primitive>{Primitive::Expand});
    // A span parameter makes a map a batch map, which must return a vector: join is a reduce.
    CHECK(candidate_primitives(udf(shapes(), "demo::join")) ==
          std::vector<Primitive>{Primitive::Reduce});
}

TEST_CASE("bind classify: rop::ItemResult results bind to their value type", "[bind]") {
    struct Case {
        std::string udf;
        Primitive primitive;
        Shape shape;
        std::vector<std::string> outputs;
    };
    const std::vector<Case> cases = {
        {"demo::ocr_checked", Primitive::Map, Shape::BatchMap, {"std::string"}},
        {"demo::keep_checked", Primitive::Filter, Shape::BatchFilter, {"demo::Page"}},
        {"demo::title_checked", Primitive::Map, Shape::ElementMap, {"std::string"}},
        {"demo::split_checked", Primitive::Map, Shape::BatchMap, {"std::string", "int"}},
    };
    for (const Case& c : cases) {
        CAPTURE(c.udf);
        Binding b = bind_ok(shapes(), c.udf, c.primitive);
        CHECK(b.shape == c.shape);
        CHECK(b.item_result);
        CHECK(b.multi_output == (c.outputs.size() > 1));
        REQUIRE(b.outputs.size() == c.outputs.size());
        for (std::size_t i = 0; i < c.outputs.size(); ++i) CHECK(b.outputs[i].name == c.outputs[i]);
    }
    // Plain results are not per-item results.
    CHECK_FALSE(bind_ok(shapes(), "demo::ocr_batch", Primitive::Map).item_result);
    CHECK_FALSE(bind_ok(shapes(), "demo::keep_batch", Primitive::Filter).item_result);
}

TEST_CASE("bind classify: wrong shapes say why, at the C++ declaration", "[bind]") {
    const std::string h = "wrong_shapes.hpp";
    struct Case {
        std::string udf;
        Primitive primitive;
        std::string reason;
        SourceLoc note;
        std::size_t inputs = 1;
    };
    const std::vector<Case> cases = {
        {"bad::is_blank", Primitive::Filter,
         "filter UDF must return bool, 'bad::is_blank' returns 'int'", loc_of(h, "int is_blank")},
        {"bad::keep_count", Primitive::Filter,
         "batch filter UDF must return std::vector<bool>, 'bad::keep_count' returns "
         "'std::vector<rop::ItemResult<int>>'",
         loc_of(h, "std::vector<rop::ItemResult<int>> keep_count")},
        {"bad::first_page", Primitive::Expand,
         "expand UDF must return std::vector<Child> or take 'rop::Emitter<Child>&' after its "
         "inputs, 'bad::first_page' returns 'demo::Page'",
         loc_of(h, "Page first_page")},
        {"bad::stream_bad", Primitive::Expand,
         "streaming expand UDF (it takes 'rop::Emitter<Page> &') must return void, "
         "'bad::stream_bad' returns 'int'",
         loc_of(h, "int stream_bad")},
        {"bad::join_vec", Primitive::Reduce,
         "reduce UDF must take its children as 'std::span<const T>'; parameter 'parts' of "
         "'bad::join_vec' is 'const std::vector<std::string> &'",
         loc_of(h, "join_vec(", "parts)")},
        {"bad::nothing", Primitive::Map,
         "map UDF must return its output, 'bad::nothing' returns 'void'",
         loc_of(h, "void nothing")},
        {"bad::mutate", Primitive::Map,
         "input parameter 'page' of 'bad::mutate' is 'Page &'; take inputs as 'const T&' or by "
         "value (items are immutable)",
         loc_of(h, "mutate(", "page)")},
        {"bad::unnamed_named", Primitive::Map,
         "the 2nd parameter of 'bad::unnamed_named' is a named argument but has no name; name "
         "it so a .rop file can pass it",
         loc_of(h, "unnamed_named(", "int)")},
        {"bad::batch_mixed", Primitive::Map,
         "a batch UDF takes every input as 'std::span<const T>'; parameter 'doc' of "
         "'bad::batch_mixed' is 'const Doc &'",
         loc_of(h, "batch_mixed(", "doc)"), 2},
        {"bad::batch_count", Primitive::Map,
         "batch map UDF must return std::vector<Out> (one per item), 'bad::batch_count' returns "
         "'int'",
         loc_of(h, "int batch_count")},
        {"bad::emits_in_map", Primitive::Map,
         "'bad::emits_in_map' takes 'rop::Emitter<Page> &' as its 2nd parameter; only an "
         "expand UDF streams children, right after its inputs",
         loc_of(h, "emits_in_map(", "out)")},
        {"bad::batch_expand", Primitive::Expand,
         "expand UDF takes its input one item at a time, not as a batch; 'bad::batch_expand' "
         "takes 'std::span<const Doc>'",
         loc_of(h, "batch_expand(", "docs)")},
        {"bad::ordinals_first", Primitive::Reduce,
         "'bad::ordinals_first' takes rop::Ordinals as its 1st parameter; a reduce UDF takes "
         "it right after its span of children, before its parent: f(std::span<const T> "
         "children, rop::Ordinals ordinals, rop::Skipped skipped, const rop::Parent<P>& parent, "
         "named arguments...), ordinals, skipped and parent each optional",
         loc_of(h, "ordinals_first(", "ordinals,")},
        {"bad::ordinals_first", Primitive::Map,
         "'bad::ordinals_first' takes rop::Ordinals as its 1st parameter; only a reduce UDF "
         "takes ordinals, right after its span of children",
         loc_of(h, "ordinals_first(", "ordinals,")},
        {"bad::parent_then_ordinals", Primitive::Reduce,
         "'bad::parent_then_ordinals' takes rop::Ordinals after its rop::Parent; a reduce UDF "
         "takes its ordinals first, right after its span of children: f(std::span<const T> "
         "children, rop::Ordinals ordinals, rop::Skipped skipped, const rop::Parent<P>& parent, "
         "named arguments...), ordinals, skipped and parent each optional",
         loc_of(h, "rop::Ordinals ordinals);", "ordinals)")},
        {"bad::parent_then_skipped", Primitive::Reduce,
         "'bad::parent_then_skipped' takes rop::Skipped after its rop::Parent; a reduce UDF "
         "takes its skipped children before its parent: f(std::span<const T> children, "
         "rop::Ordinals ordinals, rop::Skipped skipped, const rop::Parent<P>& parent, named "
         "arguments...), ordinals, skipped and parent each optional",
         loc_of(h, "rop::Skipped skipped);", "skipped)")},
        {"bad::skipped_in_map", Primitive::Map,
         "'bad::skipped_in_map' takes rop::Skipped as its 2nd parameter; only a reduce UDF "
         "takes skipped children, after its children (and ordinals)",
         loc_of(h, "skipped_in_map(", "skipped)")},
        {"bad::keep_vec", Primitive::Filter,
         "batch UDFs take std::span<const T>, not a vector: 'bad::keep_vec' takes 'const "
         "std::vector<Page> &'; take 'std::span<const demo::Page>'",
         loc_of(h, "keep_vec(", "pages)")},
        {"bad::TwoCtors", Primitive::Map,
         "class UDF 'bad::TwoCtors' has 2 public constructors; rop passes the named arguments "
         "to exactly one",
         loc_of(h, "TwoCtors {")},
        {"bad::TwoCalls", Primitive::Map,
         "class UDF 'bad::TwoCalls' has 2 public operator() overloads; rop binds exactly one",
         loc_of(h, "TwoCalls {")},
        {"bad::ClassExtra", Primitive::Map,
         "'bad::ClassExtra::operator()' takes 2 parameters but the Call passes 1 input; a class "
         "UDF takes its named arguments in its constructor",
         loc_of(h, "dpi);")},
    };
    for (const Case& c : cases) {
        INFO(c.udf << " as " << to_string(c.primitive));
        Failure f = bind_fails(c.udf, c.primitive, c.inputs);
        CHECK(f.reason == c.reason);
        CHECK(f.note == c.note);
    }
}

}  // namespace
}  // namespace rop::bind::test
