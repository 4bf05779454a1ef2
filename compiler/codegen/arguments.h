// `.rop` values as C++ expressions of a UDF parameter's type: the escaped literals generated code
// passes to a function UDF's named parameters and to a class UDF's, source's or sink's constructor.
#pragma once

#include <string>
#include <vector>

#include "bind/bind_program.h"

namespace rop::codegen {

// The C++ expression for a `.rop` literal passed to a parameter of type `param` (escaped: a
// string becomes std::string("...", N), a duration a duration_cast, an enum Type::name, a list
// Type{...}).
std::string argument_expression(const bind::UdfParam& param, const ast::Value& value);

// The argument expressions of named parameters `arguments` (in parameter order), with trailing
// left-out ones dropped and inner left-out ones given their C++ default. Throws CodegenError for
// a left-out parameter without a default.
std::vector<std::string> named_expressions(const std::vector<bind::BoundArgument>& arguments);

// A double as a C++ literal that reads back the same value (`0.5`, `2.0`, `(-1.5)`).
std::string float_literal(double value);

}  // namespace rop::codegen
