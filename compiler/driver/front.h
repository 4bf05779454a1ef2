// The compiler's front half, once for every subcommand: parse -> sema -> bind of one `.rop`
// file under one set of options. `ropc check`, `emit`, `graph` and `build` all go through
// run_front; what they do with the result (print diagnostics, a plan, DOT, C++) is theirs.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bind/bind_program.h"
#include "driver/toolchain.h"
#include "sema/program.h"
#include "support/diagnostics.h"
#include "support/source_manager.h"

namespace rop::driver {

enum class Format { Text, Json, Sarif };
// Colour in text diagnostics: auto = on a TTY unless NO_COLOR is set (https://no-color.org).
enum class ColorMode { Auto, Always, Never };

// The options every subcommand that reads a `.rop` file shares (`ropc SUBCOMMAND --help`).
struct FrontOptions {
    std::vector<std::string> include_dirs;  // -I DIR: more directories for `use` headers
    bool warnings_as_errors = false;        // -Werror
    std::size_t max_errors = 50;            // --max-errors=N (0: no limit)
    bool bind = true;                       // --no-bind: stop after the language checks
    bool mpi = false;  // --mpi (build, check): every Call's items cross between ranks (E0512)
    Format format = Format::Text;       // --format=text|json|sarif (check)
    ColorMode color = ColorMode::Auto;  // --color=auto|always|never
    std::string cache_dir;              // empty: cache_dir()'s discovery (toolchain.h)
    bool mark_cache_used = true;        // false: `ropc warm`, which may fill a seed
};

struct FrontResult {
    // The checked program; null when the parse or the checks reported errors. After a binding
    // that succeeded, every Call's `binding` (sema::OpBinding) is filled in (the plan shows it).
    std::unique_ptr<sema::CheckedProgram> program;
    // Set when binding ran and succeeded; its `program` points at `program` above.
    std::optional<bind::BoundProgram> bound;
    std::vector<Diagnostic> diagnostics;  // sorted, capped (DiagnosticEngine::finish)
    bool has_errors = false;
};

// What binding reads under `options`: the stdlib headers of `toolchain`, the -I directories, the
// precompiled prelude in the cache's bind/ folder (and the seed's), --mpi. Shared by run_front
// and the language server's binding for hover; `sources` is left for the caller to set.
bind::ProgramBindOptions bind_options(const FrontOptions& options, const Toolchain& toolchain);

// Runs the front half over `file` (already in `sources`). Binding reads the stdlib headers of
// `toolchain` and keeps its precompiled headers in the cache's bind/ folder.
FrontResult run_front(FileId file, SourceManager& sources, const FrontOptions& options,
                      const Toolchain& toolchain);

// Whether text diagnostics get ANSI colour. `no_color` is $NO_COLOR (null when unset): set and
// non-empty, it turns auto off even on a TTY; an explicit --color=always still wins, as
// no-color.org asks of per-invocation flags.
bool use_color(ColorMode mode, const char* no_color, bool is_tty);

// Text diagnostics on `err` (stderr), coloured as `mode`, $NO_COLOR and the terminal say.
void print_text_diagnostics(const SourceManager& sources, const std::vector<Diagnostic>& diags,
                            ColorMode mode, std::ostream& err);

}  // namespace rop::driver
