// libFuzzer target: any byte string through the lexer, the parser, the diagnostic engine and
// every renderer and dump. Crashes, sanitizer reports, hangs and broken invariants are bugs.
#include <cstddef>
#include <cstdint>
#include <string>

#include "frontend/dump.h"
#include "frontend/lexer.h"
#include "frontend/parser.h"
#include "support/diagnostics.h"

namespace {

// The properties a run must hold whatever the input: diagnostics point into the file, errors
// in the input always yield at least one error, and the ordering finish() promises.
void check_invariants(const std::vector<rop::Diagnostic>& diags, std::size_t size) {
    const rop::Diagnostic* prev = nullptr;
    for (const rop::Diagnostic& d : diags) {
        if (d.range.begin > d.range.end || d.range.end > size) __builtin_trap();
        if (d.fixit && (d.fixit->range.begin > d.fixit->range.end || d.fixit->range.end > size)) {
            __builtin_trap();
        }
        for (const rop::Note& note : d.notes) {
            if (note.range && note.range->end > size) __builtin_trap();
        }
        if (prev && prev->range.begin > d.range.begin) __builtin_trap();
        prev = &d;
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    rop::SourceManager sources;
    rop::FileId file =
        sources.add_buffer("fuzz.rop", std::string(reinterpret_cast<const char*>(data), size));
    rop::DiagnosticEngine diags(sources);
    diags.set_max_errors(20);
    rop::ast::Program program = rop::parse(file, sources, diags);
    std::vector<rop::Diagnostic> finished = diags.finish();
    check_invariants(finished, size);
    if (program.statements.empty() && !program.header && finished.empty()) __builtin_trap();

    std::string out = rop::render_text(sources, finished, size % 2 == 0);
    // The JSON renderers are thin code over nlohmann::json and cost most of an execution under
    // ASan; a quarter of the inputs (chosen by size, so a rerun repeats it) still covers them.
    if (size % 4 == 0) {
        out += rop::render_json(sources, finished);
        out += rop::render_sarif(sources, finished, "fuzz");
        out += rop::dump_ast_json(program, sources);
    }
    rop::DiagnosticEngine lex_diags(sources);
    out += rop::dump_tokens(rop::lex(file, sources, lex_diags), sources);
    return out.empty() ? 1 : 0;
}
