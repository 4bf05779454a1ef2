#include "sema/call_options.h"

namespace rop::sema {

namespace {

// The table's words are string literals, so their views are NUL-terminated.
template <class E>
const char* word_of(E value) {
    return vocab::word(value).data();
}

}  // namespace

const char* to_string(Recovery recovery) { return word_of(recovery); }
const char* to_string(Batching batching) { return word_of(batching); }
const char* to_string(Isolation isolation) { return word_of(isolation); }
const char* to_string(OnFailure on_failure) { return word_of(on_failure); }

std::span<const OptionSpec> option_specs() { return vocab::call_options(); }

const OptionSpec* find_option_spec(std::string_view name) { return vocab::find_call_option(name); }

// The value as the table counts it: the number, the milliseconds, or the word's index.
void apply_option(const ast::Option& option, CallOptions& options) {
    const OptionSpec* spec = find_option_spec(option.name.name);
    if (spec == nullptr) return;  // reported by check_options
    const ast::Value& v = option.value;
    double value =
        v.kind == ast::Value::Kind::Float ? v.float_value : static_cast<double>(v.int_value);
    if (spec->kind == OptionKind::Enum) {
        std::size_t i = 0;
        while (i < spec->enumerators.size() && spec->enumerators[i] != v.text) ++i;
        if (i == spec->enumerators.size()) return;  // reported by check_options
        value = static_cast<double>(i);
    }
    vocab::set_option_value(options, *spec, value);
}

}  // namespace rop::sema
