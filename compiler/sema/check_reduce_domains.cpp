#include "sema/check_reduce_domains.h"

#include <string>

namespace rop::sema {

namespace {

void check_reduce(const ast::Program& program, const ast::Stage& stage, std::uint32_t s,
                  const Resolution& resolution, const DomainInference& inference,
                  DiagnosticEngine& diags) {
    const std::uint32_t target = resolution.domain_clause[s];
    const std::uint32_t stream =
        resolution.inputs[s].empty() ? kUnresolved : resolution.inputs[s][0];
    const std::uint32_t from = stream == kUnresolved ? kUnresolved : inference.streams[stream];
    if (target == kUnresolved || from == kUnresolved) return;
    const std::uint32_t parent = inference.domains[from].parent;
    if (parent == target) return;

    const ast::InputRef& input = stage.inputs[0];
    const std::string x = input.name.name;
    const std::string from_name(resolution.domains[from].name);
    const std::string to_name(resolution.domains[target].name);
    if (parent == kUnresolved) {
        Diagnostic& d = diags.report(DiagId::ReduceOfRootStream, input.range,
                                     "cannot reduce '" + x + "': it is in the root Domain '" +
                                         from_name + "', which has no parent to fold into");
        d.notes.push_back({std::nullopt,
                           "reduce pairs with the expand that opened a Domain; "
                           "a root-Domain stream needs no regrouping"});
        return;
    }
    const DomainDecl& opened = resolution.domains[from];
    const std::string expand = statement_label(program.statements[opened.statement]);
    const std::string parent_name(resolution.domains[parent].name);
    std::string why;
    if (target == from) {
        why = "'" + x + "' is already in '" + to_name + "'";
    } else if (inference.is_strict_ancestor(target, from)) {
        why = "that skips a level; reduce to '" + parent_name + "' first, then reduce again";
    } else if (inference.is_strict_ancestor(from, target)) {
        why =
            "'" + to_name + "' is nested under '" + from_name + "'; reduce only moves up one level";
    } else {
        why = "'" + to_name + "' is on another branch of the Domain tree";
    }
    Diagnostic& d = diags.report(DiagId::ReduceNotToParent, stage.domain->range,
                                 "cannot reduce '" + x + "' to '" + to_name + "': '" + x +
                                     "' is in '" + from_name + "', opened by expand " + expand +
                                     " under '" + parent_name + "'; " + why);
    d.notes.push_back({opened.range, "'" + from_name + "' is opened here, by expand " + expand});
    d.fixit = FixIt{stage.domain->range, parent_name};
}

}  // namespace

void check_reduce_domains(const ast::Program& program, const Resolution& resolution,
                          const DomainInference& inference, DiagnosticEngine& diags) {
    for (std::uint32_t s = 0; s < program.statements.size(); ++s) {
        const auto* stage = std::get_if<ast::Stage>(&program.statements[s]);
        if (stage == nullptr || stage->kind != ast::StageKind::Reduce || !stage->domain) continue;
        check_reduce(program, *stage, s, resolution, inference, diags);
    }
}

}  // namespace rop::sema
