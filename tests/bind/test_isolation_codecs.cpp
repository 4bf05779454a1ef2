// Item types that cross a process boundary (fixtures/programs/codecs.hpp): the codec table
// read_udfs fills (builtin, user, generated field lists, and why a type has none), E0306 at an
// `isolation process` Call's option naming the type and the field, and the struct codecs codegen
// is asked to write, each after the ones it uses.
#include <catch2/catch_test_macros.hpp>
#include <memory>

#include "bind/bind_program.h"
#include "bind/crossing.h"
#include "bind_test_util.h"
#include "frontend/parser.h"
#include "sema/sema.h"

namespace rop::bind::test {
namespace {

const std::string kHeader = "programs/codecs.hpp";
const std::string kPrelude =
    "pipeline t;\n"
    "use \"codecs.hpp\";\n"
    "source docs : Doc = codecs.Files(glob: \"in/*.pdf\");\n"
    "pages = expand docs as Page with codecs.split;\n";  // the body starts on line 5

struct Run {
    SourceManager sources;
    std::optional<sema::CheckedProgram> program;
    std::optional<BoundProgram> bound;
    std::vector<Diagnostic> diags;
};

// Parses, checks and binds `text` as if it were fixtures/programs/test.rop.
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
    options.include_dirs = {ROP_API_INCLUDE};  // <rop/udf.h>
    options.pch_cache_dir = std::string(ROP_BIND_TEST_CACHE) + "/shared";
    options.sources = &run->sources;
    run->bound = bind_program(*run->program, path, options, diags);
    run->diags = diags.finish();
    return run;
}

std::vector<Diagnostic> errors(const Run& run) {
    std::vector<Diagnostic> out;
    for (const Diagnostic& d : run.diags) {
        if (d.severity == Severity::Error) out.push_back(d);
    }
    return out;
}

std::string line_col(const SourceManager& sources, const SourceRange& range) {
    const LineCol at = sources.line_col(range.file, range.begin);
    return std::to_string(at.line) + ":" + std::to_string(at.column);
}

const TypeCodec& codec_named(const UdfLibrary& library, const std::string& name) {
    for (const TypeCodec& codec : library.codecs) {
        if (codec.name == name) return codec;
    }
    FAIL("no codec entry for " << name);
    return library.codecs.front();
}

// The entry whose name starts so (standard types print with their default arguments or not).
const TypeCodec& codec_starting(const UdfLibrary& library, const std::string& prefix) {
    for (const TypeCodec& codec : library.codecs) {
        if (codec.name.rfind(prefix, 0) == 0) return codec;
    }
    FAIL("no codec entry starting " << prefix);
    return library.codecs.front();
}

}  // namespace

TEST_CASE("bind codecs: the table of what crosses and what cannot", "[bind][codec]") {
    const UdfLibrary& library = read_fixture(kHeader).library;
    REQUIRE(read_fixture(kHeader).errors.empty());

    const TypeCodec& page = codec_named(library, "codecs::Page");
    CHECK(page.kind == CodecKind::Fields);  // static members and functions are not fields
    CHECK(page.fields == std::vector<std::string>{"number", "text", "meta", "history", "pixels"});
    CHECK(page.needs == std::vector<std::string>{"codecs::Meta", "codecs::Meta"});
    const TypeCodec& meta = codec_named(library, "codecs::Meta");
    CHECK(meta.kind == CodecKind::Fields);
    CHECK(meta.fields == std::vector<std::string>{"scores", "note", "kind"});
    CHECK(meta.needs.empty());  // a map of vectors, an optional and an enum are all builtin
    const TypeCodec& node = codec_named(library, "codecs::Node");
    CHECK(node.kind == CodecKind::Fields);  // recursive through a vector
    CHECK(node.needs == std::vector<std::string>{"codecs::Node"});
    const TypeCodec& everything = codec_named(library, "codecs::Everything");
    INFO(everything.problem_field << " " << everything.problem_type << " " << everything.problem);
    CHECK(everything.kind == CodecKind::Fields);
    CHECK(everything.fields.size() == 13);
    CHECK(everything.needs == std::vector<std::string>{"codecs::Meta", "codecs::Meta"});
    CHECK(codec_named(library, "codecs::Opaque").kind == CodecKind::User);
    CHECK(codec_named(library, "codecs::Handle<int>").kind == CodecKind::User);  // partial
    CHECK(codec_starting(library, "std::basic_string<char").kind == CodecKind::Builtin);
    CHECK(codec_starting(library, "std::vector<codecs::Page").kind == CodecKind::Builtin);

    struct Bad {
        std::string type, field, field_type, problem;
        bool is_field;
        std::string declared_at;  // text on the field's line
    };
    const std::vector<Bad> bad = {
        {"codecs::Cached", "cache", "std::shared_ptr<codecs::Cache>", "has no codec", false,
         "std::shared_ptr<Cache> cache;"},
        {"codecs::Hidden", "secret", "std::string", "is private", true, "std::string secret;"},
        {"codecs::Pointer", "name", "const char *", "has no codec", false,
         "const char* name = nullptr;"},
        {"codecs::Callback", "done", "std::function<void ()>", "has no codec", false,
         "std::function<void()> done;"},
        {"codecs::Deep", "items.cache", "std::shared_ptr<codecs::Cache>", "has no codec", false,
         "std::shared_ptr<Cache> cache;"},
        {"codecs::Ring", "raw", "void *", "has no codec", false, "void* raw = nullptr;"},
        {"codecs::Loop", "rings.raw", "void *", "has no codec", false, "void* raw = nullptr;"},
        {"codecs::InTuple", "tuple", "std::tuple<int, void *>", "has no codec", false,
         "std::tuple<int, void*> tuple;"},
        {"codecs::InVariant", "variant", "std::variant<int, std::function<void ()>>",
         "has no codec", false, "std::variant<int, std::function<void()>> variant;"},
        {"codecs::View", "text", "std::string_view", "has no codec", false,
         "std::string_view text;"},
    };
    for (const Bad& row : bad) {
        INFO(row.type);
        const TypeCodec& codec = codec_named(library, row.type);
        CHECK(codec.kind == CodecKind::None);
        CHECK(codec.problem_field == row.field);
        CHECK(codec.problem_type == row.field_type);
        CHECK(codec.problem == row.problem);
        CHECK(codec.problem_is_field == row.is_field);
        CHECK(codec.fields.empty());
        const SourceLoc declared = loc_of(kHeader, row.declared_at);
        CHECK(codec.problem_location.line == declared.line);
    }
    const TypeCodec& shared = codec_starting(library, "std::shared_ptr<codecs::Cache>");
    CHECK(shared.kind == CodecKind::None);  // shared and mutable: only shared_ptr<const T> travels
    CHECK(shared.problem_field.empty());
}

TEST_CASE("bind codecs: E0306 at the isolation option, naming the type and the field",
          "[bind][codec]") {
    struct Row {
        std::string stage;  // one line, the fifth of the pipeline
        std::string message;
        std::string note_at;  // the C++ field's line text; empty: no C++ note
    };
    const std::string cannot = "isolation process: item type ";
    const std::string advice = "; give it a rop::Codec specialization (docs/udfs.md)";
    const std::vector<Row> rows = {
        {"x = map pages with codecs.cache batch 4 isolation process;",
         cannot +
             "'codecs::Cached' cannot cross a process boundary: field 'cache' has type "
             "'std::shared_ptr<codecs::Cache>', which has no codec" +
             advice,
         "std::shared_ptr<Cache> cache;"},
        {"x = map pages with codecs.hidden isolation process;",
         cannot +
             "'codecs::Hidden' cannot cross a process boundary: field 'secret' (of type "
             "'std::string') is private" +
             advice,
         "std::string secret;"},
        {"x = map pages with codecs.pointer isolation process;",
         cannot +
             "'codecs::Pointer' cannot cross a process boundary: field 'name' has type "
             "'const char *', which has no codec" +
             advice,
         "const char* name"},
        {"x = map pages with codecs.callback isolation process actors 2;",
         cannot +
             "'codecs::Callback' cannot cross a process boundary: field 'done' has type "
             "'std::function<void ()>', which has no codec" +
             advice,
         "std::function<void()> done;"},
        {"x = map pages with codecs.deep isolation process;",
         cannot +
             "'codecs::Deep' cannot cross a process boundary: field 'items.cache' has type "
             "'std::shared_ptr<codecs::Cache>', which has no codec" +
             advice,
         "std::shared_ptr<Cache> cache;"},
        {"x = map pages with codecs.shared isolation process;",
         cannot +
             "'std::shared_ptr<codecs::Cache>' cannot cross a process boundary: it has no "
             "codec" +
             advice,
         ""},
    };
    for (const Row& row : rows) {
        INFO(row.stage);
        const auto run = bind_text(kPrelude + row.stage + "\n");
        const std::vector<Diagnostic> found = errors(*run);
        REQUIRE(found.size() == 1);
        const Diagnostic& d = found[0];
        CHECK(diag_info(d.id).code == std::string_view("E0306"));
        CHECK(d.message == row.message);
        // At the option `isolation process`, underlined whole.
        const std::size_t column = row.stage.find("isolation") + 1;
        CHECK(line_col(run->sources, d.range) == "5:" + std::to_string(column));
        CHECK(d.range.end - d.range.begin == std::string("isolation process").size());
        if (!row.note_at.empty()) {
            REQUIRE(d.notes.size() == 2);
            REQUIRE(d.notes[0].range);
            const SourceLoc field = loc_of(kHeader, row.note_at);
            CHECK(run->sources.line_col(d.notes[0].range->file, d.notes[0].range->begin).line ==
                  field.line);
        } else {
            CHECK(d.notes.size() == 1);
        }
        CHECK(d.notes.back().message.find("sent to and from its actor processes") !=
              std::string::npos);
        CHECK_FALSE(run->bound);
    }
}

TEST_CASE("bind codecs: the same Calls on threads check clean", "[bind][codec]") {
    const auto run = bind_text(kPrelude + "x = map pages with codecs.cache isolation thread;\n" +
                               "y = map pages with codecs.pointer;\n");
    CHECK(errors(*run).empty());
    REQUIRE(run->bound);
    CHECK(codecs_to_generate(*run->bound).empty());
}

TEST_CASE("bind codecs: types with codecs check clean, and which codecs codegen writes",
          "[bind][codec]") {
    const auto run =
        bind_text(kPrelude +
                  "clean = map pages with codecs.clean isolation process;\n"    // Page
                  "trees = map clean with codecs.tree isolation process;\n"     // Node
                  "hidden = map clean with codecs.hide isolation process;\n"    // a user codec
                  "handle = map clean with codecs.handle isolation process;\n"  // a partial one
                  "text = map clean with codecs.show isolation process;\n"      // std::string
                  "sum = reduce clean to Doc with codecs.summary isolation process;\n"  // Doc
                  "sink text -> codecs.Jsonl(path: \"o\");\n");
    INFO(render_text(run->sources, run->diags));
    CHECK(errors(*run).empty());
    REQUIRE(run->bound);
    std::vector<std::string> names;
    for (const TypeCodec* codec : codecs_to_generate(*run->bound)) names.push_back(codec->name);
    // Meta before Page (Page's codec uses it); Opaque has the user's; Doc (the reduce's parent).
    CHECK(names ==
          std::vector<std::string>{"codecs::Meta", "codecs::Page", "codecs::Node", "codecs::Doc"});
}

TEST_CASE("bind codecs: an expand with isolation process sends its parent and its children",
          "[bind][codec]") {
    const auto run = bind_text(
        "pipeline t;\n"
        "use \"codecs.hpp\";\n"
        "source docs : Doc = codecs.Files(glob: \"in/*.pdf\");\n"
        "pages = expand docs as Page with codecs.split isolation process;\n");
    CHECK(errors(*run).empty());
    REQUIRE(run->bound);
    std::vector<std::string> names;
    for (const TypeCodec* codec : codecs_to_generate(*run->bound)) names.push_back(codec->name);
    CHECK(names == std::vector<std::string>{"codecs::Doc", "codecs::Meta", "codecs::Page"});
}

TEST_CASE("bind codecs: the vector a reduce without a UDF makes crosses by its element",
          "[bind][codec]") {
    const auto good = bind_text(kPrelude + "all = reduce pages to Doc;\n" +
                                "n = map all with codecs.count isolation process;\n");
    INFO(render_text(good->sources, good->diags));
    CHECK(errors(*good).empty());
    REQUIRE(good->bound);
    std::vector<std::string> names;
    for (const TypeCodec* codec : codecs_to_generate(*good->bound)) names.push_back(codec->name);
    CHECK(names == std::vector<std::string>{"codecs::Meta", "codecs::Page"});

    const std::string stage = "n = map all with codecs.count_cached isolation process;";
    const auto bad = bind_text(kPrelude + "c = map pages with codecs.cache;\n" +
                               "all = reduce c to Doc;\n" + stage + "\n");
    const std::vector<Diagnostic> found = errors(*bad);
    REQUIRE(found.size() == 1);
    CHECK(diag_info(found[0].id).code == std::string_view("E0306"));
    CHECK(found[0].message.find("item type 'std::vector<codecs::Cached>' cannot cross a process "
                                "boundary: field 'cache' has type "
                                "'std::shared_ptr<codecs::Cache>', which has no codec") !=
          std::string::npos);
    CHECK(line_col(bad->sources, found[0].range) ==
          "7:" + std::to_string(stage.find("isolation") + 1));
}

}  // namespace rop::bind::test
