// Call phase: an optional input `x?` reaches its UDF parameter as "missing" when x was dropped,
// so the parameter must be able to say so: std::optional<T> or const T* (E0501 at the input).
// (Which Calls may have optional inputs at all is sema's check_optional_inputs, E0212/E0213.)
#pragma once

#include "bind/bind_context.h"

namespace rop::bind {

bool check_optional_inputs(BindContext& ctx, const sema::Call& call, const UdfDecl& decl,
                           const Binding& binding);

}  // namespace rop::bind
