// Headers phase: the C++ errors Clang found in the headers (E0508). Each is shown at the `use`
// of the header it is in (or that #includes the file it is in), with a note at the C++ line.
// Clang's error limit is not an error of its own: it becomes a note after the last error and
// sets ctx.headers_stopped, so names the rest of the headers would have declared are not
// reported as unknown.
#pragma once

#include <vector>

#include "bind/bind_context.h"

namespace rop::bind {

void check_header_errors(BindContext& ctx, const std::vector<BindError>& errors);

}  // namespace rop::bind
