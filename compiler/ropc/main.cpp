// ropc: the rop compiler driver. Parses the command line (one parser for every subcommand,
// cli.h) and hands off to one subcommand (commands.h).
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "lsp/server.h"
#include "ropc/cli.h"
#include "ropc/commands.h"
#include "ropc/help.h"

namespace {

int dispatch(const rop::cli::Request& request) {
    using namespace rop::cli;
    switch (request.command) {
        case Command::Check: return run_check(request);
        case Command::Build: return run_build(request);
        case Command::Emit: return run_emit(request);
        case Command::Graph: return run_graph(request);
        case Command::Fmt: return run_fmt(request);
        case Command::Warm: return rop::driver::warm(request.warm, std::cout, std::cerr);
        case Command::Cache: return run_cache(request);
        case Command::Lsp: {
            rop::lsp::ServerOptions options;
            options.bind = request.lsp_bind;
            options.include_dirs = request.front.include_dirs;
            return rop::lsp::serve(options, std::cin, std::cout);
        }
        case Command::Explain: {
            const auto text = explain_text(request.explain_code);
            if (!text) {
                std::cerr << "ropc: error: no diagnostic has the id '" << request.explain_code
                          << "'\n";
                return 2;
            }
            std::cout << *text;
            return 0;
        }
        case Command::Version: std::cout << "ropc " << ROP_VERSION << "\n"; return 0;
        case Command::Help: std::cout << help_text(request.help_for); return 0;
    }
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    const rop::cli::ParseResult parsed = rop::cli::parse_command_line(args);
    if (!parsed.request) {
        std::cerr << "ropc: error: " << parsed.error << "\n"
                  << "run `" << parsed.help_hint << "` for usage\n";
        return 2;
    }
    // A user's mistake is a diagnostic; an exception escaping here is a bug in ropc itself.
    try {
        return dispatch(*parsed.request);
    } catch (const std::exception& e) {
        std::cerr << "ropc: internal compiler error: " << e.what() << "\n"
                  << "please report this bug with the .rop file that triggered it\n";
    } catch (...) {
        std::cerr << "ropc: internal compiler error: unknown exception\n"
                  << "please report this bug with the .rop file that triggered it\n";
    }
    return 3;
}
