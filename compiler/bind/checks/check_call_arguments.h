// Call phase: the Call's `name: value` arguments fit the UDF's named parameters (a function's
// trailing parameters, a class UDF's constructor): E0503 an unknown name (with a "did you mean"
// fix-it), E0504 a required parameter left out, E0505 a value of the wrong kind, E0506 an
// identifier that names no enumerator of an enum parameter. Each has a note at the C++ parameter.
#pragma once

#include "bind/bind_context.h"

namespace rop::bind {

void check_call_arguments(BindContext& ctx, const sema::Call& call, const UdfDecl& decl,
                          const Binding& binding);
// The same for any operator: a pool's class and its constructor's arguments.
void check_op_arguments(BindContext& ctx, const sema::OpRef& op, const UdfDecl& decl,
                        const Binding& binding);

}  // namespace rop::bind
