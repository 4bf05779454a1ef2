#include "sema/check_broadcast_domains.h"

#include <string>

namespace rop::sema {

void check_broadcast_domains(const ast::Program& program, const Resolution& resolution,
                             const DomainInference& inference, DiagnosticEngine& diags) {
    for (std::uint32_t s = 0; s < program.statements.size(); ++s) {
        const auto* stage = std::get_if<ast::Stage>(&program.statements[s]);
        if (stage == nullptr || stage->kind != ast::StageKind::Broadcast) continue;
        const std::uint32_t target = resolution.domain_clause[s];
        const std::uint32_t stream =
            resolution.inputs[s].empty() ? kUnresolved : resolution.inputs[s][0];
        const std::uint32_t from = stream == kUnresolved ? kUnresolved : inference.streams[stream];
        if (target == kUnresolved || from == kUnresolved) continue;
        if (inference.is_strict_ancestor(from, target)) continue;

        const std::string x = stage->inputs[0].name.name;
        const std::string from_name(resolution.domains[from].name);
        const std::string to_name(resolution.domains[target].name);
        std::string why;
        std::string hint;
        if (from == target) {
            why = "it is already in '" + to_name + "'";
            hint = "use '" + x + "' directly; broadcast only moves values from an ancestor Domain";
        } else if (inference.is_strict_ancestor(target, from)) {
            why = "'" + from_name + "' is nested under '" + to_name + "', so values would move up";
            hint = "to bring children's values up to a parent, reduce them";
        } else {
            why = "'" + from_name + "' and '" + to_name + "' are on different branches";
            hint = "broadcast moves values only from an ancestor Domain down to its descendants";
        }
        Diagnostic& d = diags.report(
            DiagId::BroadcastNotFromAncestor, stage->inputs[0].range,
            "cannot broadcast '" + x + "' from '" + from_name + "' to '" + to_name + "': " + why);
        d.notes.push_back({resolution.domains[target].range, "'" + to_name + "' is declared here"});
        d.notes.push_back({std::nullopt, hint});
    }
}

}  // namespace rop::sema
