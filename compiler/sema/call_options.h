// Call options (`batch 48 actors 4 recovery isolate_tail ...`): their values after checking,
// with defaults. Names, kinds, ranges, defaults and spellings come from the one table both ropc
// and the runtime read (rop/vocab/call_options.h); this header adds the compiler's view of it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "frontend/ast.h"
#include "rop/vocab/call_options.h"

namespace rop::sema {

using vocab::Batching;
using vocab::Isolation;
using vocab::OnFailure;
using vocab::Recovery;

const char* to_string(Recovery recovery);
const char* to_string(Batching batching);
const char* to_string(Isolation isolation);
const char* to_string(OnFailure on_failure);

// Every option with its default from the table; SEMANTICS.md says what each one means at run
// time.
struct CallOptions {
    std::int64_t batch = vocab::default_of<std::int64_t>("batch");
    std::int64_t actors = vocab::default_of<std::int64_t>("actors");
    double gpus = vocab::default_of<double>("gpus");
    std::int64_t retries = vocab::default_of<std::int64_t>("retries");
    std::int64_t infra_retries = vocab::default_of<std::int64_t>("infra_retries");
    Recovery recovery = vocab::default_of<Recovery>("recovery");  // the default isolates
    std::optional<std::int64_t> timeout_ms;  // empty: no timeout (the table's default, 0)
    Batching batching = vocab::default_of<Batching>("batching");
    Isolation isolation = vocab::default_of<Isolation>("isolation");
    OnFailure on_failure = vocab::default_of<OnFailure>("on_failure");
    std::int64_t memory_mb = vocab::default_of<std::int64_t>("memory_mb");
};
static_assert(vocab::call_option("timeout").default_value == 0, "timeout_ms: none by default");

using vocab::OptionKind;
using vocab::OptionSite;
using OptionSpec = vocab::CallOptionSpec;

std::span<const OptionSpec> option_specs();
const OptionSpec* find_option_spec(std::string_view name);
using vocab::allowed_at;

// An option's value in `options` as the table counts it: the number (Int, Number, Gpus), the
// milliseconds (Duration; 0: none) or the enumerator's index (Enum). Ties the struct above to
// the table: a test compares it with the table's defaults and with the runtime's CallOptions.
double option_value(const CallOptions& options, const OptionSpec& spec);

// Stores one option, already checked for kind and range, into `options`.
void apply_option(const ast::Option& option, CallOptions& options);

}  // namespace rop::sema
