// Classifier: the worker behind classify() (bind/classify.h), private to it. One object checks one
// (declaration, primitive, input count); its rules are spread by topic over classify.cpp (the
// dispatch, class UDFs, arity, named arguments), classify_source_sink.cpp, classify_inputs.cpp
// and classify_primitives.cpp (map, filter, expand, reduce).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "bind/classify.h"

namespace rop::bind::classify_detail {

std::string quoted(std::string_view text);
using bind::ordinal;  // classify.h
// A class UDF's parameters are its operator()'s; say so in messages.
std::string callable_name(const UdfDecl& decl);
std::string param_name(const UdfParam& param, std::size_t index);

// The signature order of a reduce and a streaming expand UDF, spelt out in messages.
inline constexpr std::string_view kReduceOrder =
    "f(std::span<const T> children, rop::Ordinals ordinals, rop::Skipped skipped, "
    "const rop::Parent<P>& parent, named arguments...), ordinals, skipped and parent each "
    "optional";
inline constexpr std::string_view kExpandOrder =
    "void f(const In& input, rop::Emitter<Child>& out, named arguments...)";

// Classifies one (decl, primitive, input count). Every failure is a single `fail` call, so the
// first problem found is the one reported.
class Classifier {
  public:
    Classifier(const UdfDecl& decl, Primitive primitive, std::size_t input_count)
        : decl_(decl), primitive_(primitive), input_count_(input_count) {}

    Classification run();

  private:
    bool fail(std::string reason, const SourceLoc& at);
    std::string kind() const { return std::string(to_string(primitive_)) + " UDF "; }
    const UdfParam& param(std::size_t index) const { return decl_.params[index]; }
    bool is_batch() const { return param(0).type.form == TypeForm::Span; }

    // classify.cpp
    bool check_class();
    bool check_call_operator();
    bool check_arity();
    bool bind_named();

    // classify_source_sink.cpp
    bool check_source_sink_class(std::string_view kind, std::string_view member);
    const UdfMethod* one_method(const std::vector<UdfMethod>& methods, std::string_view kind,
                                std::string_view member);
    bool bind_source();
    bool bind_sink();

    // classify_inputs.cpp
    bool reject_special(const UdfParam& p, std::size_t index);
    bool element_input(std::size_t index);
    bool span_input(std::size_t index, std::string_view why);
    bool bind_inputs(bool batch);
    bool set_outputs(const CxxType& result, const std::string& what_returns);
    bool verdict(const CxxType& type);

    // classify_primitives.cpp
    bool bind_map();
    bool bind_filter();
    bool bind_expand();
    bool bind_reduce();

    const UdfDecl& decl_;
    Primitive primitive_;
    std::size_t input_count_;
    std::size_t next_param_ = 0;
    Binding binding_;
    Classification result_;
};

}  // namespace rop::bind::classify_detail
