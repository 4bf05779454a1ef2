// ropc's command line: turns argv into one Request, or a usage error to print with exit code 2.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace rop::cli {

enum class Command { Check, Emit, Graph, Explain, Version, Help };
enum class Format { Text, Json, Sarif };
enum class EmitStage { Tokens, Ast, Plan, Cpp };  // Cpp: what `ropc build --emit=cpp` prints
// Colour in text diagnostics: auto = on a TTY unless NO_COLOR is set (https://no-color.org).
enum class ColorMode { Auto, Always, Never };

struct Request {
    Command command = Command::Help;
    std::vector<std::string> files;
    Format format = Format::Text;
    ColorMode color = ColorMode::Auto;  // --color=auto|always|never
    EmitStage emit = EmitStage::Plan;
    bool warnings_as_errors = false;
    std::size_t max_errors = 50;
    bool bind = true;                       // check: bind UDFs after sema (--no-bind: skip)
    std::vector<std::string> include_dirs;  // -I DIR: more directories for `use` headers
    std::string explain_code;               // --explain
    std::optional<Command> help_for;        // `ropc check --help`: help for that subcommand
};

struct ParseResult {
    std::optional<Request> request;
    std::string error;  // set when request is empty
};

ParseResult parse_command_line(const std::vector<std::string>& args);

// Whether text diagnostics get ANSI colour. `no_color` is $NO_COLOR (null when unset): set and
// non-empty, it turns auto off even on a TTY; an explicit --color=always still wins, as
// no-color.org asks of per-invocation flags.
bool use_color(ColorMode mode, const char* no_color, bool is_tty);

}  // namespace rop::cli
