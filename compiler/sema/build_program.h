// Lowering: once every check passed, the AST plus the name and Domain tables become the
// CheckedProgram — integer ids, options with defaults, expand/reduce pairs.
#pragma once

#include "frontend/ast.h"
#include "sema/domain_inference.h"
#include "sema/program.h"
#include "sema/resolution.h"

namespace rop::sema {

CheckedProgram build_program(const ast::Program& program, const Resolution& resolution,
                             const DomainInference& inference);

}  // namespace rop::sema
