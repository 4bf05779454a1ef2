// Process isolation: every item type that crosses into or out of an `isolation process` Call
// (its inputs, its outputs, a reduce's parent) has a codec: a rop::Codec specialization, a
// standard type rop/codec.h encodes, or a struct of public fields with codecs, for which codegen
// writes one (E0306 at the Call's `isolation` option, naming the type and the field).
#pragma once

#include "bind/bind_context.h"

namespace rop::bind {

void check_isolation_codecs(BindContext& ctx, const sema::Call& call, const BoundCall& bound);

}  // namespace rop::bind
