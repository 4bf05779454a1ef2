#include "ropc/help.h"

#include "ropc/explanations.h"
#include "support/diagnostics.h"

namespace rop::cli {

std::string help_text(std::optional<Command> command) {
    if (!command) command = Command::Help;
    switch (*command) {
        case Command::Check:
            return "usage: ropc check FILE... [-Werror] [--format=text|json|sarif] "
                   "[--max-errors=N] [-I DIR]... [--no-bind]\n"
                   "                        [--color=auto|always|never]\n\n"
                   "Parses and checks each .rop file without building it, binding every "
                   "operator to its C++\ndeclaration in the `use` headers and the stdlib.\n"
                   "  -Werror            treat warnings as errors\n"
                   "  -I DIR             also look for `use` headers (and what they include) in "
                   "DIR\n"
                   "  --no-bind          stop after the language checks; do not read C++ "
                   "headers\n"
                   "  --format=FORMAT    text (GCC style, on stderr; the default), json or sarif\n"
                   "                     (SARIF 2.1.0), both on stdout\n"
                   "  --max-errors=N     stop listing after N errors per file (0: no limit; "
                   "default 50)\n"
                   "  --color=WHEN       colour text diagnostics: auto (on a terminal, unless "
                   "NO_COLOR\n"
                   "                     is set and non-empty; the default), always or never\n\n"
                   "Exit status: 0 clean (warnings allowed), 1 errors, 2 usage error or a file "
                   "that cannot be read,\n3 internal compiler error (a bug in ropc).\n";
        case Command::Emit:
            return "usage: ropc emit tokens|ast|plan|cpp FILE   (or: ropc --emit=STAGE FILE)\n\n"
                   "Prints one stage of the compiler on stdout:\n"
                   "  tokens   one token per line\n"
                   "  ast      the syntax tree as JSON\n"
                   "  plan     the checked program as JSON (Domains, Ports, Calls, edges,\n"
                   "           expand/reduce pairs); needs a program that checks clean\n"
                   "  cpp      the generated C++, as `ropc build FILE --emit=cpp` (-I DIR as "
                   "there)\n"
                   "Diagnostics go to stderr; exit status as for `ropc check`.\n";
        case Command::Graph:
            return "usage: ropc graph FILE\n\n"
                   "Prints the checked pipeline as Graphviz DOT on stdout: one cluster per "
                   "Domain,\nchild Domains nested in their parent's cluster. Render it with\n"
                   "`ropc graph p.rop | dot -Tsvg > p.svg`.\n";
        case Command::Explain:
            return "usage: ropc --explain ID   (or: ropc explain ID)\n\n"
                   "Prints what diagnostic ID (e.g. E0203) means, an example and the fix.\n";
        case Command::Version:
            return "usage: ropc --version\n";
        case Command::Help:
            break;
    }
    return "usage: ropc <command> [options] FILE...\n\n"
           "Commands:\n"
           "  check FILE...          check pipelines; GCC-style diagnostics (or JSON/SARIF)\n"
           "  build FILE -o BINARY   build a pipeline into one standalone binary\n"
           "  emit STAGE FILE        print tokens, ast, plan or cpp (also: --emit=STAGE FILE)\n"
           "  graph FILE             print the pipeline as Graphviz DOT\n"
           "  --explain ID           explain a diagnostic id, e.g. E0203\n"
           "  --version              print the version\n\n"
           "`ropc <command> --help` describes one command (`ropc build --help` too).\n";
}

std::optional<std::string> explain_text(std::string_view code) {
    const std::optional<DiagId> id = diag_by_code(code);
    if (!id) return std::nullopt;
    if (const auto section = explanation(code)) return std::string(*section);
    const DiagInfo& info = diag_info(*id);
    return "### " + std::string(info.code) + ": " + std::string(info.summary) + "\n";
}

}  // namespace rop::cli
