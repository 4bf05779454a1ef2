#include "ropc/cli.h"

#include <array>
#include <charconv>
#include <string_view>

#include "rop/vocab/suggest.h"

namespace rop::cli {

namespace {

std::optional<Command> subcommand(std::string_view word) {
    if (word == "check") return Command::Check;
    if (word == "emit") return Command::Emit;
    if (word == "graph") return Command::Graph;
    if (word == "explain") return Command::Explain;
    if (word == "version") return Command::Version;
    if (word == "help") return Command::Help;
    return std::nullopt;
}

// Every command word (`build` is dispatched before this parser, but a typo of it lands here).
constexpr std::array<std::string_view, 7> kCommands = {"check",   "build",   "emit", "graph",
                                                       "explain", "version", "help"};
constexpr std::array<std::string_view, 11> kOptions = {
    "--help",    "--version", "--explain", "--emit", "--format", "--max-errors",
    "--no-bind", "--color",   "-Werror",   "-I",     "-h"};

// "; did you mean 'check'?" or "".
std::string did_you_mean(std::string_view word, const auto& candidates) {
    const auto guess = vocab::closest(word, candidates);
    return guess ? "; did you mean '" + std::string(*guess) + "'?" : "";
}

std::optional<EmitStage> emit_stage(std::string_view word) {
    if (word == "tokens") return EmitStage::Tokens;
    if (word == "ast") return EmitStage::Ast;
    if (word == "plan") return EmitStage::Plan;
    if (word == "cpp") return EmitStage::Cpp;
    return std::nullopt;
}

// `--name=value` or `--name value`; advances `i` past a separate value.
std::optional<std::string> option_value(const std::vector<std::string>& args, std::size_t& i,
                                        std::string_view name) {
    const std::string& arg = args[i];
    if (arg.size() > name.size() && arg.compare(0, name.size(), name) == 0 &&
        arg[name.size()] == '=') {
        return arg.substr(name.size() + 1);
    }
    if (arg == name && i + 1 < args.size()) return args[++i];
    return std::nullopt;
}

class Parser {
  public:
    explicit Parser(const std::vector<std::string>& args) : args_(args) {}

    ParseResult run() {
        std::size_t i = 0;
        bool explicit_command = false;
        if (!args_.empty()) {
            if (const auto command = subcommand(args_[0])) {
                request_.command = *command;
                explicit_command = true;
                i = 1;
            }
        }
        for (; i < args_.size(); ++i) {
            if (!take(i, explicit_command)) return {std::nullopt, error_};
        }
        return finish(explicit_command);
    }

  private:
    bool fail(std::string message) {
        error_ = std::move(message);
        return false;
    }

    bool take(std::size_t& i, bool explicit_command) {
        const std::string& arg = args_[i];
        if (arg == "-h" || arg == "--help") {
            if (explicit_command && request_.command != Command::Help) help_for_ = request_.command;
            wants_help_ = true;
            return true;
        }
        if (arg == "--version") return set_command(Command::Version, explicit_command);
        if (arg == "-Werror") {
            request_.warnings_as_errors = true;
            return true;
        }
        if (arg == "--no-bind") {
            request_.bind = false;
            return true;
        }
        if (arg.rfind("-I", 0) == 0) {
            if (arg.size() > 2) {
                request_.include_dirs.push_back(arg.substr(2));
            } else if (i + 1 < args_.size()) {
                request_.include_dirs.push_back(args_[++i]);
            } else {
                return fail("-I needs a directory");
            }
            return true;
        }
        if (const auto value = option_value(args_, i, "--explain")) {
            request_.explain_code = *value;
            return set_command(Command::Explain, explicit_command);
        }
        if (const auto value = option_value(args_, i, "--emit"))
            return set_emit(*value, explicit_command);
        if (const auto value = option_value(args_, i, "--format")) return set_format(*value);
        if (const auto value = option_value(args_, i, "--color")) return set_color(*value);
        if (const auto value = option_value(args_, i, "--max-errors"))
            return set_max_errors(*value);
        if (!arg.empty() && arg[0] == '-' && arg != "-") {
            const std::string_view name = std::string_view(arg).substr(0, arg.find('='));
            return fail("unknown option '" + arg + "'" + did_you_mean(name, kOptions));
        }
        // `ropc emit plan FILE`: the stage as a word, as `--emit=plan`.
        if (explicit_command && request_.command == Command::Emit && !stage_given_) {
            if (const auto stage = emit_stage(arg)) {
                request_.emit = *stage;
                stage_given_ = true;
                return true;
            }
        }
        if (request_.command == Command::Explain && request_.explain_code.empty()) {
            request_.explain_code = arg;
            return true;
        }
        request_.files.push_back(arg);
        return true;
    }

    bool set_command(Command command, bool explicit_command) {
        if (explicit_command && request_.command != command) {
            return fail("this option cannot be combined with the subcommand given");
        }
        request_.command = command;
        implicit_command_ = true;
        return true;
    }

    bool set_emit(const std::string& value, bool explicit_command) {
        const std::optional<EmitStage> stage = emit_stage(value);
        if (!stage) {
            return fail("unknown --emit stage '" + value + "' (expected tokens, ast, plan or cpp)");
        }
        request_.emit = *stage;
        stage_given_ = true;
        return set_command(Command::Emit, explicit_command);
    }

    bool set_color(const std::string& value) {
        if (value == "auto") {
            request_.color = ColorMode::Auto;
        } else if (value == "always") {
            request_.color = ColorMode::Always;
        } else if (value == "never") {
            request_.color = ColorMode::Never;
        } else {
            return fail("unknown --color '" + value + "' (expected auto, always or never)");
        }
        return true;
    }

    bool set_format(const std::string& value) {
        if (value == "text") {
            request_.format = Format::Text;
        } else if (value == "json") {
            request_.format = Format::Json;
        } else if (value == "sarif") {
            request_.format = Format::Sarif;
        } else {
            return fail("unknown --format '" + value + "' (expected text, json or sarif)");
        }
        return true;
    }

    bool set_max_errors(const std::string& value) {
        std::size_t n = 0;
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
        if (ec != std::errc() || end != value.data() + value.size()) {
            return fail("--max-errors takes a number, found '" + value + "'");
        }
        request_.max_errors = n;
        return true;
    }

    ParseResult finish(bool explicit_command) {
        if (explicit_command && request_.command == Command::Help && !request_.files.empty()) {
            help_for_ = subcommand(request_.files.front());
            wants_help_ = true;
        }
        if (wants_help_) {
            request_.help_for = help_for_;
            request_.command = Command::Help;
            return {request_, ""};
        }
        if (!explicit_command && !implicit_command_) {
            if (args_.empty()) return {std::nullopt, "no command given"};
            // A path (`ropc x.rop`) is a missing command, not a misspelt one.
            const bool path = args_[0].find_first_of("./") != std::string::npos;
            return {std::nullopt, "unknown command '" + args_[0] + "'" +
                                      (path ? "" : did_you_mean(args_[0], kCommands))};
        }
        const Command c = request_.command;
        if (c == Command::Explain && request_.explain_code.empty()) {
            return {std::nullopt, "--explain needs a diagnostic id, e.g. --explain E0203"};
        }
        if (c == Command::Check && request_.files.empty()) {
            return {std::nullopt, "check needs at least one .rop file"};
        }
        if ((c == Command::Emit || c == Command::Graph) && request_.files.size() != 1) {
            return {std::nullopt, std::string(c == Command::Emit ? "emit" : "graph") +
                                      " takes exactly one .rop file"};
        }
        return {request_, ""};
    }

    const std::vector<std::string>& args_;
    Request request_;
    std::string error_;
    bool wants_help_ = false;
    bool implicit_command_ = false;
    bool stage_given_ = false;  // emit: --emit=STAGE or the stage word already seen
    std::optional<Command> help_for_;
};

}  // namespace

ParseResult parse_command_line(const std::vector<std::string>& args) { return Parser(args).run(); }

bool use_color(ColorMode mode, const char* no_color, bool is_tty) {
    switch (mode) {
        case ColorMode::Always:
            return true;
        case ColorMode::Never:
            return false;
        case ColorMode::Auto:
            break;
    }
    if (no_color != nullptr && no_color[0] != '\0') return false;
    return is_tty;
}

}  // namespace rop::cli
