// Call phase, for a Call that runs on a pool (`with vlm.layout(stage: "a")`): the pool's class
// has exactly one public, non-static method of that name (E0514 for none, with a "did you mean"
// fix-it; E0501 for several overloads). The method is then bound as a function UDF of its own
// ("ns::Model::layout"): its shape against the Call's kind, the item inputs first and the
// trailing parameters as the Call's named arguments, by the checks every Call goes through.
#pragma once

#include "bind/bind_context.h"

namespace rop::bind {

// The method as a declaration of its own (kept in ctx.out.pool_methods, one per class and
// method), or null: after reporting why, or silently when the pool itself did not bind.
const UdfDecl* check_pool_method(BindContext& ctx, const sema::Call& call);

}  // namespace rop::bind
