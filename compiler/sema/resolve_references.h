// Names phase: binds every input to the stream it names (E0100 when none does) and every
// `to Domain` clause to a known Domain (E0103 when none is declared), suggesting near names.
#pragma once

#include "frontend/ast.h"
#include "sema/resolution.h"
#include "support/diagnostics.h"

namespace rop::sema {

// Needs collect_streams and collect_domains.
void resolve_references(const ast::Program& program, Resolution& resolution,
                        DiagnosticEngine& diags);

}  // namespace rop::sema
