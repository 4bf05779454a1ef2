#include "sema/collect_streams.h"

#include <string>

namespace rop::sema {

void collect_streams(const ast::Program& program, Resolution& resolution, DiagnosticEngine& diags) {
    for (std::uint32_t s = 0; s < program.statements.size(); ++s) {
        const std::vector<const ast::Ident*> outputs = statement_outputs(program.statements[s]);
        for (std::uint32_t o = 0; o < outputs.size(); ++o) {
            const ast::Ident& name = *outputs[o];
            const auto [it, inserted] = resolution.stream_by_name.try_emplace(
                name.name, static_cast<std::uint32_t>(resolution.streams.size()));
            if (inserted) {
                resolution.streams.push_back({name.name, s, o, name.range});
                continue;
            }
            Diagnostic& d = diags.report(DiagId::DuplicateDefinition, name.range,
                                         "redefinition of stream '" + name.name + "'");
            d.notes.push_back({resolution.streams[it->second].range,
                               "previous definition of '" + name.name + "' is here"});
        }
    }
}

}  // namespace rop::sema
