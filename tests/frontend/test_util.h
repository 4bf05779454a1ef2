// Shared helpers of the front-end tests: parse a string, look up a location.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "frontend/parser.h"
#include "support/diagnostics.h"

namespace rop::test {

// One parse of an in-memory file named "t.rop", with its diagnostics finished (sorted).
struct Parsed {
    SourceManager sources;
    ast::Program program;
    std::vector<Diagnostic> diags;
};

inline std::unique_ptr<Parsed> parse_text(const std::string& text) {
    auto out = std::make_unique<Parsed>();
    FileId file = out->sources.add_buffer("t.rop", text);
    DiagnosticEngine engine(out->sources);
    engine.set_max_errors(0);
    out->program = parse(file, out->sources, engine);
    out->diags = engine.finish();
    return out;
}

// "line:col-line:col" of a range, end exclusive, as the tests spell expectations.
inline std::string span(const SourceManager& sources, SourceRange r) {
    LineCol b = sources.line_col(r.file, r.begin);
    LineCol e = sources.line_col(r.file, r.end);
    return std::to_string(b.line) + ":" + std::to_string(b.column) + "-" + std::to_string(e.line) +
           ":" + std::to_string(e.column);
}

// "E0010@3:5" for each diagnostic, in order: id and start, what negative tests compare.
inline std::vector<std::string> ids_at(const Parsed& p) {
    std::vector<std::string> out;
    for (const Diagnostic& d : p.diags) {
        LineCol at = p.sources.line_col(d.range.file, d.range.begin);
        out.push_back(std::string(diag_info(d.id).code) + "@" + std::to_string(at.line) + ":" +
                      std::to_string(at.column));
    }
    return out;
}

inline const std::string kHeader = "pipeline t;\n";

}  // namespace rop::test
