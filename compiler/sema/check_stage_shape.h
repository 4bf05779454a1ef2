// Structure phase: filter, expand, broadcast and reduce take one input (E0210) and define one
// stream (E0211); only map zips several inputs, and only map and a reduce with a UDF may have
// several outputs (one per element of the UDF's std::tuple). (Whether `with` is
// present is grammar: the parser requires it on map/filter/expand and rejects it on broadcast.)
#pragma once

#include "frontend/ast.h"
#include "support/diagnostics.h"

namespace rop::sema {

void check_stage_shape(const ast::Program& program, DiagnosticEngine& diags);

}  // namespace rop::sema
