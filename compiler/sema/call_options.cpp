#include "sema/call_options.h"

#include <stdexcept>
#include <string>

namespace rop::sema {

namespace {

// The table's words are string literals, so their views are NUL-terminated.
template <class E>
const char* word_of(E value) {
    return vocab::word(value).data();
}

template <class E>
double index_of(E value) {
    return static_cast<double>(static_cast<std::size_t>(value));
}

template <class E>
void set_word(E& field, std::string_view text) {
    if (const auto value = vocab::from_word<E>(text)) field = *value;
}

}  // namespace

const char* to_string(Recovery recovery) { return word_of(recovery); }
const char* to_string(Batching batching) { return word_of(batching); }
const char* to_string(Isolation isolation) { return word_of(isolation); }
const char* to_string(OnFailure on_failure) { return word_of(on_failure); }

std::span<const OptionSpec> option_specs() { return vocab::call_options(); }

const OptionSpec* find_option_spec(std::string_view name) { return vocab::find_call_option(name); }

double option_value(const CallOptions& o, const OptionSpec& spec) {
    const std::string_view name = spec.name;
    if (name == "batch") return static_cast<double>(o.batch);
    if (name == "actors") return static_cast<double>(o.actors);
    if (name == "gpus") return o.gpus;
    if (name == "retries") return static_cast<double>(o.retries);
    if (name == "infra_retries") return static_cast<double>(o.infra_retries);
    if (name == "recovery") return index_of(o.recovery);
    if (name == "timeout") return static_cast<double>(o.timeout_ms.value_or(0));
    if (name == "batching") return index_of(o.batching);
    if (name == "isolation") return index_of(o.isolation);
    if (name == "on_failure") return index_of(o.on_failure);
    if (name == "memory_mb") return static_cast<double>(o.memory_mb);
    throw std::logic_error("sema::CallOptions has no field for option '" + std::string(name) +
                           "' (rop/vocab/call_options.h)");
}

void apply_option(const ast::Option& option, CallOptions& options) {
    const ast::Value& v = option.value;
    const std::string_view name = option.name.name;
    const double number =
        v.kind == ast::Value::Kind::Float ? v.float_value : static_cast<double>(v.int_value);
    if (name == "batch") {
        options.batch = v.int_value;
    } else if (name == "actors") {
        options.actors = v.int_value;
    } else if (name == "gpus") {
        options.gpus = number;
    } else if (name == "retries") {
        options.retries = v.int_value;
    } else if (name == "infra_retries") {
        options.infra_retries = v.int_value;
    } else if (name == "timeout") {
        options.timeout_ms = v.int_value;
    } else if (name == "recovery") {
        set_word(options.recovery, v.text);
    } else if (name == "batching") {
        set_word(options.batching, v.text);
    } else if (name == "isolation") {
        set_word(options.isolation, v.text);
    } else if (name == "on_failure") {
        set_word(options.on_failure, v.text);
    } else if (name == "memory_mb") {
        options.memory_mb = v.int_value;
    }
}

}  // namespace rop::sema
