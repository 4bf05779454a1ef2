// Call phase: the operator a Call names is declared by a `use` header or the stdlib (E0500),
// with a "did you mean" fix-it when a declared name is close. When a header was missing or Clang
// stopped early, unknown non-stdlib names are not reported: each would repeat that one problem.
#pragma once

#include <vector>

#include "bind/bind_context.h"

namespace rop::bind {

// False (and an E0500 when it is worth one) when `decls`, the declarations named `op`, is empty.
bool check_udf_known(BindContext& ctx, const sema::OpRef& op,
                     const std::vector<const UdfDecl*>& decls);

}  // namespace rop::bind
