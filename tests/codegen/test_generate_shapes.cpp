// generate() for the shapes test_generate.cpp and test_generate_reduce.cpp leave out: a
// streaming expand, optional inputs (std::optional and const T*, element and batch), a batch
// filter, rop::ItemResult results (batch map, element filter), broadcast, a reduce without a
// UDF, and a UDF call too long for one line. The output stays within the column limit, writes
// each Call's options once, compiles against the runtime and stdlib headers, and a C++ error in a
// wrapped call still points at its .rop line.
#include <catch2/catch_test_macros.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "bind/bind_program.h"
#include "codegen/arguments.h"
#include "codegen/generate.h"
#include "codegen/wrap.h"
#include "frontend/parser.h"
#include "host_compiler.h"
#include "sema/sema.h"

namespace rop::codegen {
namespace {

namespace t = rop::codegen::test;
using bind::ArgKind;
using bind::Missing;
using bind::Shape;

constexpr const char* kPipeline = R"(pipeline shapes;
use "codegen_stub_udfs.h";
source docs : Doc = stub.Docs(glob: "in/*.doc");
pages  = expand docs as Page with stub.render_streaming;
title  = map docs with stub.title;
hint   = broadcast title to Page;
fixed  = map (pages, hint?) with stub.fix_optional;
noted  = map (fixed, hint?) with stub.fix_pointer;
marked = map (noted, hint?) with stub.mark_batch batch 2;
kept   = filter marked with stub.keep_batch batch 4;
sure   = map kept with stub.check_batch batch 3;
tidy   = filter sure with stub.keep_checked;
long   = map tidy with stub.decorate(prefix: "<<<<<<<<<<<<<<<<<<<<", suffix: ">>>>>>>>>>>>>>>>>>>>");
all    = reduce long to Doc;
sink title -> stub.Out(path: "out");
)";
constexpr std::uint32_t kLongLine = 13;  // `long = ...` in kPipeline

bind::CxxType type(std::string name) {
    bind::CxxType out;
    out.spelling = name;
    out.canonical = name;
    out.name = std::move(name);
    return out;
}

bind::UdfParam param(std::string name, std::string type_name, ArgKind kind) {
    bind::UdfParam out;
    out.name = std::move(name);
    out.type = type(std::move(type_name));
    out.arg_kind = kind;
    return out;
}

// The BoundProgram bind_program gives kPipeline; `suffix_value` replaces what the long call's
// `suffix` gets (a wrong one makes a C++ error on a continuation line of the wrapped call).
struct Fixture {
    SourceManager sources;
    std::optional<sema::CheckedProgram> program;
    bind::BoundProgram bound;

    explicit Fixture(std::optional<ast::Value> suffix_value = std::nullopt) {
        FileId file = sources.add_buffer("shapes.rop", kPipeline);
        DiagnosticEngine diags(sources);
        program = sema::check(parse(file, sources, diags), diags);
        REQUIRE(program.has_value());
        bound.program = &*program;
        auto port_type = [&](std::string_view port) -> std::string {
            if (port == "docs") return "stub::Doc";
            if (port == "pages" || port == "fixed" || port == "noted") return "stub::Page";
            if (port == "all") return "std::vector<std::string>";
            return "std::string";
        };
        for (const sema::Port& port : program->ports) {
            bound.port_types.push_back(type(port_type(port.name)));
        }
        bound.library.decls.reserve(16);
        auto decl = [&](std::string qualified, bool is_class) {
            bind::UdfDecl d;
            d.qualified_name = std::move(qualified);
            d.is_class = is_class;
            bound.library.decls.push_back(d);
            return &bound.library.decls.back();
        };
        for (const sema::Call& call : program->calls) {
            bind::BoundCall bc;
            bc.call = call.id;
            auto input = [&](std::string item, Missing missing = Missing::NotAccepted) {
                const std::size_t index = bc.binding.inputs.size();
                bc.binding.inputs.push_back({type(std::move(item)), missing, index});
            };
            const std::string name = call.op ? call.op->name : "";
            if (name == "stub.Docs") {
                bc.decl = decl("stub::Docs", true);
                bc.binding.shape = Shape::Source;
                bc.arguments.push_back(
                    {param("glob", "std::string", ArgKind::String), call.op->args.at(0)});
            } else if (name == "stub.render_streaming") {
                bc.decl = decl("stub::render_streaming", false);
                bc.binding.shape = Shape::StreamingExpand;
                bc.binding.emitter_param = 1;
                input("stub::Doc");
            } else if (name == "stub.title") {
                bc.decl = decl("stub::title", false);
                bc.binding.shape = Shape::ElementMap;
                input("stub::Doc");
            } else if (name == "stub.fix_optional" || name == "stub.fix_pointer") {
                const bool optional = name == "stub.fix_optional";
                bc.decl = decl(optional ? "stub::fix_optional" : "stub::fix_pointer", false);
                bc.binding.shape = Shape::ElementMap;
                input("stub::Page");
                input("std::string", optional ? Missing::Nullopt : Missing::Null);
            } else if (name == "stub.mark_batch") {
                bc.decl = decl("stub::mark_batch", false);
                bc.binding.shape = Shape::BatchMap;
                input("stub::Page");
                input("std::string", Missing::Nullopt);
            } else if (name == "stub.keep_batch") {
                bc.decl = decl("stub::keep_batch", false);
                bc.binding.shape = Shape::BatchFilter;
                input("std::string");
            } else if (name == "stub.check_batch" || name == "stub.keep_checked") {
                const bool batch = name == "stub.check_batch";
                bc.decl = decl(batch ? "stub::check_batch" : "stub::keep_checked", false);
                bc.binding.shape = batch ? Shape::BatchMap : Shape::ElementFilter;
                bc.binding.item_result = true;
                input("std::string");
            } else if (name == "stub.decorate") {
                bc.decl = decl("stub::wrapping::decorate_with_a_long_name", false);
                bc.binding.shape = Shape::ElementMap;
                input("std::string");
                bc.arguments.push_back(
                    {param("prefix", "std::string", ArgKind::String), call.op->args.at(0)});
                bind::BoundArgument suffix{param("suffix", "std::string", ArgKind::String),
                                           call.op->args.at(1)};
                if (suffix_value) {
                    suffix.param.arg_kind =
                        ArgKind::Other;  // as bind leaves a kind it cannot check
                    suffix.value->value = *suffix_value;
                }
                bc.arguments.push_back(suffix);
            } else if (name == "stub.Out") {
                bc.decl = decl("stub::Out", true);
                bc.binding.shape = Shape::Sink;
                bc.arguments.push_back(
                    {param("path", "std::string", ArgKind::String), call.op->args.at(0)});
            }
            bound.calls.push_back(std::move(bc));
        }
        bound.includes = {"codegen_stub_udfs.h"};
    }
};

t::CommandResult syntax_check(const std::filesystem::path& dir, const std::string& source) {
    t::write_file(dir / "generated.cpp", source);
    const std::string command = t::host_cxx() + " -fsyntax-only -std=c++20 -Wall -Wextra -Werror" +
                                t::rop_include_flags() + " -I " +
                                t::shell_quote(ROP_CODEGEN_FIXTURES) + " " +
                                t::shell_quote((dir / "generated.cpp").string());
    return t::run_command(command, dir / "compile.log");
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

std::size_t count(const std::string& text, const std::string& part) {
    std::size_t n = 0;
    for (std::size_t i = text.find(part); i != std::string::npos; i = text.find(part, i + 1)) ++n;
    return n;
}

GeneratedCode generate_shapes(const Fixture& fixture) {
    GenerateOptions options;
    options.cpp_file = "generated.cpp";
    options.version = "test";
    return generate(fixture.bound, fixture.sources, options);
}

TEST_CASE("every shape compiles, within the column limit, options written once",
          "[codegen][generate][host]") {
    Fixture fixture;
    const GeneratedCode code = generate_shapes(fixture);
    INFO(code.code);
    for (const std::string& line : lines_of(code.code)) {
        INFO(line);
        CHECK(line.size() <= kColumnLimit);
    }
    // Eleven plan Calls (broadcast and the UDF-less reduce included), each with its options once.
    CHECK(count(code.code, "pipeline.call(") == 11);
    CHECK(count(code.code, ".options = ") == 11);
    CHECK(count(code.code, "{\"batch\", ") == 3);  // the others run with the default
    CHECK(code.code.find(".options = rop::vocab::options_with({{\"batch\", 4}})") !=
          std::string::npos);
    CHECK(code.code.find("grain.in_optional<std::string>(1)") != std::string::npos);
    CHECK(code.code.find("grain.in_pointer<std::string>(1)") != std::string::npos);
    CHECK(code.code.find("grains.gather_optional<std::string>(1)") != std::string::npos);
    CHECK(code.code.find("grains[i].keep(static_cast<bool>(results[i]));") != std::string::npos);
    CHECK(code.code.find("stub::render_streaming(grain.in<stub::Doc>(0), emitter);") !=
          std::string::npos);
    CHECK(code.code.find("= rop::gen::CollectActor<std::string>;") != std::string::npos);
    // rop::ItemResult results: a failure fails the Grain, a value is published.
    CHECK(code.code.find(
              "if (!grains[i].failed(results[i])) {\n"
              "                grains[i].out<std::string>(0, std::move((*results[i])));") !=
          std::string::npos);
    CHECK(code.code.find("if (!grain.failed(result)) {\n"
                         "            grain.keep(static_cast<bool>((*result)));") !=
          std::string::npos);
    // Broadcast runs no code: an empty factory, no code fingerprint, no UDF name.
    const std::size_t hint = code.code.find(".name = \"hint\"");
    REQUIRE(hint != std::string::npos);
    const std::string hint_call = code.code.substr(hint, code.code.find(';', hint) - hint);
    CHECK(hint_call.ends_with(".factory = {}, .code = {}})"));
    CHECK(hint_call.find("CallKind::Broadcast") != std::string::npos);
    // The long call wraps, and each of its continuation lines maps back to `long`'s line.
    const std::string directive = "#line " + std::to_string(kLongLine) + " \"shapes.rop\"";
    CHECK(count(code.code, directive) >= 3);
    auto compiled = syntax_check(t::work_dir("generate_shapes_compile"), code.code);
    INFO(compiled.output);
    CHECK(compiled.exit_code == 0);
}

TEST_CASE("a C++ error on a wrapped line of a UDF call points at its .rop line",
          "[codegen][generate][host]") {
    ast::Value wrong;
    wrong.kind = ast::Value::Kind::Bool;  // decorate wants a std::string suffix
    wrong.bool_value = true;
    Fixture fixture(wrong);
    const GeneratedCode code = generate_shapes(fixture);
    INFO(code.code);
    // The wrong argument is not on the call's first line.
    const std::size_t call = code.code.find("decorate_with_a_long_name(");
    REQUIRE(call != std::string::npos);
    CHECK(code.code.find('\n', call) < code.code.find("true", call));
    auto compiled = syntax_check(t::work_dir("generate_shapes_line_mapping"), code.code);
    INFO(compiled.output);
    CHECK(compiled.exit_code != 0);
    CHECK(compiled.output.find("shapes.rop:" + std::to_string(kLongLine) + ":") !=
          std::string::npos);
    CHECK(compiled.output.find("shapes.rop:" + std::to_string(kLongLine + 1) + ":") ==
          std::string::npos);
}

TEST_CASE("a function's left-out enum parameter before a given one is spelled with its type",
          "[codegen][arguments]") {
    // void tune(const Page&, Mode mode = Mode::fast, int dpi = 72), declared in namespace
    // stub, called `stub.tune(dpi: 150)`: the generated call is outside the namespace, so the
    // default the header wrote as `Mode::fast` must be `::stub::Mode::fast` there.
    bind::UdfParam mode = param("mode", "stub::Mode", ArgKind::Enum);
    mode.has_default = true;
    mode.enumerators = {"fast", "exact"};
    ast::Value dpi_value;
    dpi_value.kind = ast::Value::Kind::Int;
    dpi_value.int_value = 150;
    bind::BoundArgument dpi{param("dpi", "int", ArgKind::Integer), std::nullopt};
    dpi.value.emplace();
    dpi.value->value = dpi_value;
    for (const char* written : {"Mode::fast", "fast", "stub::Mode::fast"}) {
        INFO(written);
        mode.default_text = written;
        const std::vector<std::string> args = named_expressions({{mode, std::nullopt}, dpi});
        CHECK(args == std::vector<std::string>{"::stub::Mode::fast", "150"});
    }
    // Left out at the end, it is not written at all: C++ fills it in.
    CHECK(named_expressions({dpi, {mode, std::nullopt}}) == std::vector<std::string>{"150"});
    // A default that is not a known enumerator stays as the header wrote it.
    mode.default_text = "kDefaultMode";
    CHECK(named_expressions({{mode, std::nullopt}, dpi}) ==
          std::vector<std::string>{"kDefaultMode", "150"});
}

}  // namespace
}  // namespace rop::codegen
