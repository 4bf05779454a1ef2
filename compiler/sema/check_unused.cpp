#include "sema/check_unused.h"

#include <string>

namespace rop::sema {

void check_unused(const ast::Program& program, const Resolution& resolution,
                  DiagnosticEngine& diags) {
    std::vector<bool> used(resolution.streams.size(), false);
    for (const auto& inputs : resolution.inputs) {
        for (std::uint32_t stream : inputs) {
            if (stream != kUnresolved) used[stream] = true;
        }
    }
    for (std::uint32_t i = 0; i < resolution.streams.size(); ++i) {
        const StreamDef& def = resolution.streams[i];
        if (used[i] || def.name.starts_with('_')) continue;
        const std::string name(def.name);
        Diagnostic& d =
            diags.report(DiagId::UnusedStream, def.range, "stream '" + name + "' is never used");
        const bool multi_output = statement_outputs(program.statements[def.statement]).size() > 1;
        d.notes.push_back(
            {std::nullopt, multi_output
                               ? "no statement or sink reads this output; name it '_" + name +
                                     "' to say it is deliberately unused"
                               : "no statement or sink reads it; remove the statement, sink it, "
                                 "or name it '_" +
                                     name + "' to keep it quiet"});
        d.fixit = FixIt{def.range, "_" + name};
    }
}

}  // namespace rop::sema
