// bind_program on shared actor pools over fixtures/programs/pools.hpp: a pool's class and its
// constructor's arguments, each Call's method bound as a function of its own (every shape, its
// trailing parameters as named arguments), and every binding error a pool or a pooled Call can
// raise at its exact `.rop` location (E0500-E0506, E0513, E0514).
#include <catch2/catch_test_macros.hpp>
#include <memory>

#include "bind/bind_program.h"
#include "bind_test_util.h"
#include "frontend/parser.h"
#include "sema/sema.h"

namespace rop::bind::test {
namespace {

const std::string kPrelude =
    "pipeline t;\n"
    "use \"pools.hpp\";\n"
    "source docs : Doc = pools.Files(glob: \"in/*.pdf\");\n"
    "pool m = pools.Model(path: \"m.bin\") actors 2;\n";  // the body starts on line 5

struct Run {
    SourceManager sources;
    std::optional<sema::CheckedProgram> program;
    std::optional<BoundProgram> bound;
    std::vector<Diagnostic> diags;
};

std::unique_ptr<Run> bind_text(const std::string& text) {
    auto run = std::make_unique<Run>();
    const std::string path = fixture("programs/test.rop");
    const FileId file = run->sources.add_buffer(path, text);
    DiagnosticEngine diags(run->sources);
    const ast::Program ast = parse(file, run->sources, diags);
    REQUIRE_FALSE(diags.has_errors());
    run->program = sema::check(ast, diags);
    REQUIRE(run->program);
    ProgramBindOptions options;
    options.stdlib_include_dirs = {fixture("stdlib")};
    options.include_dirs = {ROP_API_INCLUDE};
    options.pch_cache_dir = std::string(ROP_BIND_TEST_CACHE) + "/shared";
    options.sources = &run->sources;
    run->bound = bind_program(*run->program, path, options, diags);
    run->diags = diags.finish();
    return run;
}

std::string line_col(const SourceManager& sources, const SourceRange& range) {
    const LineCol at = sources.line_col(range.file, range.begin);
    return std::to_string(at.line) + ":" + std::to_string(at.column);
}

// "E0514@6:21" per diagnostic of binding (E05xx), in order.
std::vector<std::string> binding_errors(const Run& run) {
    std::vector<std::string> out;
    for (const Diagnostic& d : run.diags) {
        const std::string code(diag_info(d.id).code);
        if (code.substr(1, 2) == "05") out.push_back(code + "@" + line_col(run.sources, d.range));
    }
    return out;
}

const std::string kSink = "sink t -> pools.Jsonl(path: \"o\");\n";

}  // namespace

TEST_CASE("bind pools: every shape of method binds on one shared class", "[bind][pool]") {
    const auto run = bind_text(kPrelude +
                               "pages = expand docs as Page with m.pages(dpi: 200);\n"
                               "one = map pages with m.text(stage: \"a\");\n"
                               "many = map pages with m.texts batch 8;\n"
                               "kept = filter one with m.keep;\n"
                               "t = reduce kept to Doc with m.join;\n" +
                               kSink + "sink many -> pools.Jsonl(path: \"o2\");\n");
    INFO(render_text(run->sources, run->diags));
    REQUIRE(run->diags.empty());
    REQUIRE(run->bound);
    const BoundProgram& b = *run->bound;
    REQUIRE(b.pools.size() == 1);
    REQUIRE(b.pools[0].decl != nullptr);
    CHECK(b.pools[0].decl->qualified_name == "pools::Model");
    REQUIRE(b.pools[0].arguments.size() == 3);  // path, then threads and mode left out
    CHECK(b.pools[0].arguments[0].param.name == "path");
    CHECK(b.pools[0].arguments[0].value->value.text == "m.bin");
    CHECK_FALSE(b.pools[0].arguments[1].value);

    struct Expected {
        sema::CallId call;
        std::string method;
        Shape shape;
        std::size_t named;
    };
    for (const Expected& e : {Expected{1, "pools::Model::pages", Shape::VectorExpand, 1},
                              Expected{2, "pools::Model::text", Shape::ElementMap, 1},
                              Expected{3, "pools::Model::texts", Shape::BatchMap, 0},
                              Expected{4, "pools::Model::keep", Shape::ElementFilter, 0},
                              Expected{5, "pools::Model::join", Shape::SpanReduce, 1}}) {
        INFO(e.method);
        const BoundCall& call = b.calls.at(e.call);
        REQUIRE(call.decl != nullptr);
        CHECK(call.pool == std::optional<sema::PoolId>(0));
        CHECK(call.decl->qualified_name == e.method);
        CHECK_FALSE(call.decl->is_class);
        CHECK(call.binding.shape == e.shape);
        CHECK(call.arguments.size() == e.named);
    }
    CHECK(b.calls[1].arguments[0].param.name == "dpi");
    CHECK(b.calls[1].arguments[0].value->value.int_value == 200);
    CHECK(b.calls[2].arguments[0].value->value.text == "a");
    CHECK_FALSE(b.calls[5].arguments[0].value);  // sep's C++ default
    CHECK(b.pool_methods.size() == 5);           // one per method, not per Call
    CHECK(b.port_types[b.program->calls[1].outputs[0]].name == "pools::Page");
    CHECK(b.includes == std::vector<std::string>{"pools.hpp"});
}

TEST_CASE("bind pools: a streaming expand and a class UDF's methods", "[bind][pool]") {
    const auto run = bind_text(kPrelude +
                               "pool tagger = pools.Tagger(tag: \"x\");\n"
                               "pages = expand docs as Page with m.stream;\n"
                               "a = map pages with tagger.tag;\n"
                               "b = map pages with pools.Tagger(tag: \"y\");\n"
                               "c = map (a, b) with m.join2;\n");
    // `join2` is no method: the one error, after everything else bound.
    CHECK(binding_errors(*run) == std::vector<std::string>{"E0514@9:23"});
    const auto good = bind_text(kPrelude +
                                "pool tagger = pools.Tagger(tag: \"x\");\n"
                                "pages = expand docs as Page with m.stream;\n"
                                "a = map pages with tagger.tag;\n"
                                "t = map pages with pools.Tagger(tag: \"y\");\n"
                                "sink a -> pools.Jsonl(path: \"o\");\n" +
                                kSink);
    INFO(render_text(good->sources, good->diags));
    REQUIRE(good->bound);
    const BoundProgram& b = *good->bound;
    CHECK(b.calls[1].binding.shape == Shape::StreamingExpand);
    CHECK(b.calls[2].decl->qualified_name == "pools::Tagger::tag");
    CHECK(b.calls[2].pool == std::optional<sema::PoolId>(1));
    CHECK(b.calls[3].decl->qualified_name == "pools::Tagger");  // the class UDF, unchanged
    CHECK(b.calls[3].binding.is_class);
    CHECK_FALSE(b.calls[3].pool);
}

TEST_CASE("bind pools: every binding error of a pool or a pooled Call", "[bind][pool]") {
    struct Row {
        std::string name;
        std::string body;  // after kPrelude: line 5 on
        std::vector<std::string> errors;
    };
    const std::string pages = "pages = expand docs as Page with m.pages;\n";
    const std::vector<Row> rows = {
        {"unknown class",
         "pool n = pools.Modle;\n" + pages + "t = map pages with n.text;\n" + kSink,
         {"E0500@5:10"}},
        {"a function",
         "pool n = pools.free_text;\n" + pages + "t = map pages with n.text;\n" + kSink,
         {"E0513@5:10"}},
        {"two constructors",
         "pool n = pools.TwoWays(size: 1);\n" + pages + "t = map pages with n.text;\n" + kSink,
         {"E0513@5:10"}},
        {"an unnamed constructor parameter",
         "pool n = pools.Unnamed;\n" + pages + "t = map pages with n.text;\n" + kSink,
         {"E0513@5:10"}},
        {"unknown method",
         pages + "t = map pages with m.txet(stage: \"a\");\n" + kSink,
         {"E0514@6:22"}},
        {"a private method", pages + "t = map pages with m.secret;\n" + kSink, {"E0514@6:22"}},
        {"a static method", pages + "t = map pages with m.version;\n" + kSink, {"E0514@6:22"}},
        {"overloads",
         pages + "t = map pages with m.words;\nu = map t with m.shout;\n"
                 "sink u -> pools.Jsonl(path: \"o\");\n",
         {"E0501@7:18"}},
        {"a shape that does not fit",
         pages +
             "k = filter pages with m.words;\n"
             "t = map k with m.text(stage: \"a\");\n" +
             kSink,
         {"E0501@6:23"}},
        {"an input type that does not flow",
         "t = map docs with m.text(stage: \"a\");\n" + kSink,
         {"E0502@5:9"}},
        {"unknown method argument",
         pages + "t = map pages with m.text(stage: \"a\", stag: \"b\");\n" + kSink,
         {"E0503@6:39"}},
        {"missing method argument", pages + "t = map pages with m.text;\n" + kSink, {"E0504@6:20"}},
        {"method argument of the wrong kind",
         "pages = expand docs as Page with m.pages(dpi: \"high\");\n"
         "t = map pages with m.text(stage: \"a\");\n" +
             kSink,
         {"E0505@5:47"}},
        {"unknown constructor argument",
         "pool n = pools.Model(path: \"p\", thread: 2);\n" + pages +
             "t = map pages with n.text(stage: \"a\");\n" + kSink,
         {"E0503@5:33"}},
        {"unknown enumerator for the constructor",
         "pool n = pools.Model(path: \"p\", mode: slow);\n" + pages +
             "t = map pages with n.text(stage: \"a\");\n" + kSink,
         {"E0506@5:39"}},
    };
    for (const Row& row : rows) {
        INFO(row.name << "\n" << row.body);
        const auto run = bind_text(kPrelude + row.body);
        INFO(render_text(run->sources, run->diags));
        CHECK(binding_errors(*run) == row.errors);
        CHECK_FALSE(run->bound);
    }
}

}  // namespace rop::bind::test
