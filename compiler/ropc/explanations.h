// The diagnostic catalogue's prose (docs/diagnostics.md), embedded into ropc at build time so
// `ropc --explain` never hunts for a file at run time.
#pragma once

#include <optional>
#include <string_view>

namespace rop::cli {

// The whole of docs/diagnostics.md.
std::string_view diagnostics_doc();

// The section of docs/diagnostics.md that documents `code` ("### E0203 ..." up to the next
// heading), or nothing when it has none.
std::optional<std::string_view> explanation(std::string_view code);

}  // namespace rop::cli
