// ropc's command line: one parser (CLI11) for every subcommand turns argv into one Request, or
// a usage error to print with exit code 2. The options a subcommand lists in its --help are the
// ones it accepts; an unknown one gets a did-you-mean from that same list.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "driver/driver.h"
#include "driver/front.h"

namespace rop::cli {

enum class Command { Check, Build, Emit, Graph, Explain, Version, Help, Fmt, Lsp, Warm, Cache };
using Format = driver::Format;
using ColorMode = driver::ColorMode;
using driver::use_color;
// `ropc emit` (`ropc --emit=`); the generated C++ is build's alone (`ropc build --emit=cpp`).
enum class EmitStage { Tokens, Ast, Plan };

// `ropc cache [info|prune|clear]` (cache_command.cpp).
enum class CacheAction { Info, Prune, Clear };
struct CacheRequest {
    CacheAction action = CacheAction::Info;
    std::optional<std::uintmax_t> max_size;          // --max-size
    std::optional<std::chrono::seconds> older_than;  // --older-than
    bool dry_run = false;                            // --dry-run
};

struct Request {
    Command command = Command::Help;
    std::vector<std::string> files;
    driver::FrontOptions front;  // -I, -Werror, --max-errors, --format, --color, --no-bind, --mpi
    EmitStage emit = EmitStage::Plan;
    driver::BuildOptions build;       // Command::Build (its `front` and `rop_path` are set too)
    driver::WarmOptions warm;         // Command::Warm
    CacheRequest cache;               // Command::Cache
    std::string explain_code;         // --explain
    bool fmt_check = false;           // ropc fmt --check: report, rewrite nothing
    bool fmt_in_place = false;        // ropc fmt -i: rewrite the files
    bool lsp_bind = false;            // ropc lsp --bind: bind as it checks
    std::optional<Command> help_for;  // `ropc check --help`: help for that subcommand
};

struct ParseResult {
    std::optional<Request> request;
    std::string error;  // set when request is empty
    // Where the error message points for usage: `ropc build --help` for build's own flags.
    std::string help_hint = "ropc --help";
};

ParseResult parse_command_line(const std::vector<std::string>& args);

}  // namespace rop::cli
