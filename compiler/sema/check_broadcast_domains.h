// Domain phase: `broadcast x to D` hands a value down the tree, so x's Domain must be a strict
// ancestor of D (E0203): not D itself, not below it, not on another branch.
#pragma once

#include "frontend/ast.h"
#include "sema/domain_inference.h"
#include "sema/resolution.h"
#include "support/diagnostics.h"

namespace rop::sema {

void check_broadcast_domains(const ast::Program& program, const Resolution& resolution,
                             const DomainInference& inference, DiagnosticEngine& diags);

}  // namespace rop::sema
