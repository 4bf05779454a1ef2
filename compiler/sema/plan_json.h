// `ropc --emit=plan`: the checked program as JSON — the Domain tree, Ports, Calls with their
// options, the edges between them and the expand/reduce pairs. Deterministic: same input, same
// bytes.
#pragma once

#include <string>

#include "sema/program.h"
#include "support/source_manager.h"

namespace rop::sema {

std::string plan_json(const CheckedProgram& program, const SourceManager& sources);

}  // namespace rop::sema
