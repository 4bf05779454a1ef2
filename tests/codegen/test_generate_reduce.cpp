// generate() for reduce Calls beyond the single-output one of test_generate.cpp: a reduce UDF
// returning a std::tuple publishes one output per element; a reduce with `on_failure skip` gets
// the option in its plan entry and its rop::Skipped parameter; the generated C++ compiles against
// the real runtime and stdlib headers.
#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "bind/bind_program.h"
#include "codegen/generate.h"
#include "frontend/parser.h"
#include "host_compiler.h"
#include "sema/sema.h"

namespace rop::codegen {
namespace {

namespace t = rop::codegen::test;
using bind::ArgKind;
using bind::Shape;

constexpr const char* kPipeline = R"(pipeline reduces;
use "codegen_stub_udfs.h";
source docs : Doc = stub.Docs(glob: "in/*.doc");
pages  = expand docs as Page with stub.render;
texts  = map pages with stub.page_text;
(joined, count) = reduce texts to Doc with stub.join_count;
partial = reduce texts to Doc with stub.join_partial on_failure skip;
sink joined -> stub.Out(path: "out/all.txt");
)";

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

// The BoundProgram bind_program gives kPipeline (the shapes, not the C++ parse).
struct Fixture {
    SourceManager sources;
    std::optional<sema::CheckedProgram> program;
    bind::BoundProgram bound;

    Fixture() {
        FileId file = sources.add_buffer("reduces.rop", kPipeline);
        DiagnosticEngine diags(sources);
        program = sema::check(parse(file, sources, diags), diags);
        REQUIRE(program.has_value());
        bound.program = &*program;
        auto port_type = [&](std::string_view port) -> std::string {
            if (port == "docs") return "stub::Doc";
            if (port == "pages") return "stub::Page";
            if (port == "count") return "int";
            return "std::string";
        };
        for (const sema::Port& port : program->ports) {
            bound.port_types.push_back(type(port_type(port.name)));
        }
        bound.library.decls.reserve(8);
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
            auto input = [&](std::string item) {
                bc.binding.inputs.push_back({type(std::move(item)), bind::Missing::NotAccepted, 0});
            };
            const std::string name = call.op ? call.op->name : "";
            if (name == "stub.Docs") {
                bc.decl = decl("stub::Docs", true);
                bc.binding.shape = Shape::Source;
                bc.arguments.push_back(
                    {param("glob", "std::string", ArgKind::String), call.op->args.at(0)});
            } else if (name == "stub.render") {
                bc.decl = decl("stub::render", false);
                bc.binding.shape = Shape::VectorExpand;
                input("stub::Doc");
            } else if (name == "stub.page_text") {
                bc.decl = decl("stub::page_text", false);
                bc.binding.shape = Shape::ElementMap;
                input("stub::Page");
            } else if (name == "stub.join_count") {
                bc.decl = decl("stub::join_count", false);
                bc.binding.shape = Shape::SpanReduce;
                bc.binding.ordinals_param = 1;
                bc.binding.multi_output = true;
                bc.binding.outputs = {type("std::string"), type("int")};
                input("std::string");
            } else if (name == "stub.join_partial") {
                bc.decl = decl("stub::join_partial", false);
                bc.binding.shape = Shape::SpanReduce;
                bc.binding.ordinals_param = 1;
                bc.binding.skipped_param = 2;
                bc.binding.parent_param = 3;
                bc.binding.parent = type("stub::Doc");
                bc.binding.outputs = {type("std::string")};
                input("std::string");
            } else if (name == "stub.Out") {
                bc.decl = decl("stub::Out", true);
                bc.binding.shape = Shape::Sink;
                bc.arguments.push_back(
                    {param("path", "std::string", ArgKind::String), call.op->args.at(0)});
                bind::UdfParam width = param("width", "int", ArgKind::Integer);
                width.has_default = true;
                width.default_text = "80";
                bc.arguments.push_back({width, std::nullopt});
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

TEST_CASE("a reduce returning a std::tuple publishes one output per element",
          "[codegen][generate][host]") {
    Fixture fixture;
    GenerateOptions options;
    options.cpp_file = "generated.cpp";
    options.version = "test";
    const GeneratedCode code = generate(fixture.bound, fixture.sources, options);
    INFO(code.code);
    CHECK(code.code.find("grain.out<std::string>(0, std::move(std::get<0>(result)));") !=
          std::string::npos);
    CHECK(code.code.find("grain.out<int>(1, std::move(std::get<1>(result)));") !=
          std::string::npos);
    auto compiled = syntax_check(t::work_dir("generate_reduce_compile"), code.code);
    INFO(compiled.output);
    CHECK(compiled.exit_code == 0);
}

TEST_CASE("a reduce with on_failure skip gets the option and its skipped children",
          "[codegen][generate][host]") {
    Fixture fixture;
    GenerateOptions options;
    options.cpp_file = "generated.cpp";
    options.version = "test";
    const GeneratedCode code = generate(fixture.bound, fixture.sources, options);
    INFO(code.code);
    CHECK(code.code.find("stub::join_partial(children, ordinals, skipped, parent)") !=
          std::string::npos);
    // Only the skip-reduce names the option (suppress is the runtime default), once: in its
    // plan entry, from which rop::gen::PipelineBuilder derives its Call definition (what --set
    // starts from).
    std::vector<std::size_t> at;
    const std::string skip = ".options = rop::vocab::options_with({{\"on_failure\", \"skip\"}})";
    for (std::size_t i = code.code.find(skip); i != std::string::npos;
         i = code.code.find(skip, i + 1)) {
        at.push_back(i);
    }
    REQUIRE(at.size() == 1);
    for (std::size_t i : at) {
        const std::size_t name = code.code.rfind("\"partial\"", i);
        REQUIRE(name != std::string::npos);
        CHECK(i - name < 700);
        CHECK(code.code.substr(name, i - name).find("\"joined") == std::string::npos);
    }
    auto compiled = syntax_check(t::work_dir("generate_reduce_skip_compile"), code.code);
    INFO(compiled.output);
    CHECK(compiled.exit_code == 0);
}

}  // namespace
}  // namespace rop::codegen
