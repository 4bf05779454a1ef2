// --mpi (`ropc build --mpi`, `ropc check --mpi`): any Call's actors may run on another rank, so
// every item type that crosses into or out of any Call (its inputs, its outputs, a reduce's
// parent) has a codec, as E0306 asks of an `isolation process` Call. E0512 at the Call's operator,
// once per type (at the first Call that carries it), naming the type and the field, with a note
// at the field. A type an `isolation process` Call carries is E0306's and is not reported again.
#pragma once

#include "bind/bind_context.h"

namespace rop::bind {

void check_mpi_codecs(BindContext& ctx, const sema::Call& call, const BoundCall& bound);

}  // namespace rop::bind
