// Shared helpers of the `ropc fmt` tests: format a string as if it were the file "t.rop".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "format/format.h"

namespace rop::test {

struct FormatRun {
    std::optional<std::string> text;  // nullopt: the input did not parse
    std::vector<std::string> diags;   // "E0010@3:5" for each diagnostic
};

inline FormatRun format_text(const std::string& text) {
    SourceManager sources;
    FileId file = sources.add_buffer("t.rop", text);
    DiagnosticEngine engine(sources);
    FormatRun run;
    run.text = format::format_file(file, sources, engine);
    for (const Diagnostic& d : engine.finish()) {
        LineCol at = sources.line_col(d.range.file, d.range.begin);
        run.diags.push_back(std::string(diag_info(d.id).code) + "@" + std::to_string(at.line) +
                            ":" + std::to_string(at.column));
    }
    return run;
}

// The formatted text; "<does not parse>" so a failing CHECK shows why.
inline std::string fmt(const std::string& text) {
    return format_text(text).text.value_or("<does not parse>");
}

}  // namespace rop::test
