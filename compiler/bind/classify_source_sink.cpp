// Source and sink classes: a class with one constructor taking its path first, and one
// `std::optional<T> next()` (source) or `void write(const rop::RootKey&, std::span<const T>)`
// (sink).
#include <string>

#include "bind/classifier.h"
#include "bind/types.h"

namespace rop::bind::classify_detail {

// A source or sink class: the class itself and its one constructor.
bool Classifier::check_source_sink_class(std::string_view kind, std::string_view member) {
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
const UdfMethod* Classifier::one_method(const std::vector<UdfMethod>& methods,
                                        std::string_view kind, std::string_view member) {
    if (methods.empty()) {
        fail(std::string(kind) + " class " + quoted(decl_.qualified_name) + " has no public " +
                 std::string(member),
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

bool Classifier::bind_source() {
    constexpr std::string_view member = "'std::optional<T> next()'";
    if (!check_source_sink_class("source", member)) return false;
    const UdfMethod* next = one_method(decl_.next_methods, "source", member);
    if (!next) return false;
    const std::string method = quoted(decl_.qualified_name + "::next");
    if (!next->params.empty()) {
        return fail(method + " takes " + std::to_string(next->params.size()) + " parameter" +
                        (next->params.size() == 1 ? "" : "s") + "; a source's 'next()' takes none",
                    next->params.front().location);
    }
    if (next->result.form != TypeForm::Optional || next->result.args.empty()) {
        return fail(
            "source 'next()' must return std::optional<T> (std::nullopt after the "
            "last root), " +
                method + " returns " + quoted(display_name(next->result)),
            next->result_location);
    }
    binding_.shape = Shape::Source;
    binding_.outputs = {next->result.args[0]};
    return true;
}

bool Classifier::bind_sink() {
    constexpr std::string_view member = "'void write(const rop::RootKey&, std::span<const T>)'";
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
        return fail(method + " takes " + std::to_string(write->params.size()) + " parameter" +
                        (write->params.size() == 1 ? "" : "s") + "; a sink writes with " +
                        std::string(member),
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

}  // namespace rop::bind::classify_detail
