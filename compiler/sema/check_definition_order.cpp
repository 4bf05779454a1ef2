#include "sema/check_definition_order.h"

#include <string>

namespace rop::sema {

void check_definition_order(const ast::Program& program, const Resolution& resolution,
                            const StatementGraph& graph, DiagnosticEngine& diags) {
    for (std::uint32_t s = 0; s < graph.depends_on.size(); ++s) {
        if (graph.in_cycle[s]) continue;
        for (const Dependency& dep : graph.depends_on[s]) {
            if (dep.provider < dep.user) continue;
            const std::string name(dep.name);
            if (dep.through_domain) {
                const DomainDecl& decl = resolution.domains[resolution.domain_by_name.at(dep.name)];
                Diagnostic& d =
                    diags.report(DiagId::DomainUsedBeforeOpened, dep.at,
                                 "Domain '" + name + "' is used before the expand that opens it");
                d.notes.push_back(
                    {decl.range, "'" + name + "' is opened here, by " +
                                     statement_label(program.statements[dep.provider])});
                d.notes.push_back({std::nullopt, "move this statement below that expand"});
                continue;
            }
            const StreamDef& def = resolution.streams[resolution.stream_by_name.at(dep.name)];
            Diagnostic& d = diags.report(DiagId::UseBeforeDefinition, dep.at,
                                         "stream '" + name + "' is used before its definition");
            d.notes.push_back({def.range, "'" + name + "' is defined here"});
            d.notes.push_back({std::nullopt,
                               "statements run in data-flow order; move the "
                               "definition of '" +
                                   name + "' above its first use"});
        }
    }
    // A pool is not data, so it is no edge of the graph; its declaration comes first all the
    // same, as a stream's does, so the file reads top to bottom.
    for (std::uint32_t s = 0; s < resolution.pool_of.size(); ++s) {
        const std::uint32_t p = resolution.pool_of[s];
        if (p == kUnresolved || resolution.pools[p].statement < s) continue;
        const PoolDecl& pool = resolution.pools[p];
        const std::string name(pool.name);
        const ast::OpRef* op = statement_op(program.statements[s]);
        Diagnostic& d =
            diags.report(DiagId::PoolUsedBeforeDeclaration, op->name.parts.front().range,
                         "pool '" + name + "' is used before its declaration");
        d.notes.push_back({pool.range, "'" + name + "' is declared here"});
        d.notes.push_back(
            {std::nullopt, "move the declaration of '" + name + "' above its first use"});
    }
}

}  // namespace rop::sema
