// Domain phase: the inputs of one Call, or of one sink, live in one Domain (they zip by item
// identity). A parent-Domain input needs a broadcast first (E0200 for a Call, E0206 for a
// sink, with a fix-it that inserts it); inputs from unrelated Domains would be a general join,
// which is outside the model (E0401).
#pragma once

#include "frontend/ast.h"
#include "sema/domain_inference.h"
#include "sema/resolution.h"
#include "support/diagnostics.h"

namespace rop::sema {

void check_input_domains(const ast::Program& program, const Resolution& resolution,
                         const DomainInference& inference, DiagnosticEngine& diags);

}  // namespace rop::sema
