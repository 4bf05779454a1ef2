#include "sema/collect_domains.h"

#include <string>

namespace rop::sema {

void collect_domains(const ast::Program& program, Resolution& resolution, DiagnosticEngine& diags) {
    resolution.domain_clause.assign(program.statements.size(), kUnresolved);
    if (resolution.source_statement) {
        const std::uint32_t s = *resolution.source_statement;
        const auto& source = std::get<ast::Source>(program.statements[s]);
        resolution.domain_by_name.emplace(source.domain.name, 0);
        resolution.domains.push_back({source.domain.name, s, source.domain.range});
    }
    for (std::uint32_t s = 0; s < program.statements.size(); ++s) {
        const auto* stage = std::get_if<ast::Stage>(&program.statements[s]);
        if (stage == nullptr || stage->kind != ast::StageKind::Expand || !stage->domain) continue;
        const ast::Ident& name = *stage->domain;
        const auto [it, inserted] = resolution.domain_by_name.try_emplace(
            name.name, static_cast<std::uint32_t>(resolution.domains.size()));
        if (inserted) {
            resolution.domain_clause[s] = it->second;
            resolution.domains.push_back({name.name, s, name.range});
            continue;
        }
        const DomainDecl& first = resolution.domains[it->second];
        const bool is_root = it->second == 0 && resolution.source_statement &&
                             first.statement == *resolution.source_statement;
        if (is_root) {
            Diagnostic& d =
                diags.report(DiagId::RootDomainReopened, name.range,
                             "expand cannot open '" + name.name + "': it is the root Domain");
            d.notes.push_back({first.range, "root Domain '" + name.name + "' declared here"});
            d.notes.push_back(
                {std::nullopt, "an expand opens a new, nested Domain; give it its own name"});
            continue;
        }
        Diagnostic& d = diags.report(DiagId::DomainOpenedTwice, name.range,
                                     "Domain '" + name.name + "' is opened a second time");
        d.notes.push_back({first.range, "'" + name.name + "' first opened here"});
        d.notes.push_back({std::nullopt,
                           "each expand opens its own Domain; give this one a new name, or "
                           "derive more streams in '" +
                               name.name + "' from the first expand"});
    }
}

}  // namespace rop::sema
