// A UDF's inputs, one item at a time (const T&, T, std::optional<T>, const T*) or a batch at a
// time (std::span<const T>), the special rop parameters out of place, and its outputs.
#include <string>

#include "bind/classifier.h"
#include "bind/types.h"

namespace rop::bind::classify_detail {

// The special rop parameters say what they are for when found where an input or a named
// argument is expected. On the primitive that takes them, the mistake is their place, so
// the message spells out the order (docs/udfs.md, "Signature conventions").
bool Classifier::reject_special(const UdfParam& p, std::size_t index) {
    const std::string where = callable_name(decl_) + " takes " +
                              (p.type.form == TypeForm::Ordinals  ? "rop::Ordinals"
                               : p.type.form == TypeForm::Skipped ? "rop::Skipped"
                                                                  : quoted(p.type.spelling)) +
                              " as its " + ordinal(index) + " parameter; ";
    switch (p.type.form) {
        case TypeForm::Emitter:
            if (primitive_ == Primitive::Expand) {
                return fail(where +
                                "a streaming expand UDF takes it right after its inputs "
                                "and before its named arguments: " +
                                std::string(kExpandOrder),
                            p.location);
            }
            return fail(where +
                            "only an expand UDF "
                            "streams children, right after its inputs",
                        p.location);
        case TypeForm::Ordinals:
            if (primitive_ == Primitive::Reduce) {
                return fail(where +
                                "a reduce UDF takes it right after its span of children, "
                                "before its parent: " +
                                std::string(kReduceOrder),
                            p.location);
            }
            return fail(where +
                            "only a reduce UDF takes ordinals, "
                            "right after its span of children",
                        p.location);
        case TypeForm::Skipped:
            if (primitive_ == Primitive::Reduce) {
                return fail(where +
                                "a reduce UDF takes it after its children and "
                                "ordinals, before its parent: " +
                                std::string(kReduceOrder),
                            p.location);
            }
            return fail(where +
                            "only a reduce UDF takes skipped children, "
                            "after its children (and ordinals)",
                        p.location);
        case TypeForm::Parent:
            if (primitive_ == Primitive::Reduce) {
                return fail(where +
                                "a reduce UDF takes its parent after its children and "
                                "ordinals, before its named arguments: " +
                                std::string(kReduceOrder),
                            p.location);
            }
            return fail(where +
                            "only a reduce UDF "
                            "takes its parent, after its children (and ordinals)",
                        p.location);
        default: return true;
    }
}

// An input taken one item at a time: const T&, T, std::optional<T>, const T*.
bool Classifier::element_input(std::size_t index) {
    const UdfParam& p = param(index);
    if (!reject_special(p, index)) return false;
    const CxxType& type = p.type;
    if (type.form == TypeForm::Span) {
        return fail(callable_name(decl_) + " mixes a batch input (" + quoted(type.spelling) +
                        ", its " + ordinal(index) +
                        " parameter) with element inputs; take "
                        "every input as std::span<const T> or none",
                    p.location);
    }
    if (type.ref == RefKind::RValue || (type.ref == RefKind::LValue && !type.is_const)) {
        return fail("input " + param_name(p, index) + " of " + callable_name(decl_) + " is " +
                        quoted(type.spelling) +
                        "; take inputs as 'const T&' or by value (items are immutable)",
                    p.location);
    }
    BoundInput input;
    input.param_index = index;
    if (type.form == TypeForm::Optional && !type.args.empty()) {
        input.item = type.args[0];
        input.missing = Missing::Nullopt;
    } else if (type.form == TypeForm::Pointer && !type.args.empty()) {
        if (!type.args[0].is_const) {
            return fail("optional input " + param_name(p, index) + " of " + callable_name(decl_) +
                            " is " + quoted(type.spelling) +
                            "; an optional input is 'const T*' or 'std::optional<T>'",
                        p.location);
        }
        input.item = type.args[0];
        input.missing = Missing::Null;
    } else {
        input.item = type;
    }
    binding_.inputs.push_back(std::move(input));
    return true;
}

// An input taken a batch at a time: std::span<const T> (T may be std::optional<U>).
bool Classifier::span_input(std::size_t index, std::string_view why) {
    const UdfParam& p = param(index);
    if (!reject_special(p, index)) return false;
    const CxxType& type = p.type;
    if (type.form != TypeForm::Span || type.args.empty() || !type.args[0].is_const) {
        return fail(std::string(why) + "; " + param_name(p, index) + " of " + callable_name(decl_) +
                        " is " + quoted(type.spelling),
                    p.location);
    }
    BoundInput input;
    input.param_index = index;
    const CxxType& element = type.args[0];
    if (element.form == TypeForm::Optional && !element.args.empty()) {
        input.item = element.args[0];
        input.missing = Missing::Nullopt;
    } else {
        input.item = element;
    }
    binding_.inputs.push_back(std::move(input));
    return true;
}

bool Classifier::bind_inputs(bool batch) {
    for (std::size_t i = 0; i < input_count_; ++i) {
        bool ok = batch ? span_input(i, "a batch UDF takes every input as 'std::span<const T>'")
                        : element_input(i);
        if (!ok) return false;
    }
    next_param_ = input_count_;
    return true;
}

// A map's or reduce's result: one output, or one per element of a std::tuple.
bool Classifier::set_outputs(const CxxType& result, const std::string& what_returns) {
    if (result.form == TypeForm::Void) {
        return fail(
            kind() + "must return its output, " + callable_name(decl_) + " returns " + what_returns,
            decl_.result_location);
    }
    if (result.form == TypeForm::ItemResult && !result.args.empty() && !binding_.item_result) {
        binding_.item_result = true;
        return set_outputs(result.args[0], what_returns);
    }
    if (result.form == TypeForm::Tuple) {
        binding_.outputs = result.args;
        binding_.multi_output = true;
    } else {
        binding_.outputs = {result};
    }
    return true;
}

}  // namespace rop::bind::classify_detail
