// Call phase: a map or filter whose input parameter is `std::vector<T>` where items of type T
// arrive is a batch UDF written with a vector instead of a span (E0501, with the span to take).
// One error that says so, instead of a type mismatch here and another wherever its result (a
// vector per item) flows.
#pragma once

#include "bind/bind_context.h"

namespace rop::bind {

// False after reporting such an input; bind_program then binds the Call as the batch UDF it
// was meant to be and skips check_input_types.
bool check_batch_span(BindContext& ctx, const sema::Call& call, const UdfDecl& decl,
                      const Binding& binding);

}  // namespace rop::bind
