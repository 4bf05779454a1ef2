// Call options (`batch 48 actors 4 recovery isolate_tail ...`): their values after checking,
// with defaults, and the table that says which option takes which kind, range and construct.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "frontend/ast.h"

namespace rop::sema {

enum class Recovery { Abort, RetryBatch, RetryTail, IsolateTail };
enum class Batching { AnyParent, SingleParent };
enum class Isolation { Thread, Process };
enum class OnFailure { Suppress, Skip };  // reduce: suppress the group, or skip failed children

const char* to_string(Recovery recovery);
const char* to_string(Batching batching);
const char* to_string(Isolation isolation);
const char* to_string(OnFailure on_failure);

// Every option with its default; SEMANTICS.md says what each one means at run time.
struct CallOptions {
    std::int64_t batch = 1;
    std::int64_t actors = 1;
    double gpus = 0;
    std::int64_t retries = 0;
    std::int64_t infra_retries = 3;
    Recovery recovery = Recovery::IsolateTail;  // SEMANTICS.md: the default isolates
    std::optional<std::int64_t> timeout_ms;  // empty: no timeout
    Batching batching = Batching::AnyParent;
    Isolation isolation = Isolation::Thread;
    OnFailure on_failure = OnFailure::Suppress;
};

// Where an option may appear. A Call with a UDF takes every Call option; broadcast and a reduce
// without `with` run no UDF and take none of those; sources and sinks take the failure-handling
// subset. Reduce options (on_failure) go on every reduce, with or without `with`, and only there.
enum class OptionSite : unsigned { Call = 1, Source = 2, Sink = 4, Reduce = 8 };

// Gpus: whole devices (an integer 1..max) or a fraction in (0, 1] of one shared device.
enum class OptionKind { Int, Number, Duration, Enum, Gpus };

struct OptionSpec {
    std::string_view name;
    OptionKind kind;
    double min = 0;  // inclusive; Duration: milliseconds
    double max = 0;
    std::vector<std::string_view> enumerators;  // Enum only
    unsigned sites = 0;                         // OptionSite bits
    std::string_view meaning;
};

const std::vector<OptionSpec>& option_specs();
const OptionSpec* find_option_spec(std::string_view name);
bool allowed_at(const OptionSpec& spec, OptionSite site);

// Stores one option, already checked for kind and range, into `options`.
void apply_option(const ast::Option& option, CallOptions& options);

}  // namespace rop::sema
