// Graph phase: a stream is used after its definition (E0102) and a Domain after the expand that
// opens it (E0104), and a pool after the Call that runs on it (E0108). A forward reference inside
// a feedback loop is left to check_acyclic.
#pragma once

#include "frontend/ast.h"
#include "sema/resolution.h"
#include "sema/statement_graph.h"
#include "support/diagnostics.h"

namespace rop::sema {

void check_definition_order(const ast::Program& program, const Resolution& resolution,
                            const StatementGraph& graph, DiagnosticEngine& diags);

}  // namespace rop::sema
