#include "bind/classify.h"

#include <utility>

#include "bind/types.h"

namespace rop::bind {

std::string_view to_string(Primitive primitive) {
    switch (primitive) {
        case Primitive::Map:
            return "map";
        case Primitive::Filter:
            return "filter";
        case Primitive::Expand:
            return "expand";
        case Primitive::Reduce:
            return "reduce";
        case Primitive::Source:
            return "source";
        case Primitive::Sink:
            return "sink";
    }
    return "?";
}

std::string_view to_string(Shape shape) {
    switch (shape) {
        case Shape::ElementMap:
            return "element map";
        case Shape::BatchMap:
            return "batch map";
        case Shape::ElementFilter:
            return "element filter";
        case Shape::BatchFilter:
            return "batch filter";
        case Shape::VectorExpand:
            return "vector expand";
        case Shape::StreamingExpand:
            return "streaming expand";
        case Shape::SpanReduce:
            return "span reduce";
        case Shape::Source:
            return "source";
        case Shape::Sink:
            return "sink";
    }
    return "?";
}

namespace {

std::string quoted(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 2);
    out += '\'';
    out += text;
    out += '\'';
    return out;
}

std::string ordinal(std::size_t index) {  // 0 -> "1st"
    std::size_t n = index + 1;
    const char* suffix = (n % 100 >= 11 && n % 100 <= 13) ? "th"
                         : n % 10 == 1                    ? "st"
                         : n % 10 == 2                    ? "nd"
                         : n % 10 == 3                    ? "rd"
                                                          : "th";
    return std::to_string(n) + suffix;
}

// A class UDF's parameters are its operator()'s; say so in messages.
std::string callable_name(const UdfDecl& decl) {
    return quoted(decl.is_class ? decl.qualified_name + "::operator()" : decl.qualified_name);
}

std::string param_name(const UdfParam& param, std::size_t index) {
    return param.name.empty() ? ordinal(index) + " parameter" : "parameter " + quoted(param.name);
}

// Classifies one (decl, primitive, input count). Every failure is a single `fail` call, so the
// first problem found is the one reported.
class Classifier {
public:
    Classifier(const UdfDecl& decl, Primitive primitive, std::size_t input_count)
        : decl_(decl), primitive_(primitive), input_count_(input_count) {}

    Classification run() {
        if (primitive_ == Primitive::Source || primitive_ == Primitive::Sink) {
            binding_.is_class = decl_.is_class;
            bool ok = primitive_ == Primitive::Source ? bind_source() : bind_sink();
            if (ok && bind_named()) result_.binding = std::move(binding_);
            return std::move(result_);
        }
        if (!check_class() || !check_call_operator() || !check_arity()) {
            return std::move(result_);
        }
        binding_.is_class = decl_.is_class;
        bool ok = false;
        switch (primitive_) {
            case Primitive::Source:
            case Primitive::Sink:
                break;
            case Primitive::Map:
                ok = bind_map();
                break;
            case Primitive::Filter:
                ok = bind_filter();
                break;
            case Primitive::Expand:
                ok = bind_expand();
                break;
            case Primitive::Reduce:
                ok = bind_reduce();
                break;
        }
        if (ok && bind_named()) result_.binding = std::move(binding_);
        return std::move(result_);
    }

private:
    bool fail(std::string reason, const SourceLoc& at) {
        result_.reason = std::move(reason);
        result_.note = at.valid() ? at : decl_.location;
        return false;
    }

    std::string kind() const { return std::string(to_string(primitive_)) + " UDF "; }

    bool check_class() {
        if (!decl_.is_class) return true;
        if (decl_.call_operator_count > 1) {
            return fail("class UDF " + quoted(decl_.qualified_name) + " has " +
                            std::to_string(decl_.call_operator_count) +
                            " public operator() overloads; rop binds exactly one",
                        decl_.location);
        }
        if (decl_.constructor_count > 1) {
            return fail("class UDF " + quoted(decl_.qualified_name) + " has " +
                            std::to_string(decl_.constructor_count) +
                            " public constructors; rop passes the named arguments to exactly one",
                        decl_.location);
        }
        return true;
    }

    // A source or sink class (next()/write(), no operator()) used as a map, filter, ...
    bool check_call_operator() {
        if (!decl_.is_class || decl_.call_operator_count != 0) return true;
        std::string what = !decl_.next_methods.empty()    ? "; it is a source class (next())"
                           : !decl_.write_methods.empty() ? "; it is a sink class (write())"
                                                          : "";
        return fail("class " + quoted(decl_.qualified_name) + " has no public operator(), so " +
                        std::string(to_string(primitive_)) + " cannot call it" + what,
                    decl_.location);
    }

    // A source or sink class: the class itself and its one constructor.
    bool check_source_sink_class(std::string_view kind, std::string_view member) {
        if (!decl_.is_class) {
            return fail(quoted(decl_.qualified_name) + " is a function; a " + std::string(kind) +
                            " is a class with " + std::string(member) +
                            " and a constructor that takes its " +
                            (kind == "source" ? "input" : "output") + " path first",
                        decl_.location);
        }
        if (decl_.constructor_count > 1) {
            return fail(std::string(kind) + " class " + quoted(decl_.qualified_name) + " has " +
                            std::to_string(decl_.constructor_count) +
                            " public constructors; rop passes the named arguments to exactly one",
                        decl_.location);
        }
        const std::string_view path = kind == "source" ? "input" : "output";
        if (decl_.ctor_params.empty()) {
            return fail("the constructor of " + std::string(kind) + " class " +
                            quoted(decl_.qualified_name) + " must take its " + std::string(path) +
                            " (a path) as its first parameter; it takes none",
                        decl_.location);
        }
        const UdfParam& first = decl_.ctor_params.front();
        if (first.arg_kind != ArgKind::String) {
            return fail("the first constructor parameter of " + std::string(kind) + " class " +
                            quoted(decl_.qualified_name) + " is its " + std::string(path) +
                            " and must be a string, it is " + quoted(first.type.spelling),
                        first.location);
        }
        return true;
    }

    // One public member function `name` of a source/sink class.
    const UdfMethod* one_method(const std::vector<UdfMethod>& methods, std::string_view kind,
                                std::string_view member) {
        if (methods.empty()) {
            fail(std::string(kind) + " class " + quoted(decl_.qualified_name) +
                     " has no public " + std::string(member),
                 decl_.location);
            return nullptr;
        }
        if (methods.size() > 1) {
            fail(std::string(kind) + " class " + quoted(decl_.qualified_name) + " has " +
                     std::to_string(methods.size()) + " public '" +
                     std::string(kind == "source" ? "next" : "write") +
                     "' overloads; rop calls exactly one",
                 methods[1].location);
            return nullptr;
        }
        return &methods.front();
    }

    bool bind_source() {
        constexpr std::string_view member = "'std::optional<T> next()'";
        if (!check_source_sink_class("source", member)) return false;
        const UdfMethod* next = one_method(decl_.next_methods, "source", member);
        if (!next) return false;
        const std::string method = quoted(decl_.qualified_name + "::next");
        if (!next->params.empty()) {
            return fail(method + " takes " + std::to_string(next->params.size()) + " parameter" +
                            (next->params.size() == 1 ? "" : "s") +
                            "; a source's 'next()' takes none",
                        next->params.front().location);
        }
        if (next->result.form != TypeForm::Optional || next->result.args.empty()) {
            return fail("source 'next()' must return std::optional<T> (std::nullopt after the "
                        "last root), " +
                            method + " returns " + quoted(display_name(next->result)),
                        next->result_location);
        }
        binding_.shape = Shape::Source;
        binding_.outputs = {next->result.args[0]};
        return true;
    }

    bool bind_sink() {
        constexpr std::string_view member =
            "'void write(const rop::RootKey&, std::span<const T>)'";
        if (!check_source_sink_class("sink", member)) return false;
        const UdfMethod* write = one_method(decl_.write_methods, "sink", member);
        if (!write) return false;
        const std::string method = quoted(decl_.qualified_name + "::write");
        if (input_count_ != 1) {
            return fail("a sink class writes one stream, the sink statement passes " +
                            std::to_string(input_count_) +
                            "; combine them with a map into one item type first",
                        decl_.location);
        }
        if (write->params.size() != 2) {
            return fail(method + " takes " + std::to_string(write->params.size()) +
                            " parameter" + (write->params.size() == 1 ? "" : "s") +
                            "; a sink writes with " + std::string(member),
                        write->location);
        }
        const UdfParam& root = write->params[0];
        if (root.type.canonical != "rop::RootKey" ||
            (root.type.ref != RefKind::None && !root.type.is_const)) {
            return fail("the first parameter of " + method + " must be 'const rop::RootKey&', " +
                            "it is " + quoted(root.type.spelling),
                        root.location);
        }
        const UdfParam& items = write->params[1];
        const CxxType& type = items.type;
        if (type.form != TypeForm::Span || type.args.empty() || !type.args[0].is_const ||
            type.args[0].form == TypeForm::Optional) {
            return fail("the second parameter of " + method +
                            " must be 'std::span<const T>' (a root's present items), it is " +
                            quoted(type.spelling),
                        items.location);
        }
        if (write->result.form != TypeForm::Void) {
            return fail("sink 'write' must return void, " + method + " returns " +
                            quoted(display_name(write->result)),
                        write->result_location);
        }
        BoundInput input;
        input.item = type.args[0];
        input.param_index = 1;
        binding_.inputs.push_back(std::move(input));
        binding_.shape = Shape::Sink;
        return true;
    }

    bool check_arity() {
        if (input_count_ == 0) return fail("a Call needs at least one input", decl_.location);
        if (decl_.params.size() < input_count_) {
            return fail(callable_name(decl_) + " takes " + std::to_string(decl_.params.size()) +
                            " parameter" + (decl_.params.size() == 1 ? "" : "s") +
                            " but the Call passes " + std::to_string(input_count_) + " input" +
                            (input_count_ == 1 ? "" : "s"),
                        decl_.location);
        }
        return true;
    }

    const UdfParam& param(std::size_t index) const { return decl_.params[index]; }
    bool is_batch() const { return param(0).type.form == TypeForm::Span; }

    // The special rop parameters say what they are for when found where an input or a named
    // argument is expected. On the primitive that takes them, the mistake is their place, so
    // the message spells out the order (docs/udfs.md, "Signature conventions").
    bool reject_special(const UdfParam& p, std::size_t index) {
        const std::string where =
            callable_name(decl_) + " takes " +
            (p.type.form == TypeForm::Ordinals  ? "rop::Ordinals"
             : p.type.form == TypeForm::Skipped ? "rop::Skipped"
                                                : quoted(p.type.spelling)) +
            " as its " + ordinal(index) + " parameter; ";
        switch (p.type.form) {
            case TypeForm::Emitter:
                if (primitive_ == Primitive::Expand) {
                    return fail(where + "a streaming expand UDF takes it right after its inputs "
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
                    return fail(where + "a reduce UDF takes it right after its span of children, "
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
                    return fail(where + "a reduce UDF takes it after its children and "
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
                    return fail(where + "a reduce UDF takes its parent after its children and "
                                        "ordinals, before its named arguments: " +
                                    std::string(kReduceOrder),
                                p.location);
                }
                return fail(where +
                                "only a reduce UDF "
                                "takes its parent, after its children (and ordinals)",
                            p.location);
            default:
                return true;
        }
    }

    static constexpr std::string_view kReduceOrder =
        "f(std::span<const T> children, rop::Ordinals ordinals, rop::Skipped skipped, "
        "const rop::Parent<P>& parent, named arguments...), ordinals, skipped and parent each "
        "optional";
    static constexpr std::string_view kExpandOrder =
        "void f(const In& input, rop::Emitter<Child>& out, named arguments...)";

    // An input taken one item at a time: const T&, T, std::optional<T>, const T*.
    bool element_input(std::size_t index) {
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
                return fail("optional input " + param_name(p, index) + " of " +
                                callable_name(decl_) + " is " + quoted(type.spelling) +
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
    bool span_input(std::size_t index, std::string_view why) {
        const UdfParam& p = param(index);
        if (!reject_special(p, index)) return false;
        const CxxType& type = p.type;
        if (type.form != TypeForm::Span || type.args.empty() || !type.args[0].is_const) {
            return fail(std::string(why) + "; " + param_name(p, index) + " of " +
                            callable_name(decl_) + " is " + quoted(type.spelling),
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

    bool bind_inputs(bool batch) {
        for (std::size_t i = 0; i < input_count_; ++i) {
            bool ok = batch ? span_input(i, "a batch UDF takes every input as 'std::span<const T>'")
                            : element_input(i);
            if (!ok) return false;
        }
        next_param_ = input_count_;
        return true;
    }

    // A map's or reduce's result: one output, or one per element of a std::tuple.
    bool set_outputs(const CxxType& result, const std::string& what_returns) {
        if (result.form == TypeForm::Void) {
            return fail(kind() + "must return its output, " + callable_name(decl_) + " returns " +
                            what_returns,
                        decl_.result_location);
        }
        if (result.form == TypeForm::Tuple) {
            binding_.outputs = result.args;
            binding_.multi_output = true;
        } else {
            binding_.outputs = {result};
        }
        return true;
    }

    bool bind_map() {
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

    bool bind_filter() {
        bool batch = is_batch();
        if (!bind_inputs(batch)) return false;
        const CxxType& result = decl_.result;
        if (!batch) {
            binding_.shape = Shape::ElementFilter;
            const CxxType& first = param(0).type;
            if (result.form == TypeForm::Vector && first.form == TypeForm::Vector &&
                !first.args.empty()) {
                return fail("batch UDFs take std::span<const T>, not a vector: " +
                                callable_name(decl_) + " takes " + quoted(first.spelling) +
                                "; take " +
                                quoted("std::span<const " + display_name(first.args[0]) + ">"),
                            param(0).location);
            }
            if (result.form != TypeForm::Bool) {
                return fail("filter UDF must return bool, " + callable_name(decl_) + " returns " +
                                quoted(display_name(result)),
                            decl_.result_location);
            }
        } else {
            binding_.shape = Shape::BatchFilter;
            if (result.form != TypeForm::Vector || result.args.empty() ||
                result.args[0].form != TypeForm::Bool) {
                return fail("batch filter UDF must return std::vector<bool>, " +
                                callable_name(decl_) + " returns " + quoted(display_name(result)),
                            decl_.result_location);
            }
        }
        binding_.outputs = {binding_.inputs.front().item};
        return true;
    }

    bool bind_expand() {
        if (is_batch()) {
            return fail("expand UDF takes its input one item at a time, not as a batch; " +
                            callable_name(decl_) + " takes " + quoted(param(0).type.spelling),
                        param(0).location);
        }
        if (!bind_inputs(false)) return false;
        const CxxType& result = decl_.result;
        if (next_param_ < decl_.params.size() &&
            param(next_param_).type.form == TypeForm::Emitter) {
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

    bool bind_reduce() {
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
        if (next_param_ < decl_.params.size() &&
            param(next_param_).type.form == TypeForm::Ordinals) {
            binding_.ordinals_param = next_param_++;
        }
        if (next_param_ < decl_.params.size() &&
            param(next_param_).type.form == TypeForm::Skipped) {
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

    // The parameters left after inputs (and emitter/ordinals/parent) are named arguments; a
    // class UDF has none there, its named arguments are its constructor's.
    bool bind_named() {
        bool source_or_sink = primitive_ == Primitive::Source || primitive_ == Primitive::Sink;
        std::size_t rest = source_or_sink ? 0 : decl_.params.size() - next_param_;
        if (decl_.is_class && rest != 0) {
            return fail(callable_name(decl_) + " takes " + std::to_string(decl_.params.size()) +
                            " parameters but the Call "
                            "passes " +
                            std::to_string(input_count_) + " input" +
                            (input_count_ == 1 ? "" : "s") +
                            "; a class UDF takes its named arguments in its constructor",
                        param(next_param_).location);
        }
        const std::vector<UdfParam>& named = decl_.is_class ? decl_.ctor_params : decl_.params;
        std::size_t first = decl_.is_class ? 0 : next_param_;
        for (std::size_t i = first; i < named.size(); ++i) {
            const UdfParam& p = named[i];
            if (!reject_special(p, i)) return false;
            if (p.name.empty()) {
                std::string owner = decl_.is_class
                                        ? "constructor of " + quoted(decl_.qualified_name)
                                        : callable_name(decl_);
                return fail("the " + ordinal(i) + " parameter of " + owner +
                                " is a named argument but has no name; name it so a .rop file "
                                "can pass it",
                            p.location);
            }
            binding_.named.push_back(p);
        }
        binding_.first_named_param = first;
        return true;
    }

    const UdfDecl& decl_;
    Primitive primitive_;
    std::size_t input_count_;
    std::size_t next_param_ = 0;
    Binding binding_;
    Classification result_;
};

}  // namespace

Classification classify(const UdfDecl& decl, Primitive primitive, std::size_t input_count) {
    return Classifier(decl, primitive, input_count).run();
}

std::vector<Primitive> candidate_primitives(const UdfDecl& decl) {
    std::vector<Primitive> out;
    for (Primitive p : {Primitive::Map, Primitive::Filter, Primitive::Expand, Primitive::Reduce}) {
        if (classify(decl, p, 1).ok()) out.push_back(p);
    }
    return out;
}

}  // namespace rop::bind
