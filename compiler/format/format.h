// `ropc fmt`: the canonical layout of a .rop file (docs/build.md lists the rules). Comments and
// blank-line grouping are kept, and the result parses to the same tree as the input.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "support/diagnostics.h"
#include "support/source_manager.h"

namespace rop::format {

// The canonical text of `file`, or nullopt when it does not parse: its errors are then in
// `diags`, exactly as `ropc check` reports them. Formatting the result again changes nothing.
// Throws std::logic_error (an internal error, never a user's) if the text it built would not
// parse to the same tree or would lose a comment; nothing is written in that case.
std::optional<std::string> format_file(FileId file, const SourceManager& sources,
                                       DiagnosticEngine& diags);

// The first 1-based line where `a` and `b` differ (a missing line counts as different), or
// nullopt when they are equal.
std::optional<std::size_t> first_different_line(std::string_view a, std::string_view b);

}  // namespace rop::format
