#include "sema/sema.h"

#include "sema/build_program.h"
#include "sema/check_acyclic.h"
#include "sema/check_broadcast_domains.h"
#include "sema/check_definition_order.h"
#include "sema/check_duplicate_inputs.h"
#include "sema/check_input_domains.h"
#include "sema/check_optional_inputs.h"
#include "sema/check_options.h"
#include "sema/check_reduce_domains.h"
#include "sema/check_sources.h"
#include "sema/check_stage_shape.h"
#include "sema/check_unused.h"
#include "sema/collect_domains.h"
#include "sema/collect_pools.h"
#include "sema/collect_streams.h"
#include "sema/domain_inference.h"
#include "sema/resolve_references.h"
#include "sema/statement_graph.h"

namespace rop::sema {

// The pass list. Each phase needs the one before it to be clean: a graph with undefined names
// or an ill-shaped statement would only produce follow-on noise. One exception: a Domain opened
// twice (E0201) or reopening the root (E0202) is left out of the Domain table and its outputs
// stay without a Domain, which every later check skips, so the graph and Domain checks still
// run and report their independent errors (an E0200 elsewhere) in the same run.
std::optional<CheckedProgram> check(const ast::Program& program, DiagnosticEngine& diags) {
    // 1. Names and statement shape: only the AST and the name tables.
    Resolution names;
    collect_streams(program, names, diags);
    collect_pools(program, names, diags);
    check_sources(program, names, diags);
    const std::size_t before_domains = diags.error_count();
    collect_domains(program, names, diags);
    const std::size_t domain_errors = diags.error_count() - before_domains;
    resolve_references(program, names, diags);
    check_stage_shape(program, diags);
    check_optional_inputs(program, diags);
    check_duplicate_inputs(program, diags);
    check_options(program, names, diags);
    if (diags.error_count() > domain_errors) return std::nullopt;

    // 2. The graph: acyclic, and every name defined before it is used.
    const StatementGraph graph = build_statement_graph(program, names);
    check_acyclic(program, graph, diags);
    check_definition_order(program, names, graph, diags);
    if (diags.error_count() > domain_errors) return std::nullopt;

    // 3. Domains: inferred in data-flow order, then each structural rule.
    const DomainInference domains = infer_domains(program, names);
    check_input_domains(program, names, domains, diags);
    check_broadcast_domains(program, names, domains, diags);
    check_reduce_domains(program, names, domains, diags);
    if (diags.has_errors()) return std::nullopt;

    // 4. Lints: warnings only.
    check_unused(program, names, diags);
    if (diags.has_errors()) return std::nullopt;

    return build_program(program, names, domains);
}

}  // namespace rop::sema
