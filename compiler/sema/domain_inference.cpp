#include "sema/domain_inference.h"

namespace rop::sema {

bool DomainInference::is_strict_ancestor(std::uint32_t ancestor, std::uint32_t domain) const {
    if (ancestor == kUnresolved || domain == kUnresolved) return false;
    if (domains[ancestor].depth >= domains[domain].depth) return false;
    while (domain != kUnresolved && domains[domain].depth > domains[ancestor].depth) {
        domain = domains[domain].parent;
    }
    return domain == ancestor;
}

std::uint32_t DomainInference::common_ancestor(std::uint32_t a, std::uint32_t b) const {
    while (a != kUnresolved && b != kUnresolved && a != b) {
        if (domains[a].depth >= domains[b].depth) {
            a = domains[a].parent;
        } else {
            b = domains[b].parent;
        }
    }
    return a == b ? a : kUnresolved;
}

namespace {

std::uint32_t deepest_input_domain(const DomainInference& inference,
                                   const std::vector<std::uint32_t>& inputs) {
    std::uint32_t best = kUnresolved;
    for (std::uint32_t stream : inputs) {
        const std::uint32_t domain =
            stream == kUnresolved ? kUnresolved : inference.streams[stream];
        if (domain == kUnresolved) continue;
        if (best == kUnresolved ||
            inference.domains[domain].depth > inference.domains[best].depth) {
            best = domain;
        }
    }
    return best;
}

}  // namespace

DomainInference infer_domains(const ast::Program& program, const Resolution& resolution) {
    DomainInference inference;
    inference.domains.resize(resolution.domains.size());
    inference.streams.assign(resolution.streams.size(), kUnresolved);
    for (std::uint32_t s = 0; s < program.statements.size(); ++s) {
        const ast::Statement& statement = program.statements[s];
        std::uint32_t domain = kUnresolved;
        if (std::holds_alternative<ast::Source>(statement)) {
            if (resolution.source_statement != s) continue;
            domain = 0;
        } else if (const auto* stage = std::get_if<ast::Stage>(&statement)) {
            const std::uint32_t input_domain =
                deepest_input_domain(inference, resolution.inputs[s]);
            switch (stage->kind) {
                case ast::StageKind::Map:
                case ast::StageKind::Filter: domain = input_domain; break;
                case ast::StageKind::Broadcast:
                case ast::StageKind::Reduce: domain = resolution.domain_clause[s]; break;
                case ast::StageKind::Expand:
                    domain = resolution.domain_clause[s];
                    if (domain != kUnresolved && input_domain != kUnresolved &&
                        domain != input_domain) {
                        inference.domains[domain] = {input_domain,
                                                     inference.domains[input_domain].depth + 1};
                    }
                    break;
                case ast::StageKind::Source:
                case ast::StageKind::Sink: break;  // statements of their own, not stages
            }
        } else {
            continue;
        }
        for (const ast::Ident* output : statement_outputs(statement)) {
            const auto it = resolution.stream_by_name.find(output->name);
            if (it != resolution.stream_by_name.end() &&
                resolution.streams[it->second].statement == s) {
                inference.streams[it->second] = domain;
            }
        }
    }
    return inference;
}

}  // namespace rop::sema
