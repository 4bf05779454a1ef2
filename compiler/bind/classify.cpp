#include "bind/classify.h"

#include <utility>

#include "bind/classifier.h"
#include "bind/types.h"

namespace rop::bind {

std::string_view to_string(Primitive primitive) { return vocab::word(primitive); }

std::string_view to_string(Shape shape) {
    switch (shape) {
        case Shape::ElementMap: return "element map";
        case Shape::BatchMap: return "batch map";
        case Shape::ElementFilter: return "element filter";
        case Shape::BatchFilter: return "batch filter";
        case Shape::VectorExpand: return "vector expand";
        case Shape::StreamingExpand: return "streaming expand";
        case Shape::SpanReduce: return "span reduce";
        case Shape::Source: return "source";
        case Shape::Sink: return "sink";
    }
    return "?";
}

std::string ordinal(std::size_t index) {
    std::size_t n = index + 1;
    const char* suffix = (n % 100 >= 11 && n % 100 <= 13) ? "th"
                         : n % 10 == 1                    ? "st"
                         : n % 10 == 2                    ? "nd"
                         : n % 10 == 3                    ? "rd"
                                                          : "th";
    return std::to_string(n) + suffix;
}

namespace classify_detail {

std::string quoted(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 2);
    out += '\'';
    out += text;
    out += '\'';
    return out;
}

std::string callable_name(const UdfDecl& decl) {
    return quoted(decl.is_class ? decl.qualified_name + "::operator()" : decl.qualified_name);
}

std::string param_name(const UdfParam& param, std::size_t index) {
    return param.name.empty() ? ordinal(index) + " parameter" : "parameter " + quoted(param.name);
}

Classification Classifier::run() {
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
        case Primitive::Broadcast: break;  // bound above; a broadcast runs no UDF
        case Primitive::Map: ok = bind_map(); break;
        case Primitive::Filter: ok = bind_filter(); break;
        case Primitive::Expand: ok = bind_expand(); break;
        case Primitive::Reduce: ok = bind_reduce(); break;
    }
    if (ok && bind_named()) result_.binding = std::move(binding_);
    return std::move(result_);
}

bool Classifier::fail(std::string reason, const SourceLoc& at) {
    result_.reason = std::move(reason);
    result_.note = at.valid() ? at : decl_.location;
    return false;
}

bool Classifier::check_class() {
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
bool Classifier::check_call_operator() {
    if (!decl_.is_class || decl_.call_operator_count != 0) return true;
    std::string what = !decl_.next_methods.empty()    ? "; it is a source class (next())"
                       : !decl_.write_methods.empty() ? "; it is a sink class (write())"
                                                      : "";
    return fail("class " + quoted(decl_.qualified_name) + " has no public operator(), so " +
                    std::string(to_string(primitive_)) + " cannot call it" + what,
                decl_.location);
}

bool Classifier::check_arity() {
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

// The parameters left after inputs (and emitter/ordinals/parent) are named arguments; a
// class UDF has none there, its named arguments are its constructor's.
bool Classifier::bind_named() {
    bool source_or_sink = primitive_ == Primitive::Source || primitive_ == Primitive::Sink;
    std::size_t rest = source_or_sink ? 0 : decl_.params.size() - next_param_;
    if (decl_.is_class && rest != 0) {
        return fail(callable_name(decl_) + " takes " + std::to_string(decl_.params.size()) +
                        " parameters but the Call "
                        "passes " +
                        std::to_string(input_count_) + " input" + (input_count_ == 1 ? "" : "s") +
                        "; a class UDF takes its named arguments in its constructor",
                    param(next_param_).location);
    }
    const std::vector<UdfParam>& named = decl_.is_class ? decl_.ctor_params : decl_.params;
    std::size_t first = decl_.is_class ? 0 : next_param_;
    for (std::size_t i = first; i < named.size(); ++i) {
        const UdfParam& p = named[i];
        if (!reject_special(p, i)) return false;
        if (p.name.empty()) {
            std::string owner = decl_.is_class ? "constructor of " + quoted(decl_.qualified_name)
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

}  // namespace classify_detail

Classification classify(const UdfDecl& decl, Primitive primitive, std::size_t input_count) {
    return classify_detail::Classifier(decl, primitive, input_count).run();
}

std::vector<Primitive> candidate_primitives(const UdfDecl& decl) {
    std::vector<Primitive> out;
    for (Primitive p : {Primitive::Map, Primitive::Filter, Primitive::Expand, Primitive::Reduce}) {
        if (classify(decl, p, 1).ok()) out.push_back(p);
    }
    return out;
}

}  // namespace rop::bind
