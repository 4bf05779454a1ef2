// After binding: the headers the generated file #includes (every `use` header, then the stdlib
// modules a bound declaration comes from, in first-use order) and the `// rop-link:` tokens of
// the headers used, into ctx.out.includes and ctx.out.link.
#pragma once

#include "bind/bind_context.h"

namespace rop::bind {

// Marks the header `decl` comes from as used (first use first).
void mark_header_used(BindContext& ctx, const UdfDecl& decl);

void collect_includes_and_link(BindContext& ctx);

}  // namespace rop::bind
