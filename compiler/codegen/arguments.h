// `.rop` values as C++ expressions of a UDF parameter's type: the escaped literals generated code
// passes to a function UDF's named parameters and to a class UDF's, source's or sink's constructor.
#pragma once

#include <cstddef>
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

// Whether the pipeline binary may change this named parameter at run time (`--set CALL.ARG=V`,
// $ROP_SET_<CALL>_<ARG>): a named std::string, integer, floating-point or bool parameter of a
// class UDF's constructor (docs/runtime.md).
bool settable_at_run_time(const bind::UdfParam& param);
// The C++ type rop::gen::Arguments converts a settable parameter's value to: `std::string`,
// `int`, `double`, `bool`, ...
std::string run_time_type(const bind::UdfParam& param);

// The constructor arguments of a class UDF that takes run-time arguments: a settable parameter
// read from `arguments` (rop::gen::Arguments), the others as named_expressions writes them.
std::vector<std::string> run_time_expressions(const std::vector<bind::BoundArgument>& arguments);
// The rop::gen::argument<T>(...) entries of its settable parameters, each ending in a comma:
// name, the `.rop` value as text (or std::nullopt and the C++ default's text). An entry wider
// than the column limit at column `column` continues on lines indented by four more spaces, a
// long string split into adjacent literals. Empty: nothing to set at run time.
std::vector<std::string> run_time_table(const std::vector<bind::BoundArgument>& arguments,
                                        std::size_t column);

// Named arguments as text, `name=value` separated by spaces in parameter order: a written value
// as the `.rop` writes it (a string's text, a duration in milliseconds with `ms`, a word, a list
// in brackets), a left-out one as its C++ default's text (none without a default). What the
// result store keys the compile-time arguments of a pooled Call and of a pool by
// (rop::runtime::CallSpec::arguments, PoolSpec::arguments), in the form the run-time ones take.
std::string arguments_text(const std::vector<bind::BoundArgument>& arguments);

// `bytes` as adjacent C++ string literals of at most `width` columns each, in order.
std::vector<std::string> literal_pieces(const std::string& bytes, std::size_t width);

// A double as a C++ literal that reads back the same value (`0.5`, `2.0`, `(-1.5)`).
std::string float_literal(double value);

}  // namespace rop::codegen
