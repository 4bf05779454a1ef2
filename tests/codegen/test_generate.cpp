// generate(): a hand-built BoundProgram (the shapes bind_program produces) over the stub UDFs of
// fixtures/codegen_stub_udfs.h, turned into C++ that is deterministic, escapes the .rop text, and
// compiles against the real runtime and stdlib headers; `#line` maps a C++ error to the .rop line.
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

constexpr const char* kPipeline = R"(pipeline stubby;
use "codegen_stub_udfs.h";
source docs : Doc = stub.Docs(glob: "in/*.doc");
pages  = expand docs as Page with stub.render;
texts  = map pages with stub.page_text;
kept   = filter texts with stub.nonempty_text;
loud   = map kept with stub.upper batch 8 actors 2 recovery isolate_tail timeout 3s;
joined = reduce loud to Doc with stub.JoinText(separator: "\n*/ \"sep\"");
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

struct Fixture {
    SourceManager sources;
    std::optional<sema::CheckedProgram> program;
    bind::BoundProgram bound;

    // `separator_value`: what the reduce's class gets (a wrong one makes a C++ error).
    explicit Fixture(std::optional<ast::Value> separator_value = std::nullopt) {
        FileId file = sources.add_buffer("pipe */ line.rop", kPipeline);
        DiagnosticEngine diags(sources);
        program = sema::check(parse(file, sources, diags), diags);
        REQUIRE(program.has_value());
        bound.program = &*program;
        auto port_type = [&](std::string_view port) -> std::string {
            if (port == "docs") return "stub::Doc";
            if (port == "pages") return "stub::Page";
            return "std::string";
        };
        for (const sema::Port& port : program->ports)
            bound.port_types.push_back(type(port_type(port.name)));
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
            } else if (name == "stub.nonempty_text") {
                bc.decl = decl("stub::nonempty_text", false);
                bc.binding.shape = Shape::ElementFilter;
                input("std::string");
            } else if (name == "stub.upper") {
                bc.decl = decl("stub::upper", false);
                bc.binding.shape = Shape::BatchMap;
                input("std::string");
            } else if (name == "stub.JoinText") {
                bc.decl = decl("stub::JoinText", true);
                bc.binding.shape = Shape::SpanReduce;
                bc.binding.is_class = true;
                bc.binding.ordinals_param = 1;
                input("std::string");
                bind::BoundArgument sep{param("separator", "std::string", ArgKind::String),
                                        call.op->args.at(0)};
                if (separator_value) sep.value->value = *separator_value;
                bc.arguments.push_back(sep);
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

TEST_CASE("argument expressions: escaped literals of the parameter's type", "[codegen][generate]") {
    ast::Value text;
    text.kind = ast::Value::Kind::String;
    text.text = std::string("a\"b\0c", 5);
    CHECK(argument_expression(param("s", "std::string", ArgKind::String), text) ==
          "std::string(\"a\\\"b\\000c\", 5)");
    CHECK(argument_expression(param("s", "std::string_view", ArgKind::String), text) ==
          "std::string_view(\"a\\\"b\\000c\", 5)");
    ast::Value number;
    number.kind = ast::Value::Kind::Int;
    number.int_value = -3;
    CHECK(argument_expression(param("n", "int", ArgKind::Integer), number) == "(-3)");
    CHECK(argument_expression(param("x", "double", ArgKind::Float), number) == "(-3.0)");
    ast::Value real;
    real.kind = ast::Value::Kind::Float;
    real.float_value = 0.25;
    CHECK(argument_expression(param("x", "double", ArgKind::Float), real) == "0.25");
    ast::Value flag;
    flag.kind = ast::Value::Kind::Bool;
    flag.bool_value = true;
    CHECK(argument_expression(param("b", "bool", ArgKind::Bool), flag) == "true");
    ast::Value duration;
    duration.kind = ast::Value::Kind::Duration;
    duration.int_value = 30000;
    CHECK(argument_expression(param("d", "std::chrono::seconds", ArgKind::Duration), duration) ==
          "std::chrono::duration_cast<std::chrono::seconds>(std::chrono::milliseconds(30000))");
    ast::Value mode;
    mode.kind = ast::Value::Kind::Ident;
    mode.text = "fast";
    CHECK(argument_expression(param("m", "ns::Mode", ArgKind::Enum), mode) == "ns::Mode::fast");
    ast::Value list;
    list.kind = ast::Value::Kind::List;
    list.items = {number, number};
    bind::UdfParam ints = param("l", "std::vector<int>", ArgKind::List);
    ints.type.form = bind::TypeForm::Vector;
    ints.type.args = {type("int")};
    CHECK(argument_expression(ints, list) == "std::vector<int>{(-3), (-3)}");
}

TEST_CASE("generated code is deterministic, escaped and compiles", "[codegen][generate][host]") {
    Fixture fixture;
    GenerateOptions options;
    options.cpp_file = "generated.cpp";
    options.version = "test";
    GeneratedCode first = generate(fixture.bound, fixture.sources, options);
    GeneratedCode second = generate(fixture.bound, fixture.sources, options);
    CHECK(first.code == second.code);
    CHECK(first.code.starts_with("// Generated by ropc from pipe \\052/ line.rop."));
    CHECK(first.code.find("#line 8 \"pipe \\052/ line.rop\"") != std::string::npos);
    CHECK(first.code.find("\\\"sep\\\"\", 9)") != std::string::npos);
    // Options: those that differ from the table's defaults (`recovery isolate_tail` is the
    // default), once per Call, in table order, a duration in milliseconds.
    CHECK(
        first.code.find(".options = rop::vocab::options_with({{\"batch\", 8}, {\"actors\", 2},") !=
        std::string::npos);
    CHECK(first.code.find("{\"timeout\", 3000}})") != std::string::npos);
    CHECK(first.code.find("\"recovery\"") == std::string::npos);
    CHECK(first.code.find(".outputs = {rop_port_2}, .options = {},") != std::string::npos);
    CHECK(first.line_map.size() == 5);  // render, page_text, nonempty_text, upper, JoinText
    auto compiled = syntax_check(t::work_dir("generate_compile"), first.code);
    INFO(first.code);
    INFO(compiled.output);
    CHECK(compiled.exit_code == 0);
}

TEST_CASE("a C++ error in a Call's arguments points at its .rop line",
          "[codegen][generate][host]") {
    ast::Value wrong;
    wrong.kind = ast::Value::Kind::Bool;  // Join wants a std::string
    wrong.bool_value = true;
    bind::UdfParam other = param("separator", "std::string", ArgKind::Other);
    Fixture fixture(wrong);
    fixture.bound.calls[5].arguments[0].param = other;  // as bind leaves a kind it cannot check
    GenerateOptions options;
    options.cpp_file = "generated.cpp";
    GeneratedCode code = generate(fixture.bound, fixture.sources, options);
    auto compiled = syntax_check(t::work_dir("generate_line_mapping"), code.code);
    INFO(code.code);
    INFO(compiled.output);
    CHECK(compiled.exit_code != 0);
    CHECK(compiled.output.find("pipe */ line.rop:8:") != std::string::npos);
}

}  // namespace
}  // namespace rop::codegen
