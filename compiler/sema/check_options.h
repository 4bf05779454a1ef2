// Structure phase: Call options are known (E0300), given once (E0301), allowed on their
// construct (E0302), of the right kind (E0303), in range (E0304) and, for words, one of the
// listed values (E0305). (`isolation process` is checked by binding: E0306 when an item type
// has no codec; `gpus` is placed by the runtime, docs/cluster.md.)
// The table of options lives in call_options.h.
#pragma once

#include "frontend/ast.h"
#include "support/diagnostics.h"

namespace rop::sema {

void check_options(const ast::Program& program, DiagnosticEngine& diags);

}  // namespace rop::sema
