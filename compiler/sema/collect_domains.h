// Names phase: records the root Domain (from the source) and every Domain an expand opens.
// A Domain is opened once (E0201) and never under the root Domain's name (E0202).
#pragma once

#include "frontend/ast.h"
#include "sema/resolution.h"
#include "support/diagnostics.h"

namespace rop::sema {

// Needs check_sources to have chosen the source.
void collect_domains(const ast::Program& program, Resolution& resolution, DiagnosticEngine& diags);

}  // namespace rop::sema
