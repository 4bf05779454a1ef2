// Type flow: the items arriving on each input of a Call have the type its UDF takes there
// (E0502 at the input), with notes at the producing Call and at the C++ parameter. An input
// whose producer did not bind has no known type and is not checked.
#pragma once

#include "bind/bind_context.h"

namespace rop::bind {

void check_input_types(BindContext& ctx, const sema::Call& call, const UdfDecl& decl,
                       const Binding& binding);

}  // namespace rop::bind
