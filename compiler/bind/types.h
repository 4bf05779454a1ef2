// Type flow between stages: is one stage's output type the next stage's input type? Compared by
// canonical name, so typedefs, top-level const and references do not matter.
#pragma once

#include <string>

#include "bind/udf_decl.h"

namespace rop::bind {

// True when `a` and `b` name the same type once typedefs, top-level cv and references are gone
// (`const std::string&` and `std::string` and `using Text = std::string` all match).
bool same_type(const CxxType& a, const CxxType& b);

// The readable name to put in a diagnostic ("std::string", "mineru::Page"). When two different
// types read the same (a `Doc` in two namespaces), the canonical names tell them apart.
std::string display_name(const CxxType& type);

// "'std::string'" for one type; "'a::Doc' (aka 'x::Doc')"-style when the readable names of two
// mismatching types are equal, so a type-flow error never says "expected 'Doc', got 'Doc'".
std::string describe_mismatch(const CxxType& expected, const CxxType& got);

}  // namespace rop::bind
