// Record sources and sinks (std.io's JsonlSource<T>, CsvSource<T>, JsonlSink<T>) named by an
// alias in a `use` header (fixtures/programs/records.hpp): binding accepts the alias as the
// class, records which record type it reads or writes, asks codegen for the rop::Fields tables
// (nested structs first; none for a hand-written one), and reports E0511 at the operator, with a
// note at the field, for a record type it cannot map.
#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <memory>

#include "bind/bind_program.h"
#include "bind/records.h"
#include "bind_test_util.h"
#include "frontend/parser.h"
#include "sema/sema.h"

namespace rop::bind::test {
namespace {

const std::string kHeader = "programs/records.hpp";
const std::string kPrelude =
    "pipeline t;\n"
    "use \"records.hpp\";\n";  // the body starts on line 3

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
    options.include_dirs = include_dirs();  // <rop/udf.h>, <rop/stdlib/io.h>
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

std::vector<std::string> names(const std::vector<const TypeCodec*>& codecs) {
    std::vector<std::string> out;
    for (const TypeCodec* codec : codecs) out.push_back(codec->name);
    return out;
}

}  // namespace

TEST_CASE("bind records: an alias of a record source and sink binds as the class",
          "[bind][records]") {
    const auto run =
        bind_text(kPrelude +
                  "source orders : Order = records.OrderRows(path: \"in/o.jsonl\");\n"
                  "sink orders -> records.OrderOut(path: \"o.jsonl\", ordered: true);\n");
    for (const Diagnostic& d : run->diags) INFO(d.message);
    CHECK(errors(*run).empty());
    REQUIRE(run->bound);
    const BoundProgram& bound = *run->bound;
    const BoundCall& source = bound.calls[run->program->source];
    REQUIRE(source.decl);
    CHECK(source.decl->qualified_name == "records::OrderRows");
    REQUIRE(source.decl->record_type);
    CHECK(source.decl->record_type->canonical == "records::Order");
    CHECK_FALSE(source.decl->record_csv);
    CHECK(source.decl->location == loc_of(kHeader, "OrderRows ="));
    const BoundCall& sink = bound.calls[run->program->sinks.at(0)];
    REQUIRE(sink.decl);
    CHECK(sink.decl->qualified_name == "records::OrderOut");
    REQUIRE(sink.arguments.size() == 2);  // path, ordered: the constructor's parameters
    CHECK(sink.arguments[1].param.name == "ordered");
    // The tables codegen writes: the nested struct first, each once.
    CHECK(names(records_to_generate(bound)) ==
          std::vector<std::string>{"records::Address", "records::Order"});
}

TEST_CASE("bind records: CSV rows of scalars map; a hand-written table is left alone",
          "[bind][records]") {
    const auto run =
        bind_text(kPrelude + "source rows : Row = records.RowCsv(path: \"in/rows.csv\");\n");
    CHECK(errors(*run).empty());
    REQUIRE(run->bound);
    const BoundCall& source = run->bound->calls[run->program->source];
    REQUIRE(source.decl);
    REQUIRE(source.decl->record_type);
    CHECK(source.decl->record_csv);
    const auto named =
        bind_text(kPrelude + "source n : Named = records.NamedRows(path: \"in/n.jsonl\");\n");
    CHECK(errors(*named).empty());
    REQUIRE(named->bound);
    CHECK(records_to_generate(*named->bound).empty());
    CHECK(names(records_to_generate(*run->bound)) == std::vector<std::string>{"records::Row"});
}

TEST_CASE("bind records: E0511 at the operator, naming the struct and the field",
          "[bind][records]") {
    struct Row {
        std::string stage;    // on line 3 (line 4 when it needs the source first)
        std::string op;       // the operator, where the error is
        std::string message;  // every error's message, in order
        std::string note_at;  // the fixture line of the first error's note
    };
    const std::string map_hold =
        "', which a record cannot hold (text, numbers, bool, std::optional, std::vector, "
        "structs)";
    const std::vector<Row> rows = {
        {"source x : Mapped = records.MappedRows(path: \"a\");", "records.MappedRows",
         "'records.MappedRows' reads or writes 'records::Mapped' as a JSON record, but field "
         "'counts' of 'records::Mapped' has type 'std::map<std::string, int>" +
             map_hold,
         "std::map<std::string, int> counts;"},
        {"source x : Hidden = records.HiddenRows(path: \"a\");", "records.HiddenRows",
         "'records.HiddenRows' reads or writes 'records::Hidden' as a JSON record, but field "
         "'secret_' of 'records::Hidden' (of type 'int') is private",
         "int secret_ = 0;"},
        {"source x : Tagged = records.TaggedRows(path: \"a\");", "records.TaggedRows",
         "'records.TaggedRows' reads or writes 'records::Tagged' as a JSON record, but field "
         "'kind' of 'records::Tagged' has type 'records::Kind" +
             map_hold,
         "Kind kind = Kind::Small;"},
        {"source x : Order = records.OrderCsv(path: \"a.csv\");", "records.OrderCsv",
         "'records.OrderCsv' reads or writes 'records::Order' as a CSV record, but field 'tags' "
         "of 'records::Order' is not one CSV cell: a CSV record holds text, numbers, bool or "
         "std::optional of one (read it from JSONL instead)\n"
         "'records.OrderCsv' reads or writes 'records::Order' as a CSV record, but field "
         "'address' of 'records::Order' is not one CSV cell: a CSV record holds text, numbers, "
         "bool or std::optional of one (read it from JSONL instead)",
         "std::vector<std::string> tags;"},
        {"sink x -> records.OrderCsvOut(path: \"o.csv\");", "records.OrderCsvOut",
         "'records.OrderCsvOut' reads or writes 'records::Order' as a CSV record, but field "
         "'tags' of 'records::Order' is not one CSV cell: a CSV record holds text, numbers, bool "
         "or std::optional of one (read it from JSONL instead)\n"
         "'records.OrderCsvOut' reads or writes 'records::Order' as a CSV record, but field "
         "'address' of 'records::Order' is not one CSV cell: a CSV record holds text, numbers, "
         "bool or std::optional of one (read it from JSONL instead)",
         "std::vector<std::string> tags;"},
        {"n = map x with records.nest;\nsink n -> records.NestedOut(path: \"o\");",
         "records.NestedOut",
         "'records.NestedOut' reads or writes 'records::Nested' as a JSON record, but field "
         "'counts' of 'records::Mapped' has type 'std::map<std::string, int>" +
             map_hold,
         "std::map<std::string, int> counts;"},
    };
    for (const Row& row : rows) {
        INFO(row.stage);
        const bool after_source = row.stage.rfind("source", 0) != 0;
        const std::string body =
            after_source ? "source x : Order = records.OrderRows(path: \"a\");\n" + row.stage
                         : row.stage;
        const auto run = bind_text(kPrelude + body + "\n");
        const std::vector<Diagnostic> found = errors(*run);
        REQUIRE_FALSE(found.empty());
        std::string messages;
        for (const Diagnostic& d : found) {
            CHECK(diag_info(d.id).code == std::string_view("E0511"));
            messages += (messages.empty() ? "" : "\n") + d.message;
        }
        CHECK(messages == row.message);
        const Diagnostic& d = found[0];
        const std::size_t line =
            3 + (after_source ? 1 : 0) +
            static_cast<std::size_t>(std::count(row.stage.begin(), row.stage.end(), '\n'));
        const std::string stage_line =
            after_source ? row.stage.substr(row.stage.find('\n') + 1) : row.stage;
        CHECK(line_col(run->sources, d.range) ==
              std::to_string(line) + ":" + std::to_string(stage_line.find(row.op) + 1));
        CHECK(d.range.end - d.range.begin == row.op.size());
        REQUIRE_FALSE(d.notes.empty());
        REQUIRE(d.notes[0].range);
        CHECK(run->sources.line_col(d.notes[0].range->file, d.notes[0].range->begin).line ==
              loc_of(kHeader, row.note_at).line);
        CHECK_FALSE(run->bound);
    }
}

}  // namespace rop::bind::test
