// `ropc graph`: the checked program as Graphviz DOT — one cluster per Domain, child Domains
// nested inside their parent's cluster, a box per Call, an ellipse per stream.
#pragma once

#include <string>

#include "sema/program.h"

namespace rop::sema {

std::string graph_dot(const CheckedProgram& program);

}  // namespace rop::sema
