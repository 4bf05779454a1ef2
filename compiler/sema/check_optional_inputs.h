// Structure phase: an optional input (`x?`) only means something on a map with several inputs,
// where a DROPPED x reaches the UDF as "missing" instead of dropping the item (E0212); at least
// one input stays required, since required inputs decide which items exist (E0213).
#pragma once

#include "frontend/ast.h"
#include "support/diagnostics.h"

namespace rop::sema {

void check_optional_inputs(const ast::Program& program, DiagnosticEngine& diags);

}  // namespace rop::sema
