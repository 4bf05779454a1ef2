// classify: does a UDF's C++ signature fit the primitive a `.rop` Call uses it with, and if so,
// how is it called (its shape, input and output types, named arguments)? Pure: no Clang.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bind/udf_decl.h"
#include "rop/vocab/call_kind.h"

namespace rop::bind {

// The Call kind a UDF is bound for: the one enumeration of sema and the runtime
// (rop/vocab/call_kind.h). Source and Sink are the `source` and `sink` statements' operators
// (classes, docs/udfs.md); a broadcast binds no UDF.
using Primitive = vocab::CallKind;

// How generated code calls the UDF (docs/udfs.md has one example per shape).
enum class Shape : std::uint8_t {
    ElementMap,       // Out f(const In&...)                        one call per item
    BatchMap,         // std::vector<Out> f(std::span<const In>...)  one call per batch
    ElementFilter,    // bool f(const In&...)
    BatchFilter,      // std::vector<bool> f(std::span<const In>...)
    VectorExpand,     // std::vector<Child> f(const In&...)
    StreamingExpand,  // void f(const In&..., rop::Emitter<Child>&)
    SpanReduce,       // Out f(std::span<const In> [, rop::Ordinals] [, rop::Skipped]
                      //        [, const rop::Parent<P>&])
    Source,           // class with std::optional<Out> next(); constructor(input, named...)
    Sink,             // class with void write(const rop::RootKey&, std::span<const In>);
                      // constructor(output, named...)
};

std::string_view to_string(Primitive primitive);
std::string_view to_string(Shape shape);
// "1st", "2nd", ... for index 0, 1, ...: a parameter's place in a message.
std::string ordinal(std::size_t index);

// How a missing item of an optional input reaches the UDF.
enum class Missing : std::uint8_t {
    NotAccepted,  // const T& / T / std::span<const T>: the input is required
    Nullopt,      // std::optional<T> (or a span of them): std::nullopt
    Null,         // const T*: nullptr
};

struct BoundInput {
    CxxType item;  // the stream's item type (Doc for `const Doc&`, `std::span<const Doc>`, ...)
    Missing missing = Missing::NotAccepted;
    std::size_t param_index = 0;  // position in UdfDecl::params
};

struct Binding {
    Shape shape = Shape::ElementMap;
    bool is_class = false;
    std::vector<BoundInput> inputs;
    // The item types this Call produces, one per output port: a map's result (each element of
    // a returned std::tuple), a filter's first input, an expand's child, a reduce's result.
    std::vector<CxxType> outputs;
    bool multi_output = false;  // the result is a std::tuple, one element per port
    bool item_result =
        false;  // each result is a rop::ItemResult<...>: a value or that item's failure
    std::optional<std::size_t> emitter_param;   // StreamingExpand
    std::optional<std::size_t> ordinals_param;  // SpanReduce with rop::Ordinals
    std::optional<std::size_t> skipped_param;   // SpanReduce with rop::Skipped
    std::optional<std::size_t> parent_param;    // SpanReduce with rop::Parent<P>
    std::optional<CxxType> parent;              // ... and its P
    // What the Call's `name: value` arguments bind to, by name: a function's parameters after
    // its inputs (and emitter/ordinals/parent), or a class UDF's constructor parameters (for a
    // source or sink, named[0] is its input or output path).
    std::vector<UdfParam> named;
    std::size_t first_named_param = 0;  // function UDFs: index of named[0] in UdfDecl::params
};

struct Classification {
    std::optional<Binding> binding;  // set when the UDF fits
    std::string reason;              // else one sentence saying why, naming the UDF and types
    SourceLoc note;                  // the C++ location a diagnostic note should point at

    bool ok() const { return binding.has_value(); }
};

// Checks `decl` against `primitive` used with `input_count` stream inputs (a `.rop` Call's
// operands: `map (a, b) with f` has 2). Parameters beyond the inputs are named arguments.
// A Source takes no inputs (input_count is ignored); a Sink takes exactly one.
Classification classify(const UdfDecl& decl, Primitive primitive, std::size_t input_count = 1);

// The primitives `decl` fits with one input: what to suggest when it is used with another.
std::vector<Primitive> candidate_primitives(const UdfDecl& decl);

}  // namespace rop::bind
