// Call phase: a Call defines as many outputs as its UDF returns values (E0501): a multi-output
// Call `(a, b) = map ...` needs a std::tuple with one element per output, and a UDF returning a
// std::tuple needs its outputs named. Sinks and filters are not checked (a filter passes its
// input through).
#pragma once

#include "bind/bind_context.h"

namespace rop::bind {

bool check_output_count(BindContext& ctx, const sema::Call& call, const UdfDecl& decl,
                        const Binding& binding);

}  // namespace rop::bind
