// The embedded templates: all present and equal to the files in codegen_templates/, and every
// `$var$` in the documented list (README.md). test_generate.cpp fills them through generate() and
// compiles the result.
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
                                                "rop_line",  "rop_location", "udf_member",
                                                "udf_setup"};
    auto with = [](std::set<std::string> vars, std::initializer_list<std::string> more) {
        vars.insert(more);
        return vars;
    };
    static const std::map<std::string, std::set<std::string>> table = {
        {"pipeline_main.cpp.tmpl",
         {"actors", "byte_sizes", "codecs", "includes", "plan_builder", "record_fields",
          "source_path"}},
        {"byte_size.tmpl", {"fields_byte_size", "type"}},
        {"codec.tmpl", {"fields_codec", "type"}},
        {"fields.tmpl", {"fields", "type"}},
        {"element_map_actor.tmpl", with(actor, {"kind", "udf_call", "publish"})},
        {"batch_actor.tmpl", with(actor, {"kind", "gather", "udf_call", "udf_name", "publish"})},
        {"expand_actor.tmpl", with(actor, {"child_type", "udf_call"})},
        {"reduce_actor.tmpl", with(actor, {"child_type", "parent", "udf_call", "publish"})},
        {"collect_actor.tmpl", {"call_name", "child_type", "class_name", "rop_location"}},
        {"plan.tmpl",
         {"calls", "domains", "name", "pools", "ports", "rop_hash", "rop_path", "sinks", "sources",
          "version"}},
        {"pool.tmpl",
         {"arguments", "class", "construct", "id", "name", "options", "pool_name", "rop_location"}},
        {"domain.tmpl", {"id", "name", "parent"}},
        {"source_port.tmpl", {"id", "name"}},
        {"port.tmpl", {"domain", "id", "name"}},
        {"call.tmpl", {"arguments"}},
        {"call_arguments.tmpl", {"call_name", "entries", "variable"}},
        {"source.tmpl", {"construct", "default_input", "description", "item", "name"}},
        {"sink.tmpl", {"construct", "default_output", "description", "item", "name", "port"}},
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

}  // namespace
}  // namespace rop::codegen
