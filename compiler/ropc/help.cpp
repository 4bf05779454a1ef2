#include "ropc/help.h"

#include "ropc/explanations.h"
#include "support/diagnostics.h"

namespace rop::cli {

namespace {

std::string build_help() {
    return "usage: ropc build PIPELINE.rop -o BINARY [--cxx CXX] [--emit=cpp|plan] [--keep-cpp "
           "DIR]\n"
           "                  [-I DIR]... [--src FILE.cpp]... [-O LEVEL] [-j N] [-v]\n"
           "                  [--bundle DIR|FILE.tar.gz] [--static] [--mpi]\n"
           "                  [-Werror] [--max-errors=N] [--color=WHEN]\n\n"
           "Checks the pipeline, binds its Calls to the C++ UDFs of its `use` headers and the\n"
           "stdlib, generates C++ and builds one standalone binary with the host compiler.\n"
           "  -o BINARY        the binary to write\n"
           "  --cxx CXX        the C++ compiler (default: $ROP_CXX, else c++, g++ or clang++)\n"
           "  --emit=cpp       print the generated C++ on stdout and build nothing (no -o needed)\n"
           "  --emit=plan      print the bound plan as JSON (as `ropc emit plan`) and build "
           "nothing\n"
           "  --keep-cpp DIR   also write the generated C++ to DIR/NAME.generated.cpp\n"
           "  -I DIR           another directory for `use` headers and their includes\n"
           "  --src FILE.cpp   another C++ source to compile and link (each `use \"X.hpp\"`'s\n"
           "                   sibling X.cpp is compiled and linked without asking)\n"
           "  -O LEVEL         optimization level for the C++ compiler (default 2)\n"
           "  -j N             compile at most N files at once (default: one per core)\n"
           "  -v               print the compiler commands and the cache decisions\n"
           "  --bundle DIR     also write a self-contained folder for a node without rop: bin/,\n"
           "                   the shared libraries (lib/), Tesseract data, manifest.json; a\n"
           "                   name ending in .tar.gz writes it packed (-o optional; see\n"
           "                   docs/shipping.md)\n"
           "  --static         link statically; refused, naming them, when a system library\n"
           "                   has no static archive (poppler, FFmpeg's on Debian)\n"
           "  --mpi            link the MPI executor: the binary runs under mpirun or srun,\n"
           "                   rank 0 driving, the other ranks hosting actors\n"
           "                   (docs/cluster.md); every Call's item types then need a codec\n"
           "                   (E0512)\n"
           "  -Werror          treat warnings as errors (the build stops)\n"
           "  --max-errors=N   stop listing after N errors (0: no limit; default 50)\n"
           "  --color=WHEN     colour diagnostics: auto (the default), always or never\n\n"
           "Builds are cached by content (ROP_CACHE_DIR, else $XDG_CACHE_HOME/rop or\n"
           "~/.cache/rop): an unchanged rebuild only copies the cached binary. Past\n"
           "ROP_CACHE_MAX_SIZE (default 5G) a build removes the least recently used entries\n"
           "(`ropc cache --help`).\n"
           "Exit status: 0 built, 1 errors in the pipeline or its C++ (shown at the .rop line),\n"
           "2 usage error, 3 internal compiler error.\n";
}

}  // namespace

std::string help_text(std::optional<Command> command) {
    if (!command) command = Command::Help;
    switch (*command) {
        case Command::Check:
            return "usage: ropc check FILE... [-Werror] [--format=text|json|sarif] "
                   "[--max-errors=N] [-I DIR]... [--no-bind]\n"
                   "                        [--color=auto|always|never] [--mpi]\n\n"
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
                   "                     is set and non-empty; the default), always or never\n"
                   "  --mpi              check as `ropc build --mpi` builds: every Call's items "
                   "cross\n"
                   "                     between ranks, so each item type needs a codec "
                   "(E0512)\n\n"
                   "Exit status: 0 clean (warnings allowed), 1 errors, 2 usage error or a file "
                   "that cannot be read,\n3 internal compiler error (a bug in ropc).\n";
        case Command::Emit:
            return "usage: ropc emit tokens|ast|plan FILE [-I DIR]... [--no-bind] [-Werror]\n"
                   "                 [--max-errors=N] [--color=WHEN]   (or: ropc --emit=STAGE "
                   "FILE)\n\n"
                   "Prints one stage of the compiler on stdout:\n"
                   "  tokens   one token per line\n"
                   "  ast      the syntax tree as JSON\n"
                   "  plan     the checked program as JSON (Domains, Ports, Calls, edges,\n"
                   "           expand/reduce pairs), each Call's `binding` giving its bound C++ "
                   "UDF\n"
                   "           and types (null with --no-bind); needs a program that checks clean\n"
                   "The generated C++ is `ropc build FILE --emit=cpp` (it takes build's options).\n"
                   "  -I DIR, --no-bind, -Werror, --max-errors=N, --color=WHEN as for `ropc "
                   "check`.\n"
                   "Diagnostics go to stderr; exit status as for `ropc check`.\n";
        case Command::Graph:
            return "usage: ropc graph FILE [-Werror] [--max-errors=N] [--color=WHEN]\n\n"
                   "Prints the checked pipeline as Graphviz DOT on stdout: one cluster per "
                   "Domain,\nchild Domains nested in their parent's cluster. Render it with\n"
                   "`ropc graph p.rop | dot -Tsvg > p.svg`. The flags are as for `ropc check`.\n";
        case Command::Build: return build_help();
        case Command::Explain:
            return "usage: ropc --explain ID   (or: ropc explain ID)\n\n"
                   "Prints what diagnostic ID (e.g. E0203) means, an example and the fix.\n";
        case Command::Fmt:
            return "usage: ropc fmt FILE... [--check | -i] [-Werror] [--max-errors=N] "
                   "[--color=WHEN]\n\n"
                   "Prints each .rop file in its canonical layout on stdout (docs/build.md lists "
                   "the rules);\ncomments and blank lines between statements are kept.\n"
                   "  --check            print nothing; name each file that is not canonical "
                   "and its first\n"
                   "                     differing line (exit status 1 if there is one)\n"
                   "  -i, --in-place     rewrite the files that are not canonical (atomically)\n"
                   "  -                  as FILE: read stdin (an editor's buffer), write stdout\n"
                   "  -Werror, --max-errors=N, --color=WHEN as for `ropc check`.\n"
                   "A file that does not parse is left alone; its errors are printed as `ropc "
                   "check` prints them.\nExit status: 0 done (all canonical, with --check), 1 "
                   "syntax errors or (--check) files\nto reformat, 2 usage error or a file that "
                   "cannot be read or written.\n";
        case Command::Lsp:
            return "usage: ropc lsp [--bind] [-I DIR]...\n\n"
                   "A Language Server for .rop files on stdin/stdout (JSON-RPC 2.0), for "
                   "editors\n(docs/editor.md): diagnostics as you type, as `ropc check` "
                   "reports them, hover,\ngo to definition and completion.\n"
                   "  --bind             also bind every Call to its C++ UDF as it checks "
                   "(E05xx as you\n"
                   "                     type; slower): without it, `ropc check --no-bind`'s "
                   "checks\n"
                   "  -I DIR             also look for `use` headers (and what they include) in "
                   "DIR\n"
                   "Exit status: 0 after the client's shutdown and exit, 1 otherwise.\n";
        case Command::Warm:
            return "usage: ropc warm [--into DIR] [--cxx CXX] [-O LEVEL] [-v]\n\n"
                   "Makes the precompiled headers every build and check uses, so the first one\n"
                   "does not pay for them: binding's prelude (the standard and stdlib headers, "
                   "for\n"
                   "`ropc check` and every build) and the image of rop/runtime/generated.h that\n"
                   "`ropc build` compiles each generated file with (one per compiler and -O).\n"
                   "Both are made once; an unchanged one is left as it is.\n"
                   "  --into DIR       make them in DIR, not in the cache. rop's own build makes\n"
                   "                   them in <its lib/>/rop/cache (and `cmake --install` in the\n"
                   "                   installed one): the seed every ropc beside that lib/ reads\n"
                   "                   when its cache has none, and never writes\n"
                   "  --cxx CXX        the C++ compiler (default: $ROP_CXX, else c++, g++ or "
                   "clang++)\n"
                   "  -O LEVEL         the optimization level builds will use (default 2)\n"
                   "  -v               print the compiler commands\n\n"
                   "The cache: ROP_CACHE_DIR, else $XDG_CACHE_HOME/rop or ~/.cache/rop.\n"
                   "Exit status: 0 both made or unchanged, 1 one could not be made (said why),\n"
                   "2 usage error.\n";
        case Command::Cache:
            return "usage: ropc cache [info]\n"
                   "       ropc cache prune [--max-size SIZE] [--older-than AGE] [--dry-run]\n"
                   "       ropc cache clear [--dry-run]\n\n"
                   "The build cache (ROP_CACHE_DIR, else $XDG_CACHE_HOME/rop or ~/.cache/rop):\n"
                   "objects, binaries, generated files and precompiled headers, each marked\n"
                   "when a build uses it. A `ropc build` that compiles or links removes the\n"
                   "least recently used entries once the cache holds more than\n"
                   "ROP_CACHE_MAX_SIZE (default 5G; 0: no limit). Nothing used in the last\n"
                   "5 minutes is pruned (a build may need it).\n"
                   "  info               each part's entries, size and least recent use; the\n"
                   "                     limit\n"
                   "  prune              remove the least recently used until the cache fits the\n"
                   "                     limit, and what interrupted builds left behind\n"
                   "  clear              remove every entry (a running build may then fail)\n"
                   "  --max-size SIZE    prune to SIZE instead (5G, 500M; 0: all but the recent)\n"
                   "  --older-than AGE   prune what was not used for AGE (30d, 12h, 45m, 90s)\n"
                   "  --dry-run          list what would be removed; remove nothing\n\n"
                   "Exit status: 0 done, 1 an entry could not be removed (said which), 2 usage "
                   "error.\n";
        case Command::Version: return "usage: ropc --version\n";
        case Command::Help: break;
    }
    return "usage: ropc <command> [options] FILE...\n\n"
           "Commands:\n"
           "  check FILE...          check pipelines; GCC-style diagnostics (or JSON/SARIF)\n"
           "  build FILE -o BINARY   build a pipeline into one standalone binary\n"
           "  emit STAGE FILE        print tokens, ast or plan (also: --emit=STAGE FILE)\n"
           "  graph FILE             print the pipeline as Graphviz DOT\n"
           "  fmt FILE...            print or rewrite (-i) pipelines in canonical layout\n"
           "  lsp                    serve editors: a Language Server on stdin/stdout\n"
           "  warm                   make the precompiled headers builds and checks use\n"
           "  cache [ACTION]         the build cache: info, prune or clear\n"
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
