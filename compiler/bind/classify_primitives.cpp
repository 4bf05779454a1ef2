// The shape of each stream primitive's UDF: map, filter, expand (vector or emitter), reduce
// (span of children, then ordinals, skipped and parent in that order).
#include <string>

#include "bind/classifier.h"
#include "bind/types.h"

namespace rop::bind::classify_detail {

bool Classifier::bind_map() {
    bool batch = is_batch();
    if (!bind_inputs(batch)) return false;
    const CxxType& result = decl_.result;
    if (!batch) {
        binding_.shape = Shape::ElementMap;
        return set_outputs(result, "'void'");
    }
    binding_.shape = Shape::BatchMap;
    if (result.form != TypeForm::Vector || result.args.empty()) {
        return fail("batch map UDF must return std::vector<Out> (one per item), " +
                        callable_name(decl_) + " returns " + quoted(display_name(result)),
                    decl_.result_location);
    }
    return set_outputs(result.args[0], quoted("std::vector<void>"));
}

// A filter's verdict: bool, or rop::ItemResult<bool> (keep, drop, or fail that item).
bool Classifier::verdict(const CxxType& type) {
    if (type.form == TypeForm::Bool) return true;
    if (type.form != TypeForm::ItemResult || type.args.empty() ||
        type.args[0].form != TypeForm::Bool)
        return false;
    binding_.item_result = true;
    return true;
}

bool Classifier::bind_filter() {
    bool batch = is_batch();
    if (!bind_inputs(batch)) return false;
    const CxxType& result = decl_.result;
    if (!batch) {
        binding_.shape = Shape::ElementFilter;
        const CxxType& first = param(0).type;
        if (result.form == TypeForm::Vector && first.form == TypeForm::Vector &&
            !first.args.empty()) {
            return fail("batch UDFs take std::span<const T>, not a vector: " +
                            callable_name(decl_) + " takes " + quoted(first.spelling) + "; take " +
                            quoted("std::span<const " + display_name(first.args[0]) + ">"),
                        param(0).location);
        }
        if (!verdict(result)) {
            return fail("filter UDF must return bool, " + callable_name(decl_) + " returns " +
                            quoted(display_name(result)),
                        decl_.result_location);
        }
    } else {
        binding_.shape = Shape::BatchFilter;
        if (result.form != TypeForm::Vector || result.args.empty() || !verdict(result.args[0])) {
            return fail("batch filter UDF must return std::vector<bool>, " + callable_name(decl_) +
                            " returns " + quoted(display_name(result)),
                        decl_.result_location);
        }
    }
    binding_.outputs = {binding_.inputs.front().item};
    return true;
}

bool Classifier::bind_expand() {
    if (is_batch()) {
        return fail("expand UDF takes its input one item at a time, not as a batch; " +
                        callable_name(decl_) + " takes " + quoted(param(0).type.spelling),
                    param(0).location);
    }
    if (!bind_inputs(false)) return false;
    const CxxType& result = decl_.result;
    if (next_param_ < decl_.params.size() && param(next_param_).type.form == TypeForm::Emitter) {
        const UdfParam& emitter = param(next_param_);
        if (emitter.type.ref != RefKind::LValue || emitter.type.is_const ||
            emitter.type.args.empty()) {
            return fail("streaming expand UDF takes 'rop::Emitter<Child>&', " +
                            callable_name(decl_) + " takes " + quoted(emitter.type.spelling),
                        emitter.location);
        }
        if (result.form != TypeForm::Void) {
            return fail("streaming expand UDF (it takes " + quoted(emitter.type.spelling) +
                            ") must return void, " + callable_name(decl_) + " returns " +
                            quoted(display_name(result)),
                        decl_.result_location);
        }
        binding_.shape = Shape::StreamingExpand;
        binding_.emitter_param = next_param_++;
        binding_.outputs = {emitter.type.args[0]};
        return true;
    }
    if (result.form != TypeForm::Vector || result.args.empty()) {
        return fail(
            "expand UDF must return std::vector<Child> or take "
            "'rop::Emitter<Child>&' after its inputs, " +
                callable_name(decl_) + " returns " + quoted(display_name(result)),
            decl_.result_location);
    }
    binding_.shape = Shape::VectorExpand;
    binding_.outputs = {result.args[0]};
    return true;
}

bool Classifier::bind_reduce() {
    binding_.shape = Shape::SpanReduce;
    for (std::size_t i = 0; i < input_count_; ++i) {
        if (!span_input(i, "reduce UDF must take its children as 'std::span<const T>'")) {
            return false;
        }
        if (binding_.inputs.back().missing != Missing::NotAccepted) {
            return fail(
                "reduce UDF children cannot be optional (dropped children are left "
                "out); " +
                    callable_name(decl_) + " takes " + quoted(param(i).type.spelling),
                param(i).location);
        }
    }
    next_param_ = input_count_;
    if (next_param_ < decl_.params.size() && param(next_param_).type.form == TypeForm::Ordinals) {
        binding_.ordinals_param = next_param_++;
    }
    if (next_param_ < decl_.params.size() && param(next_param_).type.form == TypeForm::Skipped) {
        const UdfParam& skipped = param(next_param_);
        if (skipped.type.ref == RefKind::RValue ||
            (skipped.type.ref == RefKind::LValue && !skipped.type.is_const)) {
            return fail("reduce UDF takes its skipped children as 'rop::Skipped', " +
                            callable_name(decl_) + " takes " + quoted(skipped.type.spelling),
                        skipped.location);
        }
        binding_.skipped_param = next_param_++;
    }
    if (next_param_ < decl_.params.size() && param(next_param_).type.form == TypeForm::Parent) {
        const UdfParam& parent = param(next_param_);
        if ((parent.type.ref == RefKind::LValue && !parent.type.is_const) ||
            parent.type.ref == RefKind::RValue || parent.type.args.empty()) {
            return fail("reduce UDF takes its parent as 'const rop::Parent<P>&', " +
                            callable_name(decl_) + " takes " + quoted(parent.type.spelling),
                        parent.location);
        }
        binding_.parent_param = next_param_++;
        binding_.parent = parent.type.args[0];
        if (next_param_ < decl_.params.size() &&
            param(next_param_).type.form == TypeForm::Ordinals) {
            return fail(callable_name(decl_) +
                            " takes rop::Ordinals after its rop::Parent; a reduce UDF takes "
                            "its ordinals first, right after its span of children: " +
                            std::string(kReduceOrder),
                        param(next_param_).location);
        }
        if (next_param_ < decl_.params.size() &&
            param(next_param_).type.form == TypeForm::Skipped) {
            return fail(callable_name(decl_) +
                            " takes rop::Skipped after its rop::Parent; a reduce UDF takes "
                            "its skipped children before its parent: " +
                            std::string(kReduceOrder),
                        param(next_param_).location);
        }
    }
    return set_outputs(decl_.result, "'void'");
}

}  // namespace rop::bind::classify_detail
