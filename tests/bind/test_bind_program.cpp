// bind_program over small pipelines and fixtures/programs/flow.hpp: every E05xx id and W0500 at
// its exact `.rop` location with its C++ note, type flow that passes and fails, sources and
// sinks, and what codegen reads (port types, arguments, includes, link).
#include <catch2/catch_test_macros.hpp>
#include <memory>

#include "bind/bind_program.h"
#include "bind_test_util.h"
#include "frontend/parser.h"
#include "sema/sema.h"

namespace rop::bind::test {
namespace {

const std::string kHeader = "programs/flow.hpp";
const std::string kPrelude =
    "pipeline t;\n"
    "use \"flow.hpp\";\n"
    "source docs : Doc = flow.Files(glob: \"in/*.pdf\");\n";  // the body starts on line 4

struct Run {
    SourceManager sources;
    std::optional<sema::CheckedProgram> program;
    std::optional<BoundProgram> bound;
    std::vector<Diagnostic> diags;
};

// Parses, checks and binds `text` as if it were fixtures/programs/test.rop.
std::unique_ptr<Run> bind_text(const std::string& text, bool lint = true) {
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
    options.include_dirs = {ROP_API_INCLUDE};  // <rop/udf.h>
    options.pch_cache_dir = std::string(ROP_BIND_TEST_CACHE) + "/shared";
    options.lint = lint;
    options.sources = &run->sources;
    run->bound = bind_program(*run->program, path, options, diags);
    run->diags = diags.finish();
    return run;
}

std::string line_col(const SourceManager& sources, const SourceRange& range) {
    const LineCol at = sources.line_col(range.file, range.begin);
    return std::to_string(at.line) + ":" + std::to_string(at.column);
}

// "flow.hpp:31:19": where a note points, with the file's base name.
std::string note_at(const SourceManager& sources, const Note& note) {
    if (!note.range) return "nowhere";
    std::string name = sources.name(note.range->file);
    name = name.substr(name.find_last_of('/') + 1);
    return name + ":" + line_col(sources, *note.range);
}

std::string cxx(const std::string& line_needle, const std::string& needle) {
    const SourceLoc loc = loc_of(kHeader, line_needle, needle);
    return "flow.hpp:" + std::to_string(loc.line) + ":" + std::to_string(loc.column);
}

// The binding diagnostics (E05xx, W0500) of a run; sema's W0001 is not what these tests check.
std::vector<const Diagnostic*> binding_diags(const Run& run) {
    std::vector<const Diagnostic*> out;
    for (const Diagnostic& d : run.diags) {
        const std::string_view code = diag_info(d.id).code;
        if (code.substr(1, 2) == "05") out.push_back(&d);
    }
    return out;
}

std::string code_of(const Diagnostic& d) { return std::string(diag_info(d.id).code); }

struct Row {
    std::string body;              // statements after kPrelude (line 4 on)
    std::string code;              // the one binding diagnostic expected
    std::string at;                // its line:col in the .rop text
    std::string cxx_note;          // where its C++ note points ("" when it has none)
    std::string message_has = "";  // a piece of its message ("" checks none)
};

void check_row(const Row& row) {
    INFO(row.body);
    const auto run = bind_text(kPrelude + row.body);
    const auto found = binding_diags(*run);
    REQUIRE(found.size() == 1);
    const Diagnostic& d = *found[0];
    INFO(d.message);
    CHECK(code_of(d) == row.code);
    CHECK(line_col(run->sources, d.range) == row.at);
    if (!row.message_has.empty()) CHECK(d.message.find(row.message_has) != std::string::npos);
    if (!row.cxx_note.empty()) {
        bool seen = false;
        for (const Note& note : d.notes) seen = seen || note_at(run->sources, note) == row.cxx_note;
        CHECK(seen);
    }
    CHECK(run->bound.has_value() == (row.code[0] == 'W'));
}

TEST_CASE("bind program: a pipeline binds, with everything codegen reads", "[bind]") {
    const auto run =
        bind_text(kPrelude +
                  "pages = expand docs as Page with flow.split(dpi: 200, mode: accurate);\n"
                  "text = map pages with flow.ocr;\n"
                  "kept = filter text with flow.nonempty;\n"
                  "title = map docs with flow.title;\n"
                  "hint = broadcast title to Page;\n"
                  "fixed = map (kept, hint?) with flow.fix;\n"
                  "up = map fixed with std.fake.upper;\n"
                  "md = reduce up to Doc with flow.join(sep: \"\\n\");\n"
                  "sink md -> flow.Jsonl(path: \"out.jsonl\");\n");
    INFO(render_text(run->sources, run->diags));
    REQUIRE(run->diags.empty());
    REQUIRE(run->bound);
    const BoundProgram& b = *run->bound;
    REQUIRE(b.calls.size() == run->program->calls.size());

    auto port = [&](const std::string& name) {
        for (std::size_t p = 0; p < run->program->ports.size(); ++p) {
            if (run->program->ports[p].name == name) return b.port_types[p].name;
        }
        return std::string("?");
    };
    CHECK(port("docs") == "flow::Doc");
    CHECK(port("pages") == "flow::Page");
    CHECK(port("text") == "flow::Text");
    CHECK(port("kept") == "flow::Text");   // a filter passes its input's type on
    CHECK(port("hint") == "std::string");  // so does broadcast
    CHECK(port("md") == "std::string");

    const BoundCall& source = b.calls[0];
    REQUIRE(source.decl);
    CHECK(source.decl->qualified_name == "flow::Files");
    CHECK(source.binding.shape == Shape::Source);
    REQUIRE(source.arguments.size() == 2);  // constructor order: glob (given), limit (default)
    CHECK(source.arguments[0].param.name == "glob");
    REQUIRE(source.arguments[0].value);
    CHECK(source.arguments[0].value->value.text == "in/*.pdf");
    CHECK(source.arguments[1].param.name == "limit");
    CHECK_FALSE(source.arguments[1].value);

    const BoundCall& split = b.calls[1];
    CHECK(split.binding.shape == Shape::VectorExpand);
    REQUIRE(split.arguments.size() == 2);
    CHECK(split.arguments[1].param.name == "mode");
    CHECK(split.arguments[1].value->value.text == "accurate");
    CHECK(split.input_types.at(0).name == "flow::Doc");
    CHECK(split.output_types.at(0).name == "flow::Page");

    const BoundCall& fix = b.calls[6];
    CHECK(fix.binding.inputs.at(1).missing == Missing::Nullopt);
    const BoundCall& hint = b.calls[5];
    CHECK(hint.decl == nullptr);
    CHECK(hint.output_types.at(0).name == "std::string");

    const BoundCall& sink = b.calls.back();
    CHECK(sink.binding.shape == Shape::Sink);
    CHECK(sink.input_types.at(0).name == "std::string");
    REQUIRE(sink.arguments.size() == 2);
    CHECK(sink.arguments[0].param.name == "path");

    CHECK(b.includes == std::vector<std::string>{"flow.hpp", "rop/stdlib/fake.h"});
    REQUIRE(b.include_dirs.size() == 3);
    CHECK(b.include_dirs[0] == fixture("programs"));
    // Each token at its last occurrence: rop_stdlib_fake stays before rop_stdlib_io.
    CHECK(b.link == std::vector<std::string>{"flow_helpers", "rop_stdlib_fake", "rop_stdlib_io"});
}

TEST_CASE("bind program: type flow that binds", "[bind]") {
    const std::vector<std::string> bodies = {
        // a reduce without a UDF hands on std::vector<child>, to a sink and to a map
        "pages = expand docs as Page with flow.split;\n"
        "all = reduce pages to Doc;\n"
        "sink all -> flow.PageSink(dir: \"out\");\n",
        "pages = expand docs as Page with flow.split;\n"
        "all = reduce pages to Doc;\n"
        "n = map all with flow.count_pages;\n"
        "sink n -> flow.Jsonl(path: \"o\");\n",
        // a streaming expand's child type; a typedef is its target type
        "pages = expand docs as Page with flow.stream_pages;\n"
        "text = map pages with flow.ocr;\n"
        "kept = filter text with flow.nonempty;\n"
        "md = reduce kept to Doc with flow.join(sep: \"\");\n"
        "sink md -> flow.Jsonl(path: \"o\");\n",
        // a multi-output map: one type per port
        "pages = expand docs as Page with flow.split;\n"
        "(text, box) = map pages with flow.layout;\n"
        "d = map (box, text) with flow.fix;\n"  // fix(text, hint): Box is not a string
        "sink d -> flow.Jsonl(path: \"o\");\n",
        // the parent of a reduce is the expand's input
        "pages = expand docs as Page with flow.split;\n"
        "text = map pages with flow.ocr;\n"
        "md = reduce text to Doc with flow.with_doc;\n"
        "sink md -> flow.Jsonl(path: \"o\");\n",
    };
    for (std::size_t i = 0; i < bodies.size(); ++i) {
        const auto run = bind_text(kPrelude + bodies[i]);
        INFO(bodies[i] << render_text(run->sources, run->diags));
        const auto found = binding_diags(*run);
        if (i == 3) {  // the deliberate mismatch in row 3
            REQUIRE(found.size() == 1);
            CHECK(code_of(*found[0]) == "E0502");
            CHECK(line_col(run->sources, found[0]->range) == "6:10");
            continue;
        }
        CHECK(found.empty());
        CHECK(run->bound.has_value());
    }
}

TEST_CASE("bind program: a multi-output reduce gives each output its tuple element's type",
          "[bind]") {
    const auto run =
        bind_text(kPrelude +
                  "pages = expand docs as Page with flow.split;\n"
                  "text = map pages with flow.ocr;\n"
                  "(md, box) = reduce text to Doc with flow.summarize;\n"
                  "d = map box with flow.describe;\n"
                  "sink md -> flow.Jsonl(path: \"o\");\nsink d -> flow.Jsonl(path: \"p\");\n");
    INFO(render_text(run->sources, run->diags));
    REQUIRE(binding_diags(*run).empty());
    REQUIRE(run->bound);
    const BoundProgram& b = *run->bound;
    auto port = [&](const std::string& name) {
        for (std::size_t p = 0; p < run->program->ports.size(); ++p) {
            if (run->program->ports[p].name == name) return b.port_types[p].name;
        }
        return std::string("?");
    };
    CHECK(port("md") == "std::string");
    CHECK(port("box") == "flow::Box");
    const BoundCall& reduce = b.calls[3];
    CHECK(reduce.binding.shape == Shape::SpanReduce);
    CHECK(reduce.binding.multi_output);
    CHECK(reduce.binding.ordinals_param == 1u);
    REQUIRE(reduce.output_types.size() == 2);
    CHECK(reduce.output_types[1].name == "flow::Box");

    // One value where the Call names two outputs: the tuple rule, at the UDF's name.
    const auto wrong = bind_text(kPrelude +
                                 "pages = expand docs as Page with flow.split;\n"
                                 "text = map pages with flow.ocr;\n"
                                 "(md, n) = reduce text to Doc with flow.with_doc;\n"
                                 "sink md -> flow.Jsonl(path: \"o\");\n");
    const auto found = binding_diags(*wrong);
    REQUIRE(found.size() == 1);
    CHECK(code_of(*found[0]) == "E0501");
    CHECK(line_col(wrong->sources, found[0]->range) == "6:35");
}

TEST_CASE("bind program: overloads bind the one the item types fit", "[bind]") {
    const auto run = bind_text(kPrelude +
                               "pages = expand docs as Page with flow.split;\n"
                               "a = map pages with flow.shape;\n"
                               "b = map docs with flow.shape;\n"
                               "sink b -> flow.Jsonl(path: \"o\");\n");
    REQUIRE(run->bound);
    CHECK(run->bound->calls[2].decl->params[0].type.name == "flow::Page");
    CHECK(run->bound->calls[3].decl->params[0].type.name == "flow::Doc");
}

TEST_CASE("bind program: every binding diagnostic at its place", "[bind]") {
    const std::string pages = "pages = expand docs as Page with flow.split;\n";
    const std::string sink_text = "sink t -> flow.Jsonl(path: \"o\");\n";
    const std::vector<Row> rows = {
        {"t = map docs with flow.titel;\n" + sink_text, "E0500", "4:19", ""},
        {"t = filter docs with flow.title;\n" + sink_text, "E0501", "4:22",
         cxx("std::string title(", "std::string")},
        {pages + "(t, u) = map pages with flow.ocr;\n" + sink_text, "E0501", "5:25",
         cxx("Text ocr(", "Text")},
        {pages + "t = map pages with flow.layout;\n" + sink_text, "E0501", "5:20",
         cxx("std::tuple<std::string, Box> layout(", "std::tuple")},
        {"title = map docs with flow.title;\n" + pages + "hint = broadcast title to Page;\n" +
             "t = map (pages, hint?) with flow.strict_fix;\n" + sink_text,
         "E0501", "7:17", cxx("strict_fix(", "hint")},
        {pages + "t = map pages with flow.Files;\n" + sink_text, "E0501", "5:20",
         cxx("class Files", "Files")},
        {pages + "t = map pages with flow.title;\n" + sink_text, "E0502", "5:9",
         cxx("std::string title(", "doc")},
        {pages + "t = map pages with flow.ocr;\nsink t -> flow.PageSink(dir: \"o\");\n", "E0502",
         "6:6", cxx("std::span<const std::vector<Page>>", "items")},
        {pages + "x = map pages with flow.ocr;\nt = reduce x to Doc with flow.with_page;\n" +
             sink_text,
         "E0502", "6:26", cxx("Parent<Page>& ", "page)"),
         "(a parent is an item of 'docs', the stream its children were split from)"},
        {"p = expand docs as Page with flow.split(dpii: 2);\nt = map docs with flow.title;\n" +
             sink_text,
         "E0503", "4:41", cxx("std::vector<Page> split(", "split")},
        {pages + "x = map pages with flow.ocr;\nt = reduce x to Doc with flow.join;\n" + sink_text,
         "E0504", "6:26", cxx("std::string join(", "sep")},
        {"p = expand docs as Page with flow.split(dpi: 1.5);\nt = map docs with flow.title;\n" +
             sink_text,
         "E0505", "4:46", cxx("std::vector<Page> split(", "dpi")},
        {"p = expand docs as Page with flow.split(mode: slow);\nt = map docs with flow.title;\n" +
             sink_text,
         "E0506", "4:47", cxx("std::vector<Page> split(", "mode")},
        {"t = map docs with flow.title;\nsink t -> flow.Files(glob: \"x\");\n", "E0510", "5:11",
         cxx("class Files", "Files")},
        {"t = map docs with flow.title;\nsink t -> flow.BadWrite(path: \"x\");\n", "E0510", "5:11",
         cxx("void write(std::span", "write")},
        {"t = map docs with flow.title;\nsink t -> flow.title;\n", "E0510", "5:11",
         cxx("std::string title(", "title")},
    };
    for (const Row& row : rows) check_row(row);
}

TEST_CASE("bind program: rop::Parent<P> takes what the expand split, not the source's type",
          "[bind]") {
    // Domain Doc holds Doc items (the source) and std::string items (`t`); the expand splits `t`
    const std::string body =
        "t = map docs with flow.title;\n"
        "pages = expand t as Page with flow.split_text;\n"
        "x = map pages with flow.ocr;\n";
    const std::string sink = "sink r -> flow.Jsonl(path: \"o\");\n";
    SECTION("Parent<std::string> binds") {
        const auto run =
            bind_text(kPrelude + body + "r = reduce x to Doc with flow.with_title;\n" + sink);
        CHECK(binding_diags(*run).empty());
        CHECK(run->bound.has_value());
    }
    SECTION("Parent<Doc>, the source's type, is E0502 naming the split stream") {
        check_row({body + "r = reduce x to Doc with flow.with_doc;\n" + sink, "E0502", "7:26",
                   cxx("Parent<Doc>& ", "doc)"),
                   "(a parent is an item of 't', the stream its children were split from)"});
    }
}

TEST_CASE("bind program: a batch UDF written with std::vector is one error, no knock-on",
          "[bind]") {
    const std::string pages = "pages = expand docs as Page with flow.split;\n";
    const std::string sink_text = "sink t -> flow.Jsonl(path: \"o\");\n";
    const std::vector<Row> rows = {
        // a map: one E0501 at the UDF, a note at the parameter; its result is read as one
        // std::string per item, so the sink after it is not a second error
        {pages + "t = map pages with flow.batch_vec batch 8;\n" + sink_text, "E0501", "5:20",
         cxx("batch_vec(", "pages)"),
         "batch UDFs take std::span<const T>, not a vector: 'flow.batch_vec' takes 'const "
         "std::vector<Page> &' but the items of 'pages' are 'flow::Page'; take "
         "'std::span<const flow::Page>'"},
        // a filter returning std::vector<bool>
        {pages + "x = map pages with flow.ocr;\nt = filter x with flow.keep_vec batch 8;\n" +
             sink_text,
         "E0501", "6:19", cxx("keep_vec(", "texts)"),
         "batch UDFs take std::span<const T>, not a vector"},
    };
    for (const Row& row : rows) check_row(row);

    SECTION("a vector of items that do arrive as vectors is an element input, and fine") {
        const auto run = bind_text(kPrelude + pages + "all = reduce pages to Doc;\n" +
                                   "t = map all with flow.count_pages;\n" + sink_text);
        CHECK(binding_diags(*run).empty());
        CHECK(run->bound.has_value());
    }
}

TEST_CASE("bind program: a reduce's rop::Ordinals after its rop::Parent says the order", "[bind]") {
    const std::string pages = "pages = expand docs as Page with flow.split;\n";
    check_row({pages + "x = map pages with flow.ocr;\n" +
                   "t = reduce x to Doc with flow.parent_then_ordinals;\n" +
                   "sink t -> flow.Jsonl(path: \"o\");\n",
               "E0501", "6:26", cxx("rop::Ordinals ordinals)", "ordinals)"),
               "takes rop::Ordinals after its rop::Parent; a reduce UDF takes its ordinals "
               "first, right after its span of children: f(std::span<const T> children, "
               "rop::Ordinals ordinals, rop::Skipped skipped, const rop::Parent<P>& parent, "
               "named arguments...)"});
}

TEST_CASE("bind program: a source must be a source class", "[bind]") {
    struct SourceRow {
        std::string op;
        std::string reason;  // a piece of the message
        std::string cxx_note;
    };
    const std::vector<SourceRow> rows = {
        {"flow.split(dpi: 1)", "is a function", cxx("std::vector<Page> split(", "split")},
        {"flow.NotAnything", "has no public operator()", ""},  // not a UDF at all: E0500
        {"flow.BadNext(glob: \"x\")", "must return std::optional<T>", cxx("Doc next()", "Doc")},
        {"flow.IntPath(port: 1)", "must be a string", cxx("IntPath(int", "port")},
        {"flow.Jsonl(path: \"x\")", "has no public 'std::optional<T> next()'",
         cxx("class Jsonl", "Jsonl")},
    };
    for (const SourceRow& row : rows) {
        INFO(row.op);
        const auto run = bind_text("pipeline t;\nuse \"flow.hpp\";\nsource docs : Doc = " + row.op +
                                   ";\nsink docs -> flow.Jsonl(path: \"o\");\n");
        const auto found = binding_diags(*run);
        REQUIRE_FALSE(found.empty());
        const Diagnostic& d = *found[0];
        CHECK(line_col(run->sources, d.range) == "3:21");
        if (row.cxx_note.empty()) {
            CHECK(code_of(d) == "E0500");  // a class with neither operator() nor next()/write()
            continue;
        }
        CHECK(code_of(d) == "E0509");
        CHECK(d.message.find(row.reason) != std::string::npos);
        REQUIRE_FALSE(d.notes.empty());
        CHECK(note_at(run->sources, d.notes[0]) == row.cxx_note);
    }
}

TEST_CASE("bind program: the fix-its and notes of the call checks", "[bind]") {
    const std::string sink_text = "sink t -> flow.Jsonl(path: \"o\");\n";
    SECTION("E0500 close to a declared name: the fix-it replaces the name with it") {
        const auto run = bind_text(kPrelude + "t = map docs with flow.titel;\n" + sink_text);
        const auto found = binding_diags(*run);
        REQUIRE(found.size() == 1);
        CHECK(code_of(*found[0]) == "E0500");
        REQUIRE(found[0]->fixit);
        CHECK(line_col(run->sources, found[0]->fixit->range) == "4:19");
        CHECK(found[0]->fixit->replacement == "flow.title");
    }
    SECTION("E0500 in std. with nothing close: the note says the stdlib declares none") {
        const auto run =
            bind_text(kPrelude + "t = map docs with std.fake.nothing_like_it;\n" + sink_text);
        const auto found = binding_diags(*run);
        REQUIRE(found.size() == 1);
        CHECK(code_of(*found[0]) == "E0500");
        CHECK(line_col(run->sources, found[0]->range) == "4:19");
        CHECK_FALSE(found[0]->fixit);
        REQUIRE(found[0]->notes.size() == 1);
        CHECK(found[0]->notes[0].message ==
              "the standard library (rop/stdlib/*.h) declares no 'std.fake.nothing_like_it'");
    }
    SECTION("E0501 when no overload fits: one candidate note per overload, at its result") {
        const auto run = bind_text(kPrelude + "t = filter docs with flow.shape;\n" + sink_text);
        const auto found = binding_diags(*run);
        REQUIRE(found.size() == 1);
        CHECK(code_of(*found[0]) == "E0501");
        CHECK(line_col(run->sources, found[0]->range) == "4:22");
        CHECK(found[0]->message == "no overload of 'flow::shape' fits a filter with 1 input");
        REQUIRE(found[0]->notes.size() == 2);
        CHECK(note_at(run->sources, found[0]->notes[0]) ==
              cxx("std::string shape(const Page", "std::string"));
        CHECK(note_at(run->sources, found[0]->notes[1]) ==
              cxx("std::string shape(const Doc", "std::string"));
        for (const Note& note : found[0]->notes) {
            CHECK(note.message.find("candidate: filter UDF must return bool") == 0);
        }
    }
    SECTION("E0509 for a sink class: a note says what it is") {
        const auto run = bind_text(
            "pipeline t;\nuse \"flow.hpp\";\n"
            "source docs : Doc = flow.Jsonl(path: \"x\");\n"
            "sink docs -> flow.Jsonl(path: \"o\");\n");
        const auto found = binding_diags(*run);
        REQUIRE(found.size() == 1);
        CHECK(code_of(*found[0]) == "E0509");
        CHECK(line_col(run->sources, found[0]->range) == "3:21");
        REQUIRE(found[0]->notes.size() == 2);
        CHECK(found[0]->notes[1].message == "'flow.Jsonl' is a sink class");
    }
    SECTION("E0503 with a close parameter: the fix-it replaces the argument's name") {
        const auto run =
            bind_text(kPrelude + "p = expand docs as Page with flow.split(dpii: 2);\n" +
                      "t = map docs with flow.title;\n" + sink_text);
        const auto found = binding_diags(*run);
        REQUIRE(found.size() == 1);
        CHECK(code_of(*found[0]) == "E0503");
        REQUIRE(found[0]->fixit);
        CHECK(line_col(run->sources, found[0]->fixit->range) == "4:41");
        CHECK(found[0]->fixit->replacement == "dpi");
    }
}

TEST_CASE("bind program: header problems", "[bind]") {
    SECTION("a use header that is not there is E0507 at its path") {
        const auto run = bind_text(
            "pipeline t;\nuse \"nope.hpp\";\nuse \"flow.hpp\";\n"
            "source docs : Doc = flow.Files(glob: \"x\");\n"
            "t = map docs with nope.f;\n"
            "sink t -> flow.Jsonl(path: \"o\");\n");
        const auto found = binding_diags(*run);
        REQUIRE(found.size() == 1);  // nope.f is not reported again as unknown
        CHECK(code_of(*found[0]) == "E0507");
        CHECK(line_col(run->sources, found[0]->range) == "2:5");
    }
    SECTION("a C++ error is E0508 at the use, with Clang's location as a note") {
        const auto run = bind_text(
            "pipeline t;\nuse \"../syntax_error.hpp\";\nuse \"flow.hpp\";\n"
            "source docs : Doc = flow.Files(glob: \"x\");\n"
            "t = map docs with flow.title;\n"
            "u = map t with fine_after;\n"
            "sink u -> flow.PageSink(dir: \"o\");\n");
        const auto found = binding_diags(*run);
        REQUIRE(found.size() == 2);
        CHECK(code_of(*found[0]) == "E0508");
        CHECK(line_col(run->sources, found[0]->range) == "2:5");
        CHECK(found[0]->message.find("undeclared_type") != std::string::npos);
        REQUIRE(found[0]->notes.size() == 1);
        const SourceLoc error = loc_of("syntax_error.hpp", "undeclared_type");
        CHECK(note_at(run->sources, found[0]->notes[0]) ==
              "syntax_error.hpp:" + std::to_string(error.line) + ":" +
                  std::to_string(error.column));
        // what could be read is still bound: fine_after's std::string is not PageSink's type
        CHECK(code_of(*found[1]) == "E0502");
    }
    SECTION("an error in a file a use header #includes is shown at that header's use") {
        const auto run = bind_text(
            "pipeline t;\nuse \"flow.hpp\";\n"
            "use \"../includes_syntax_error.hpp\";\n"
            "source docs : Doc = flow.Files(glob: \"x\");\n"
            "t = map docs with flow.title;\n"
            "u = map t with wraps;\n"
            "sink u -> flow.Jsonl(path: \"o\");\n");
        const auto found = binding_diags(*run);
        REQUIRE(found.size() == 1);
        CHECK(code_of(*found[0]) == "E0508");
        CHECK(line_col(run->sources, found[0]->range) == "3:5");
        const SourceLoc error = loc_of("syntax_error.hpp", "undeclared_type");
        REQUIRE_FALSE(found[0]->notes.empty());
        CHECK(note_at(run->sources, found[0]->notes[0]) ==
              "syntax_error.hpp:" + std::to_string(error.line) + ":" +
                  std::to_string(error.column));
    }
    SECTION("more errors than Clang's limit: the real ones first, at their header's use") {
        // The golden E0508_too_many_errors's header: 24 errors. After Clang's limit a name no
        // header declares is not reported as unknown: the unread rest might have declared it.
        const auto run = bind_text(
            "pipeline t;\nuse \"flow.hpp\";\n"
            "use \"../../../diagnostics/udfs/many_errors.hpp\";\n"
            "source docs : Doc = flow.Files(glob: \"x\");\n"
            "t = map docs with flow.title;\n"
            "u = map t with std.fake.upper;\n"
            "v = map u with many.never_declared;\n"
            "sink v -> flow.Jsonl(path: \"o\");\n");
        const auto found = binding_diags(*run);
        REQUIRE(found.size() == 20);  // Clang's -ferror-limit; nothing else (no unknown UDF)
        for (std::size_t i = 0; i < found.size(); ++i) {
            INFO(i << ": " << found[i]->message);
            CHECK(code_of(*found[i]) == "E0508");
            CHECK(line_col(run->sources, found[i]->range) == "3:5");  // not the valid use on 2
            CHECK(found[i]->message.find("too many errors") == std::string::npos);
        }
        CHECK(found.front()->message.find("undeclared_01") != std::string::npos);
        // the limit is a note after the last error, not an error of its own
        REQUIRE(found.back()->notes.size() == 2);
        CHECK(found.back()->notes[1].message.find("Clang stopped after this error") == 0);
        for (const Diagnostic& d : run->diags) CHECK(d.id != DiagId::TooManyErrors);
    }
}

TEST_CASE("bind program: the nondeterminism lint warns once per UDF, unless off", "[bind]") {
    const std::string body = "a = map docs with flow.noisy;\nb = map docs with flow.noisy;\n";
    const auto run = bind_text(kPrelude + body);
    const auto found = binding_diags(*run);
    REQUIRE(found.size() == 1);
    CHECK(code_of(*found[0]) == "W0500");
    CHECK(line_col(run->sources, found[0]->range) == "4:19");
    CHECK(note_at(run->sources, found[0]->notes.at(0)) == cxx("inline int noisy", "std::rand"));
    CHECK(run->bound.has_value());  // warnings do not stop binding

    const auto quiet = bind_text(kPrelude + body, false);
    CHECK(binding_diags(*quiet).empty());
}

TEST_CASE("bind program: without a SourceManager, notes carry the C++ location in text", "[bind]") {
    SourceManager sources;
    const std::string path = fixture("programs/test.rop");
    const FileId file = sources.add_buffer(
        path, kPrelude + "t = filter docs with flow.title;\nsink t -> flow.Jsonl(path: \"o\");\n");
    DiagnosticEngine diags(sources);
    const auto program = sema::check(parse(file, sources, diags), diags);
    REQUIRE(program);
    ProgramBindOptions options;
    options.stdlib_include_dirs = {fixture("stdlib")};
    options.include_dirs = {ROP_API_INCLUDE};
    CHECK_FALSE(bind_program(*program, path, options, diags));
    const auto all = diags.finish();
    REQUIRE_FALSE(all.empty());
    REQUIRE_FALSE(all[0].notes.empty());
    CHECK_FALSE(all[0].notes[0].range);
    CHECK(all[0].notes[0].message.rfind(fixture(kHeader) + ":", 0) == 0);
    CHECK(sources.file_count() == 1);
}

}  // namespace
}  // namespace rop::bind::test
