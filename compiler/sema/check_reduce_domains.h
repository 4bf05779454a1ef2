// Domain phase: `reduce x to P` folds the children of one expand back into their parent, so P
// must be the direct parent of x's Domain (E0204, naming that expand), and a root-Domain
// stream has no parent to fold into (E0205).
#pragma once

#include "frontend/ast.h"
#include "sema/domain_inference.h"
#include "sema/resolution.h"
#include "support/diagnostics.h"

namespace rop::sema {

void check_reduce_domains(const ast::Program& program, const Resolution& resolution,
                          const DomainInference& inference, DiagnosticEngine& diags);

}  // namespace rop::sema
