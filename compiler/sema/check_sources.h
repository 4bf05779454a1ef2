// Names phase: a pipeline has exactly one source, which declares the one root Domain
// (E0105 when there is none, E0106 for every further one).
#pragma once

#include "frontend/ast.h"
#include "sema/resolution.h"
#include "support/diagnostics.h"

namespace rop::sema {

void check_sources(const ast::Program& program, Resolution& resolution, DiagnosticEngine& diags);

}  // namespace rop::sema
