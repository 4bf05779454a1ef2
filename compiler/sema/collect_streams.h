// Names phase: records every stream definition; a name defined twice is an error (E0101).
#pragma once

#include "frontend/ast.h"
#include "sema/resolution.h"
#include "support/diagnostics.h"

namespace rop::sema {

void collect_streams(const ast::Program& program, Resolution& resolution, DiagnosticEngine& diags);

}  // namespace rop::sema
