// A UDF header with a C++ error, for E0508_header_error.rop.
#pragma once

#include <string>

namespace broken {
std::strin shout(const std::string& text);
}  // namespace broken
