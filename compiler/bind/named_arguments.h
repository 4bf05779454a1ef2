// check_named_arguments: do a Call's `name: value` arguments fit the UDF's named parameters
// (a function's trailing parameters, or a class UDF's constructor)? Matched by name.
#pragma once

#include <string>
#include <vector>

#include "bind/classify.h"

namespace rop::bind {

// One `name: value` argument as the `.rop` file wrote it; `kind` is its value's kind (Enum for
// a bare identifier, which is then in `identifier`).
struct NamedArgument {
    std::string name;
    ArgKind kind = ArgKind::Other;
    std::string identifier;
};

struct ArgumentProblem {
    enum class Kind { Unknown, Missing, WrongKind };
    Kind kind = Kind::Unknown;
    std::size_t argument = 0;  // index into the arguments (Unknown, WrongKind)
    std::string message;       // "'render' has no parameter 'dpii'; did you mean 'dpi'?"
    SourceLoc note;            // the C++ parameter (or the UDF, for Unknown)
};

// Unknown names (with a "did you mean"), required parameters left out (no default), values
// of the wrong kind (an integer fits a floating-point parameter; an Other parameter takes any
// value and leaves it to the C++ compiler), and identifiers that name no enumerator.
std::vector<ArgumentProblem> check_named_arguments(const UdfDecl& decl, const Binding& binding,
                                                   const std::vector<NamedArgument>& arguments);

std::string_view to_string(ArgKind kind);  // "an integer", "a string", "an identifier", ...

}  // namespace rop::bind
