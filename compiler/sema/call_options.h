// Call options (`batch 48 actors 4 recovery isolate_tail ...`): their values after checking,
// with defaults. Names, kinds, ranges, defaults, spellings and the struct of values itself come
// from the one table ropc and the runtime both read (rop/vocab/call_options.h); this header
// adds the compiler's view of it.
#pragma once

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

// Every option with its default from the table, a field each named as the option; the
// runtime's CallOptions is the same struct. SEMANTICS.md says what each one means at run time.
using vocab::CallOptions;

using vocab::OptionKind;
using vocab::OptionSite;
using OptionSpec = vocab::CallOptionSpec;

std::span<const OptionSpec> option_specs();
const OptionSpec* find_option_spec(std::string_view name);
using vocab::allowed_at;

// An option's value in `options` as the table counts it: the number (Int, Number, Gpus), the
// milliseconds (Duration; 0: none) or the enumerator's index (Enum).
using vocab::option_value;
using vocab::set_option_value;

// The options a pool decides for all its Calls (the vocabulary's one list).
using vocab::is_pool_option;
using vocab::kPoolOptions;

// Stores one option, already checked for kind and range (check_options.cpp), into `options`.
void apply_option(const ast::Option& option, CallOptions& options);

}  // namespace rop::sema
