// The codegen templates of codegen_templates/*.tmpl, embedded into the compiler at build time
// (embed_templates.cmake), so an installed ropc never reads template files from disk.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace rop::codegen {

// The text of the template file `name` ("pipeline_main.cpp.tmpl"), or nullopt.
std::optional<std::string_view> template_text(std::string_view name);

// Every embedded template's file name, sorted.
std::span<const std::string_view> template_names();

}  // namespace rop::codegen
