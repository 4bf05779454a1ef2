// Type flow: a reduce UDF's rop::Parent<P> names the type of what the matching expand split (its
// input stream), not "the Domain's" type: one Domain can have streams of several item types
// (E0502 at the reduce's operator, with notes at the expand and the C++ parameter).
#pragma once

#include "bind/bind_context.h"

namespace rop::bind {

void check_reduce_parent(BindContext& ctx, const sema::Call& call, const UdfDecl& decl,
                         const Binding& binding);

}  // namespace rop::bind
