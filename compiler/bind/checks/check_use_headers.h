// Headers phase: every `use "path";` names a header that exists, relative to the `.rop` file or
// an -I directory (E0507). Found headers are appended to ctx.headers; a missing one sets
// ctx.missing_header, so the UDFs it would have declared are not each reported as unknown.
#pragma once

#include "bind/bind_context.h"

namespace rop::bind {

void check_use_headers(BindContext& ctx);

}  // namespace rop::bind
