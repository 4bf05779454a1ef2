// The structure of a syntax tree without its source positions: what `ropc fmt` must keep when
// it moves text around. Two files with equal structure parse to the same program.
#pragma once

#include <string>

#include "frontend/ast.h"

namespace rop::format {

// The tree as `ropc emit ast` prints it, less every range and the file name.
std::string structure(const ast::Program& program, const SourceManager& sources);

}  // namespace rop::format
