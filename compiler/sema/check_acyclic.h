// Graph phase: a pipeline is acyclic. A feedback loop is outside the model (E0400); the loop is
// printed as notes, one per edge.
#pragma once

#include "frontend/ast.h"
#include "sema/statement_graph.h"
#include "support/diagnostics.h"

namespace rop::sema {

void check_acyclic(const ast::Program& program, const StatementGraph& graph,
                   DiagnosticEngine& diags);

}  // namespace rop::sema
