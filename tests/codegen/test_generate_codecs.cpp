// generate() with an `isolation process` Call: the codecs of the structs that cross (as bind
// lists them in BoundProgram::library.codecs) are written after the includes and before any use,
// each after the codecs it uses; the file compiles against the runtime headers, and the codecs,
// compiled into a program of their own, round-trip a Page with a nested struct, a vector of
// structs, an optional recursive tree, a map of structs, an enum and shared pixels. Without such
// a Call no codec is written.
#include <algorithm>
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
using bind::CodecKind;
using bind::Shape;

std::string pipeline(const std::string& isolation) {
    return "pipeline codecs;\n"
           "use \"codegen_codec_udfs.h\";\n"
           "source docs : Doc = cg.Docs(glob: \"in/*\");\n"
           "pages = map docs with cg.render batch 4 isolation " +
           isolation +
           ";\n"
           "sink pages -> cg.Out(path: \"out\");\n";
}

bind::CxxType type(std::string name) {
    bind::CxxType out;
    out.spelling = name;
    out.canonical = name;
    out.name = std::move(name);
    return out;
}

bind::TypeCodec fields(std::string name, std::vector<std::string> members,
                       std::vector<std::string> needs = {}) {
    bind::TypeCodec codec;
    codec.canonical = name;
    codec.name = std::move(name);
    codec.kind = CodecKind::Fields;
    codec.fields = std::move(members);
    codec.needs = std::move(needs);
    return codec;
}

// The BoundProgram bind_program gives the pipeline over codegen_codec_udfs.h, codec table
// included (bind's tests check that read_udfs fills it so).
struct Fixture {
    SourceManager sources;
    std::optional<sema::CheckedProgram> program;
    bind::BoundProgram bound;

    explicit Fixture(const std::string& isolation) {
        FileId file = sources.add_buffer("codecs.rop", pipeline(isolation));
        DiagnosticEngine diags(sources);
        program = sema::check(parse(file, sources, diags), diags);
        REQUIRE(program.has_value());
        bound.program = &*program;
        for (const sema::Port& port : program->ports) {
            bound.port_types.push_back(type(port.name == "docs" ? "cg::Doc" : "cg::Page"));
        }
        bound.library.codecs = {
            fields("cg::Page", {"number", "text", "meta", "history", "tree", "by_name", "pixels"},
                   {"cg::Meta", "cg::Meta", "cg::Node", "cg::Meta"}),
            fields("cg::Node", {"label", "children"}, {"cg::Node"}),
            fields("cg::Meta", {"scores", "note", "kind"}),
            fields("cg::Doc", {"path"}),
        };
        bound.library.decls.reserve(4);
        auto decl = [&](std::string qualified, bool is_class) {
            bind::UdfDecl d;
            d.qualified_name = std::move(qualified);
            d.is_class = is_class;
            bound.library.decls.push_back(d);
            return &bound.library.decls.back();
        };
        auto param = [](std::string name) {
            bind::UdfParam out;
            out.name = std::move(name);
            out.type = type("std::string");
            out.arg_kind = ArgKind::String;
            return out;
        };
        for (const sema::Call& call : program->calls) {
            bind::BoundCall bc;
            bc.call = call.id;
            const std::string name = call.op ? call.op->name : "";
            if (name == "cg.Docs") {
                bc.decl = decl("cg::Docs", true);
                bc.binding.shape = Shape::Source;
                bc.arguments.push_back({param("glob"), call.op->args.at(0)});
                bc.output_types = {type("cg::Doc")};
            } else if (name == "cg.render") {
                bc.decl = decl("cg::render", false);
                bc.binding.shape = Shape::ElementMap;
                bc.binding.inputs.push_back({type("cg::Doc"), bind::Missing::NotAccepted, 0});
                bc.input_types = {type("cg::Doc")};
                bc.output_types = {type("cg::Page")};
            } else if (name == "cg.Out") {
                bc.decl = decl("cg::Out", true);
                bc.binding.shape = Shape::Sink;
                bc.arguments.push_back({param("path"), call.op->args.at(0)});
                bc.input_types = {type("cg::Page")};
            }
            bound.calls.push_back(std::move(bc));
        }
        bound.includes = {"codegen_codec_udfs.h"};
    }
};

GeneratedCode generate_for(const Fixture& fixture) {
    GenerateOptions options;
    options.cpp_file = "generated.cpp";
    options.version = "test";
    return generate(fixture.bound, fixture.sources, options);
}

std::string compile_flags() {
    return " -std=c++20 -Wall -Wextra -Werror" + t::rop_include_flags() + " -I " +
           t::shell_quote(ROP_CODEGEN_FIXTURES);
}

// A program of its own: rop/codec.h and rop/byte_size.h (which the generated file has through
// generated.h), the fixture header, the generated codecs (and byte sizes), and a main that
// round-trips.
constexpr const char* kRoundTrip = R"cpp(
#include <cstdio>
#include <rop/codec.h>

    template <class T>
    T round_trip(const T& value, std::size_t& prefixes_rejected) {
        std::string bytes;
        rop::Codec<T>::encode(value, bytes);
        for (std::size_t n = 0; n < bytes.size(); ++n) {
            std::string_view prefix(bytes.data(), n);
            try {
                (void)rop::Codec<T>::decode(prefix);
            } catch (const rop::CodecError&) {
                ++prefixes_rejected;
            }
        }
        std::string_view in = bytes;
        T back = rop::Codec<T>::decode(in);
        if (!in.empty()) std::printf("trailing bytes\n");
        return back;
    }

    bool same(const cg::Meta& a, const cg::Meta& b) {
        return a.scores == b.scores && a.note == b.note && a.kind == b.kind;
    }
    bool same(const cg::Node& a, const cg::Node& b) {
        if (a.label != b.label || a.children.size() != b.children.size()) return false;
        for (std::size_t i = 0; i < a.children.size(); ++i) {
            if (!same(a.children[i], b.children[i])) return false;
        }
        return true;
    }

    int main() {
        cg::Page page;
        page.number = 7;
        page.text = "text";
        page.meta.scores = {{"a", {1.5, 2.5}}, {"b", {}}};
        page.meta.note = "note";
        page.meta.kind = cg::Kind::table;
        page.history = {cg::Meta{}, page.meta};
        page.tree = cg::Node{"root", {cg::Node{"leaf", {}}, cg::Node{"inner", {cg::Node{"x", {}}}}}};
        page.by_name = {{"first", page.meta}, {"empty", cg::Meta{}}};
        page.pixels = std::make_shared<const std::vector<std::uint8_t>>(
            std::vector<std::uint8_t>{0, 127, 255});
        std::size_t rejected = 0;
        const cg::Page back = round_trip(page, rejected);
        std::string bytes;
        rop::Codec<cg::Page>::encode(page, bytes);
        bool ok = back.number == 7 && back.text == "text" && same(back.meta, page.meta) &&
                  back.history.size() == 2 && same(back.history[0], cg::Meta{}) &&
                  same(back.history[1], page.meta) && back.tree && same(*back.tree, *page.tree) &&
                  back.by_name.size() == 2 && same(back.by_name.at("first"), page.meta) &&
                  back.pixels && *back.pixels == *page.pixels && back.pixels != page.pixels &&
                  rejected == bytes.size();
        const cg::Page empty = round_trip(cg::Page{}, rejected);
        ok = ok && empty.number == 0 && !empty.tree && !empty.pixels && empty.history.empty();
        const cg::Doc doc = round_trip(cg::Doc{"in/a.pdf"}, rejected);
        ok = ok && doc.path == "in/a.pdf";
        std::printf("%s %zu bytes\n", ok ? "round-trip ok" : "round-trip MISMATCH", bytes.size());
        return ok ? 0 : 1;
    }
)cpp";

TEST_CASE("codecs: written for isolation process, each after what it uses, and round-trip",
          "[codegen][generate][host][codec]") {
    Fixture fixture("process");
    const GeneratedCode code = generate_for(fixture);
    INFO(code.code);
    const std::string& cpp = code.code;
    const auto begin = cpp.find("// How the structs the Calls pass become bytes and back");
    const auto end = cpp.find("\nnamespace {");
    REQUIRE(begin != std::string::npos);
    REQUIRE(end != std::string::npos);
    CHECK(cpp.find("#include \"codegen_codec_udfs.h\"") < begin);
    const std::string block = cpp.substr(begin, end - begin);
    // The Doc the Call takes, then what Page's codec uses (Meta, the recursive Node), then Page.
    std::vector<std::size_t> at;
    for (const char* name : {"Doc", "Meta", "Node", "Page"}) {
        at.push_back(block.find(std::string("struct rop::Codec<cg::") + name + ">"));
        CHECK(at.back() != std::string::npos);
    }
    CHECK(std::is_sorted(at.begin(), at.end()));
    CHECK(block.find("rop::FieldsCodec<cg::Node, &cg::Node::label, &cg::Node::children>") !=
          std::string::npos);

    const auto dir = t::work_dir("codecs_round_trip");
    t::write_file(dir / "generated.cpp", cpp);
    const t::CommandResult syntax =
        t::run_command(t::host_cxx() + " -fsyntax-only" + compile_flags() + " " +
                           t::shell_quote((dir / "generated.cpp").string()),
                       dir / "compile.log");
    INFO(syntax.output);
    CHECK(syntax.exit_code == 0);

    t::write_file(
        dir / "round_trip.cpp",
        "#include <rop/byte_size.h>\n#include <rop/codec.h>\n#include \"codegen_codec_udfs.h\"\n" +
            block + kRoundTrip);
    const t::CommandResult built = t::run_command(
        t::host_cxx() + compile_flags() + " -o " + t::shell_quote((dir / "round_trip").string()) +
            " " + t::shell_quote((dir / "round_trip.cpp").string()),
        dir / "round_trip_compile.log");
    INFO(built.output);
    REQUIRE(built.exit_code == 0);
    const t::CommandResult ran =
        t::run_command(t::shell_quote((dir / "round_trip").string()), dir / "round_trip.log");
    INFO(ran.output);
    CHECK(ran.exit_code == 0);
    CHECK(ran.output.find("round-trip ok") != std::string::npos);
}

// The result store (--cache) keys and keeps items by their bytes, so the codecs are written for
// a pipeline whose Calls all run in threads too.
TEST_CASE("codecs: written without an isolation process Call too", "[codegen][generate][codec]") {
    Fixture fixture("thread");
    const GeneratedCode code = generate_for(fixture);
    INFO(code.code);
    for (const char* name : {"Doc", "Meta", "Node", "Page"})
        CHECK(code.code.find(std::string("struct rop::Codec<cg::") + name + ">") !=
              std::string::npos);
}

}  // namespace
}  // namespace rop::codegen
