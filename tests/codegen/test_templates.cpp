// The embedded templates: all present and equal to the files in codegen_templates/, every `$var$`
// in the documented list (README.md), and filled with stub values they compile against the real
// runtime and stdlib headers; a `#line` in them points a C++ error back at the .rop line.
#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "codegen/escape.h"
#include "codegen/printer.h"
#include "codegen/templates.h"
#include "host_compiler.h"

namespace rop::codegen {
namespace {

namespace t = rop::codegen::test;

// The variables each template takes: keep in step with codegen_templates/README.md.
const std::map<std::string, std::set<std::string>>& documented_variables() {
    static const std::set<std::string> actor = {"call_name", "class_name",   "cpp_line",
                                                "rop_line",  "rop_location", "udf_args",
                                                "udf_init",  "udf_type"};
    auto with = [](std::set<std::string> vars, std::initializer_list<std::string> more) {
        vars.insert(more);
        return vars;
    };
    static const std::map<std::string, std::set<std::string>> table = {
        {"pipeline_main.cpp.tmpl", {"actors", "includes", "plan_builder", "source_path"}},
        {"element_map_actor.tmpl", with(actor, {"output_type"})},
        {"expand_actor.tmpl", with(actor, {"child_type", "streaming"})},
        {"filter_actor.tmpl", actor},
        {"reduce_actor.tmpl", with(actor, {"child_type", "output_type"})},
    };
    return table;
}

std::string template_or_fail(std::string_view name) {
    std::optional<std::string_view> text = template_text(name);
    INFO("template " << name);
    REQUIRE(text.has_value());
    return std::string(*text);
}

TEST_CASE("every template file is embedded, byte for byte", "[codegen][templates]") {
    std::vector<std::string> on_disk;
    for (const auto& entry :
         std::filesystem::directory_iterator(t::source_dir() + "/codegen_templates")) {
        if (entry.path().extension() == ".tmpl") on_disk.push_back(entry.path().filename());
    }
    std::sort(on_disk.begin(), on_disk.end());
    std::vector<std::string> embedded(template_names().begin(), template_names().end());
    CHECK(embedded == on_disk);
    for (const std::string& name : on_disk) {
        INFO("template " << name);
        CHECK(template_or_fail(name) ==
              t::read_file(t::source_dir() + "/codegen_templates/" + name));
    }
    for (const auto& [name, vars] : documented_variables()) {
        CHECK(std::find(embedded.begin(), embedded.end(), name) != embedded.end());
    }
    CHECK_FALSE(template_text("missing.tmpl").has_value());
    CHECK_FALSE(template_text("").has_value());
}

TEST_CASE("every template variable is documented and used", "[codegen][templates]") {
    std::string readme = t::read_file(t::source_dir() + "/codegen_templates/README.md");
    for (std::string_view name : template_names()) {
        INFO("template " << name);
        auto documented = documented_variables().find(std::string(name));
        REQUIRE(documented != documented_variables().end());
        std::vector<std::string> used = template_variables(name, template_or_fail(name));
        CHECK(std::set<std::string>(used.begin(), used.end()) == documented->second);
        CHECK(readme.find("`" + std::string(name) + "`") != std::string::npos);
        for (const std::string& var : documented->second) {
            INFO("variable " << var);
            CHECK(readme.find("`$" + var + "$`") != std::string::npos);
        }
    }
}

struct Actor {
    std::string template_name;
    std::map<std::string, std::string> values;
};

std::vector<Actor> stub_actors(const std::string& map_args) {
    auto common = [](std::string class_name, std::string udf_type, std::string udf_init,
                     std::string udf_args) {
        return std::map<std::string, std::string>{
            {"call_name", cpp_comment_text(class_name)},
            {"class_name", class_name},
            {"rop_location", cpp_comment_text("odd */ name\n.rop:3:1")},
            {"udf_type", udf_type},
            {"udf_init", udf_init},
            {"udf_args", udf_args},
            {"rop_line", ""},
            {"cpp_line", ""}};
    };
    auto input = [](int index, const char* type) {
        return "batch.input(grain, " + std::to_string(index) + ").get<" + type + ">()";
    };
    std::vector<Actor> actors;
    actors.push_back({"element_map_actor.tmpl", common("PageText", "decltype(&stub::page_text)",
                                                       "&stub::page_text", map_args)});
    actors.back().values["output_type"] = "std::string";
    actors.push_back({"element_map_actor.tmpl",
                      common("FixHyphens", "decltype(&stub::fix_hyphens)", "&stub::fix_hyphens",
                             input(0, "stub::Page") + ", " + input(1, "std::string"))});
    actors.back().values["output_type"] = "std::string";
    actors.push_back({"expand_actor.tmpl", common("Render", "decltype(&stub::render)",
                                                  "&stub::render", input(0, "stub::Doc"))});
    actors.back().values["child_type"] = "stub::Page";
    actors.back().values["streaming"] = "false";
    actors.push_back(
        {"expand_actor.tmpl", common("RenderStreaming", "decltype(&stub::render_streaming)",
                                     "&stub::render_streaming", input(0, "stub::Doc"))});
    actors.back().values["child_type"] = "stub::Page";
    actors.back().values["streaming"] = "true";
    actors.push_back({"filter_actor.tmpl", common("Nonempty", "decltype(&stub::nonempty)",
                                                  "&stub::nonempty", input(0, "stub::Page"))});
    actors.push_back(
        {"reduce_actor.tmpl",
         common("JoinPages", "stub::Join", cpp_string_literal("\n\n"), "children, ordinals")});
    actors.back().values["child_type"] = "stub::Page";
    actors.back().values["output_type"] = "std::string";
    return actors;
}

constexpr std::string_view kPlanBuilder = R"tmpl(
    // A token definition: the factories prove each actor class is complete and constructible.
    rop::runtime::PipelineDefinition make_pipeline() {
        std::vector<rop::runtime::ActorFactory> factories = {
            $factories$
        };
        rop::runtime::PlanBuilder builder;
        builder.source("docs");
        (void)factories;
        rop::runtime::PipelineDefinition definition;
        definition.rop_path = $rop_path$;
        definition.plan = builder.build();
        return definition;
    }
)tmpl";

// The whole generated file; `with_lines` adds `#line` directives into pipeline.rop around the
// UDF calls (line 40 + actor index) and back into generated.cpp after them.
std::string generate(const std::vector<Actor>& actors, bool with_lines) {
    Printer printer;
    auto emit_actors = [&] {
        for (std::size_t i = 0; i < actors.size(); ++i) {
            if (i > 0) printer.print("\n");
            std::vector<Printer::Var> vars;
            Actor actor = actors[i];
            if (with_lines) {
                actor.values.erase("rop_line");
                actor.values.erase("cpp_line");
                auto rop_line = static_cast<std::uint32_t>(40 + i);
                vars.emplace_back("rop_line", line_directive("pipeline.rop", rop_line));
                vars.emplace_back("cpp_line", [&printer] {
                    auto next = static_cast<std::uint32_t>(printer.line() + 1);
                    printer.print(line_directive("generated.cpp", next));
                });
            }
            for (const std::string& var : documented_variables().at(actor.template_name)) {
                if (actor.values.contains(var)) vars.emplace_back(var, actor.values.at(var));
            }
            printer.emit(actor.template_name, template_or_fail(actor.template_name), vars);
        }
    };
    auto emit_factories = [&] {
        for (const Actor& actor : actors) {
            printer.emit("factory", "[] { return std::make_unique<$class_name$>(); },",
                         {{"class_name", actor.values.at("class_name")}});
        }
    };
    auto emit_plan = [&] {
        printer.emit("plan_builder", kPlanBuilder,
                     {{"rop_path", cpp_string_literal("examples/odd */ path\n.rop")},
                      {"factories", emit_factories}});
    };
    printer.emit("pipeline_main.cpp.tmpl", template_or_fail("pipeline_main.cpp.tmpl"),
                 {{"source_path", cpp_comment_text("examples/odd */ path\n.rop")},
                  {"includes", "#include \"codegen_stub_udfs.h\""},
                  {"actors", emit_actors},
                  {"plan_builder", emit_plan}});
    return printer.take();
}

t::CommandResult syntax_check(const std::filesystem::path& dir, const std::string& source) {
    t::write_file(dir / "generated.cpp", source);
    std::string root = t::source_dir();
    std::string fixtures = ROP_CODEGEN_FIXTURES;
    // The stand-in pipeline_main.h comes after runtime/include: the real header wins once it
    // exists.
    std::string command =
        t::host_cxx() + " -fsyntax-only -std=c++20 -Wall -Wextra -Wpedantic -Wshadow -Werror" +
        " -I " + t::shell_quote(root + "/runtime/include") + " -I " +
        t::shell_quote(root + "/stdlib/include") + " -I " + t::shell_quote(fixtures) + " -I " +
        t::shell_quote(fixtures + "/standin") + " " +
        t::shell_quote((dir / "generated.cpp").string());
    return t::run_command(command, dir / "compile.log");
}

TEST_CASE("filled templates compile against the runtime and stdlib headers",
          "[codegen][templates][host]") {
    auto dir = t::work_dir("templates_compile");
    std::string source = generate(stub_actors("batch.input(grain, 0).get<stub::Page>()"), false);
    CHECK(source == generate(stub_actors("batch.input(grain, 0).get<stub::Page>()"), false));
    CHECK(source.starts_with("// Generated by ropc from examples/odd \\052/ path\\012.rop."));
    CHECK(source.find("int main(int argc, char** argv) { return rop::runtime::pipeline_main("
                      "argc, argv, make_pipeline()); }") != std::string::npos);
    CHECK(source.find('$') == std::string::npos);
    auto compiled = syntax_check(dir, source);
    INFO(source);
    INFO(compiled.output);
    CHECK(compiled.exit_code == 0);
}

TEST_CASE("a filled template with #line maps a UDF type error to the .rop line",
          "[codegen][templates][host]") {
    auto dir = t::work_dir("templates_line_mapping");
    // page_text takes a Page; passing the Doc input is the kind of mistake type flow catches
    // first, but if one slips through the C++ error must name the .rop line.
    std::string source = generate(stub_actors("batch.input(grain, 0).get<stub::Doc>()"), true);

    // Every directive back into generated.cpp names the line that follows it.
    std::size_t line_number = 1;
    std::size_t start = 0;
    while (start < source.size()) {
        std::size_t end = source.find('\n', start);
        std::string line = source.substr(start, end - start);
        std::size_t directive = line.find("#line ");
        if (directive != std::string::npos && line.ends_with("\"generated.cpp\"")) {
            CHECK(line.substr(directive) ==
                  line_directive("generated.cpp", static_cast<std::uint32_t>(line_number + 1)));
        }
        start = end + 1;
        ++line_number;
    }

    auto compiled = syntax_check(dir, source);
    INFO(compiled.output);
    CHECK(compiled.exit_code != 0);
    CHECK(compiled.output.find("pipeline.rop:40:") != std::string::npos);  // the first actor
}

}  // namespace
}  // namespace rop::codegen
