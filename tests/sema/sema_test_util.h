// Helpers for the sema tables: parse and check a program held in memory, and list what was
// reported as "ID@line:col" so each row states its exact diagnostic and position.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frontend/parser.h"
#include "sema/sema.h"
#include "support/diagnostics.h"
#include "support/source_manager.h"

namespace rop::test {

struct SemaRun {
    std::unique_ptr<SourceManager> sources = std::make_unique<SourceManager>();
    std::vector<Diagnostic> diagnostics;
    std::optional<sema::CheckedProgram> program;
    bool parsed_cleanly = false;

    // "E0200@5:21" per diagnostic of at least `min` severity, in reported (sorted) order.
    std::vector<std::string> found(Severity min = Severity::Error) const {
        std::vector<std::string> out;
        for (const Diagnostic& d : diagnostics) {
            if (d.severity < min) continue;
            const LineCol at = sources->line_col(d.range.file, d.range.begin);
            out.push_back(std::string(diag_info(d.id).code) + "@" + std::to_string(at.line) + ":" +
                          std::to_string(at.column));
        }
        return out;
    }
};

inline SemaRun run_sema(const std::string& text, bool werror = false) {
    SemaRun run;
    const FileId file = run.sources->add_buffer("test.rop", text);
    DiagnosticEngine diags(*run.sources);
    diags.set_warnings_as_errors(werror);
    diags.set_max_errors(0);
    const ast::Program program = parse(file, *run.sources, diags);
    run.parsed_cleanly = !diags.has_errors();
    if (run.parsed_cleanly) run.program = sema::check(program, diags);
    run.diagnostics = diags.finish();
    return run;
}

inline std::string at(const std::string& id, int line, int column) {
    return id + "@" + std::to_string(line) + ":" + std::to_string(column);
}

// 1-based column of the first `needle` in line `line` (1-based) of `text`.
inline int column_of(const std::string& text, int line, const std::string& needle) {
    std::size_t begin = 0;
    for (int l = 1; l < line; ++l) begin = text.find('\n', begin) + 1;
    return static_cast<int>(text.find(needle, begin) - begin) + 1;
}

}  // namespace rop::test
