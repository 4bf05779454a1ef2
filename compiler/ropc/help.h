// ropc's --help texts, one per subcommand, and the --explain page of a diagnostic id.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ropc/cli.h"

namespace rop::cli {

std::string help_text(std::optional<Command> command);

// The catalogue entry for `code` ("E0203"), or nothing when no diagnostic has that id.
std::optional<std::string> explain_text(std::string_view code);

}  // namespace rop::cli
