// Structure phase: a Call or sink names each input stream once (E0214); zipping a stream with
// itself adds nothing.
#pragma once

#include "frontend/ast.h"
#include "support/diagnostics.h"

namespace rop::sema {

void check_duplicate_inputs(const ast::Program& program, DiagnosticEngine& diags);

}  // namespace rop::sema
