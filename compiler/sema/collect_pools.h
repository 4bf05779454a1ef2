// Names phase: records every pool (`pool vlm = my.Model(...) actors 4;`; a name declared twice
// is E0107) and which pool each Call's operator names (`with vlm.layout(...)`, where `vlm` is a
// pool). Such an operator names exactly one method of the pool's class (E0110: `vlm` alone,
// `vlm.a.b`); a source, a sink or another pool cannot run on a pool (E0109). A pool's name hides
// a C++ namespace of the same name in operators. Whether a pool is declared before the Calls
// that use it is the graph phase's (check_definition_order, E0108).
#pragma once

#include "frontend/ast.h"
#include "sema/resolution.h"
#include "support/diagnostics.h"

namespace rop::sema {

void collect_pools(const ast::Program& program, Resolution& resolution, DiagnosticEngine& diags);

}  // namespace rop::sema
