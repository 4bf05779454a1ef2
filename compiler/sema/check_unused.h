// Lint phase: a stream no statement or sink reads is computed for nothing (W0001). Names that
// start with '_' are deliberately unused and stay quiet. A pool no Call runs on would set up its
// class in every actor for nothing (W0002).
#pragma once

#include "frontend/ast.h"
#include "sema/resolution.h"
#include "support/diagnostics.h"

namespace rop::sema {

void check_unused(const ast::Program& program, const Resolution& resolution,
                  DiagnosticEngine& diags);

}  // namespace rop::sema
