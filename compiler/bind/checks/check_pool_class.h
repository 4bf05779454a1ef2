// Pool phase: the operator of `pool vlm = ns.Model(...)` is a UDF class (E0500 for an unknown
// name, E0513 for a function, a class with several public constructors or an unnamed
// constructor parameter), and the pool's `name: value` arguments fit its constructor as a class
// UDF's do (E0503-E0506, check_call_arguments). Runs once per pool, before the Calls.
#pragma once

#include <optional>

#include "bind/bind_context.h"

namespace rop::bind {

// The class `pool` names (set in `chosen`) and its constructor's parameters as the named ones,
// or nothing after reporting why it cannot be the pool's class.
std::optional<Binding> check_pool_class(BindContext& ctx, const sema::Pool& pool,
                                        const UdfDecl*& chosen);

}  // namespace rop::bind
