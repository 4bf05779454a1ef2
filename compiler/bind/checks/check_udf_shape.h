// Call phase: a declaration named by the Call has the shape of a UDF for its primitive (E0501;
// E0509 for a source, E0510 for a sink): a filter returns bool, an expand a sequence or takes an
// emitter, a reduce an ordered span, a source or sink is a class with next() or write(). The
// message says why it does not fit, with a note at the C++ declaration and, for a single
// candidate, the primitives it would fit. Among overloads the first whose shape fits and whose
// inputs take the item types that arrive is chosen, else the first whose shape fits.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "bind/bind_context.h"

namespace rop::bind {

// How `call` binds to one of `decls` (non-empty; set in `chosen`), or nothing after reporting
// why none fits `primitive`.
std::optional<Binding> check_udf_shape(BindContext& ctx, const sema::Call& call,
                                       Primitive primitive,
                                       const std::vector<const UdfDecl*>& decls,
                                       const UdfDecl*& chosen);

}  // namespace rop::bind
