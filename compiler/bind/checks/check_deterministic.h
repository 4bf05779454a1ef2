// Lint: a UDF whose body (or a function it calls) uses a source of nondeterminism (rand, the
// clock, unordered iteration; found while reading the headers, bind/nondeterminism_lint.cpp)
// gets one W0500 warning per finding, at the first Call that uses it. Off with
// ProgramBindOptions::lint = false.
#pragma once

#include "bind/bind_context.h"

namespace rop::bind {

void check_deterministic(BindContext& ctx, const sema::Call& call, const UdfDecl& decl);

}  // namespace rop::bind
