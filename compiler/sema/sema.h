// Semantic analysis: every check a .rop program must pass before it can be lowered, run as one
// sequence of phases, and the CheckedProgram the later stages (binding, codegen) consume.
#pragma once

#include <optional>

#include "frontend/ast.h"
#include "sema/program.h"
#include "support/diagnostics.h"

namespace rop::sema {

// Runs every check, reporting to `diags`. Returns the checked program, or nothing when an error
// was reported (warnings alone do not stop it, unless -Werror made them errors).
std::optional<CheckedProgram> check(const ast::Program& program, DiagnosticEngine& diags);

}  // namespace rop::sema
