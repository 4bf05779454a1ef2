// Structure phase: Call options are known (E0300), given once (E0301), allowed on their
// construct (E0302), of the right kind (E0303), in range (E0304) and, for words, one of the
// listed values (E0305). (`isolation process` is checked by binding: E0306 when an item type
// has no codec; `gpus` is placed by the runtime, docs/cluster.md.) A pool takes the placement
// options alone (kPoolOptions), and a Call that runs on a pool takes every option but those
// (E0308: they are its pool's).
// The table of options lives in call_options.h.
#pragma once

#include "frontend/ast.h"
#include "sema/resolution.h"
#include "support/diagnostics.h"

namespace rop::sema {

void check_options(const ast::Program& program, const Resolution& resolution,
                   DiagnosticEngine& diags);

}  // namespace rop::sema
