// The Call options (`batch 48 actors 4 recovery isolate_tail ...`) in one table: name, kind,
// range, default, spellings, where each may appear and what it means; and CallOptions, the one
// struct of their values that ropc and the runtime share, a field per option. ropc checks `.rop`
// files against the table, its plan JSON and generated code take their keys from it, a pipeline
// binary's `--set` and `--help` read it, and a test holds the option table in docs/language.md
// equal to it; every name-to-field access goes through visit_field below. Header-only and
// standalone: it includes only the standard library, so the compiler may include it without
// depending on the runtime (tests/check_layering.sh).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>

namespace rop::vocab {

// The enumerations. Each word list is indexed by the enumerator's value; an enumerator added
// without its word fails the static_asserts below.
enum class Recovery : std::uint8_t { Abort, RetryBatch, RetryTail, IsolateTail };
enum class Batching : std::uint8_t { AnyParent, SingleParent };
enum class Isolation : std::uint8_t { Thread, Process };
// What a reduce does with FAILED or SUPPRESSED members: suppress its group, or skip them.
enum class OnFailure : std::uint8_t { Suppress, Skip };
// Whether a Call's results go to the result store (--cache DIR): auto stores them unless the
// determinism lint (W0500) flagged its UDF; on stores them even then; off never.
enum class Cache : std::uint8_t { Auto, On, Off };

inline constexpr std::string_view kRecoveryWords[] = {"abort", "retry_batch", "retry_tail",
                                                      "isolate_tail"};
inline constexpr std::string_view kBatchingWords[] = {"any_parent", "single_parent"};
inline constexpr std::string_view kIsolationWords[] = {"thread", "process"};
inline constexpr std::string_view kOnFailureWords[] = {"suppress", "skip"};
inline constexpr std::string_view kCacheWords[] = {"auto", "on", "off"};

static_assert(std::size(kRecoveryWords) == std::size_t(Recovery::IsolateTail) + 1);
static_assert(std::size(kBatchingWords) == std::size_t(Batching::SingleParent) + 1);
static_assert(std::size(kIsolationWords) == std::size_t(Isolation::Process) + 1);
static_assert(std::size(kOnFailureWords) == std::size_t(OnFailure::Skip) + 1);
static_assert(std::size(kCacheWords) == std::size_t(Cache::Off) + 1);

constexpr std::span<const std::string_view> words_of(Recovery) { return kRecoveryWords; }
constexpr std::span<const std::string_view> words_of(Batching) { return kBatchingWords; }
constexpr std::span<const std::string_view> words_of(Isolation) { return kIsolationWords; }
constexpr std::span<const std::string_view> words_of(OnFailure) { return kOnFailureWords; }
constexpr std::span<const std::string_view> words_of(Cache) { return kCacheWords; }

// word(Recovery::IsolateTail) == "isolate_tail", for every enumeration above.
template <class E>
constexpr std::string_view word(E value) {
    const auto words = words_of(E{});
    const auto i = static_cast<std::size_t>(value);
    return i < words.size() ? words[i] : std::string_view("?");
}

template <class E>
constexpr std::optional<E> from_word(std::string_view text) {
    const auto words = words_of(E{});
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (words[i] == text) return static_cast<E>(i);
    }
    return std::nullopt;
}

// Gpus: whole devices (an integer 1..max) or a fraction in (0, 1] of one shared device.
enum class OptionKind : std::uint8_t { Int, Number, Duration, Enum, Gpus };

// Where an option may appear (bits). A Call with a UDF takes every Call option; broadcast and a
// reduce without `with` run no UDF and take none of those; sources and sinks take the
// failure-handling subset. Reduce options go on every reduce, with or without `with`.
enum class OptionSite : unsigned { Call = 1, Source = 2, Sink = 4, Reduce = 8 };

struct CallOptionSpec {
    std::string_view name;
    OptionKind kind;
    // Inclusive range. Duration: milliseconds. Gpus: max is the most whole devices.
    double min = 0;
    double max = 0;
    // Int, Number, Gpus: the value. Duration: milliseconds, 0 for none (min is at least 1).
    // Enum: the enumerator's index in `enumerators`.
    double default_value = 0;
    std::span<const std::string_view> enumerators = {};  // Enum only
    unsigned sites = 0;                                  // OptionSite bits
    bool run_time = false;  // a pipeline binary's --set may change it (else fixed at build)
    std::string_view meaning;
};

namespace detail {
inline constexpr unsigned kCall = unsigned(OptionSite::Call);
inline constexpr unsigned kReduce = unsigned(OptionSite::Reduce);
inline constexpr unsigned kEverywhere =
    kCall | unsigned(OptionSite::Source) | unsigned(OptionSite::Sink);
inline constexpr double kWeekMs = 7.0 * 24 * 3600 * 1000;
template <class E>
constexpr double index(E value) {
    return static_cast<double>(static_cast<std::size_t>(value));
}
}  // namespace detail

// Every option, once, in the order diagnostics, --help and the docs list them.
// infra_retries defaults to 3: SEMANTICS.md names no number, and 3 is what every compiled
// pipeline has run with (ropc writes its default into the plan) and what the docs promised; the
// runtime's former 2 reached only hand-built plans (docs/language.md, "Call options").
// clang-format off: one option per two lines reads as a table.
inline constexpr CallOptionSpec kCallOptions[] = {
    {"batch", OptionKind::Int, 1, 65536, 1, {}, detail::kCall, true,
     "most Grains in one physical batch"},
    {"actors", OptionKind::Int, 1, 4096, 1, {}, detail::kCall, true,
     "persistent actors running the UDF"},
    {"gpus", OptionKind::Gpus, 0, 64, 0, {}, detail::kCall, false,
     "GPUs per actor: whole GPUs (1, 2, ...) or a fraction of one shared GPU (0.5), "
     "placed on the node's devices (CPU actors when it has none)"},
    {"retries", OptionKind::Int, 0, 100, 0, {}, detail::kEverywhere, true,
     "replays of a failing UDF batch"},
    {"infra_retries", OptionKind::Int, 0, 100, 3, {}, detail::kEverywhere, true,
     "replays after an actor crash, lost worker or timeout"},
    {"recovery", OptionKind::Enum, 0, 0, detail::index(Recovery::IsolateTail), kRecoveryWords,
     detail::kCall, true, "what a UDF error does to its batch"},
    {"timeout", OptionKind::Duration, 1, detail::kWeekMs, 0, {}, detail::kEverywhere, true,
     "longest one batch may run (an infra failure when exceeded)"},
    {"batching", OptionKind::Enum, 0, 0, detail::index(Batching::AnyParent), kBatchingWords,
     detail::kCall, true, "whether one batch may mix children of different parents"},
    {"isolation", OptionKind::Enum, 0, 0, detail::index(Isolation::Thread), kIsolationWords,
     detail::kCall, false,
     "run the UDF in threads of the executor, or in separate actor processes (its item types "
     "need codecs: E0306)"},
    {"on_failure", OptionKind::Enum, 0, 0, detail::index(OnFailure::Suppress), kOnFailureWords,
     detail::kReduce, true,
     "what failed children do to a reduce: suppress its group, or skip them (fail-open)"},
    {"memory_mb", OptionKind::Int, 0, 16777216, 0, {}, detail::kCall, true,
     "address-space limit of each worker process in MiB, with isolation process (0: none)"},
    {"cache", OptionKind::Enum, 0, 0, detail::index(Cache::Auto), kCacheWords, detail::kCall, true,
     "whether --cache keeps its results: auto (unless W0500 flagged the UDF), on, off"},
};
// clang-format on

constexpr std::span<const CallOptionSpec> call_options() { return kCallOptions; }

constexpr const CallOptionSpec* find_call_option(std::string_view name) {
    for (const CallOptionSpec& spec : kCallOptions) {
        if (spec.name == name) return &spec;
    }
    return nullptr;
}

constexpr bool allowed_at(const CallOptionSpec& spec, OptionSite site) {
    return (spec.sites & static_cast<unsigned>(site)) != 0;
}

// The entry called `name`, at compile time: a name not in the table does not compile. By index,
// without pointers: GCC 12 under -fsanitize=undefined cannot constant-evaluate its null checks.
consteval const CallOptionSpec& call_option(std::string_view name) {
    std::size_t i = 0;
    while (i < std::size(kCallOptions) && kCallOptions[i].name != name) ++i;
    if (i == std::size(kCallOptions)) throw "rop::vocab::call_option: no such option";
    return kCallOptions[i];
}

// An option's default as the type a CallOptions field holds (an integer, a double or an enum).
template <class T>
consteval T default_of(std::string_view name) {
    const double value = call_option(name).default_value;
    if constexpr (std::is_enum_v<T> || std::is_integral_v<T>) {
        return static_cast<T>(static_cast<long long>(value));
    } else {
        return static_cast<T>(value);
    }
}

// --- The values: one CallOptions for the compiler and the runtime ------------------------------

// Each option's field, named as the option, in declaration order (the order designated
// initializers follow). A field whose name is not in the table does not compile; an option of
// the table without its field, or a field whose type cannot hold the option's values (Int: an
// integer type wide enough for the range; Number and Gpus: a floating type; Duration:
// std::chrono::milliseconds; Enum: its enumeration), fails a static_assert below.
// clang-format off
#define ROP_VOCAB_CALL_OPTION_FIELDS(FIELD)   \
    FIELD(std::uint32_t, batch)               \
    FIELD(std::uint32_t, actors)              \
    FIELD(double, gpus)                       \
    FIELD(Batching, batching)                 \
    FIELD(Recovery, recovery)                 \
    FIELD(std::uint32_t, retries)             \
    FIELD(std::uint32_t, infra_retries)       \
    FIELD(std::chrono::milliseconds, timeout) \
    FIELD(Isolation, isolation)               \
    FIELD(OnFailure, on_failure)              \
    FIELD(std::uint32_t, memory_mb)           \
    FIELD(Cache, cache)
// clang-format on

namespace detail {

// A field's value as the table counts it (the number, the milliseconds or the enumerator's
// index), and back.
template <class T>
constexpr double table_value(const T& field) {
    if constexpr (std::is_same_v<T, std::chrono::milliseconds>) {
        return static_cast<double>(field.count());
    } else if constexpr (std::is_enum_v<T>) {
        return static_cast<double>(static_cast<std::size_t>(field));
    } else {
        return static_cast<double>(field);
    }
}

template <class T>
constexpr T field_value(double value) {
    if constexpr (std::is_same_v<T, std::chrono::milliseconds>) {
        return T(static_cast<typename T::rep>(value));
    } else if constexpr (std::is_enum_v<T>) {
        return static_cast<T>(static_cast<std::size_t>(value));
    } else if constexpr (std::is_integral_v<T>) {
        return static_cast<T>(static_cast<long long>(value));
    } else {
        return static_cast<T>(value);
    }
}

// The index of option `name` in kCallOptions; kCallOptions' size when it has none.
constexpr std::size_t option_index(std::string_view name) {
    std::size_t i = 0;
    while (i < std::size(kCallOptions) && kCallOptions[i].name != name) ++i;
    return i;
}

// A field's default. A variable, not a consteval call in each default member initializer: Clang
// (19) refuses those in a CallOptions that a consteval function (options_with) constructs.
template <class T, std::size_t Option>
inline constexpr T kDefault = field_value<T>(kCallOptions[Option].default_value);

// Whether a field of type T holds every value of option `name`.
template <class T>
consteval bool holds(std::string_view name) {
    const CallOptionSpec& spec = call_option(name);
    if constexpr (std::is_same_v<T, std::chrono::milliseconds>) {
        return spec.kind == OptionKind::Duration;
    } else if constexpr (std::is_enum_v<T>) {
        const auto words = words_of(T{});
        if (spec.kind != OptionKind::Enum || words.size() != spec.enumerators.size()) return false;
        for (std::size_t i = 0; i < words.size(); ++i) {
            if (words[i] != spec.enumerators[i]) return false;
        }
        return true;
    } else if constexpr (std::is_integral_v<T>) {
        return spec.kind == OptionKind::Int &&
               spec.min >= static_cast<double>(std::numeric_limits<T>::min()) &&
               spec.max <= static_cast<double>(std::numeric_limits<T>::max());
    } else {
        return std::is_floating_point_v<T> &&
               (spec.kind == OptionKind::Number || spec.kind == OptionKind::Gpus);
    }
}

}  // namespace detail

// Every option with its default from the table. SEMANTICS.md says what each one means at run
// time; rop::runtime::CallOptions and rop::sema::CallOptions are this struct.
struct CallOptions {
#define ROP_VOCAB_DECLARE(type, field) \
    type field = detail::kDefault<type, detail::option_index(#field)>;
    ROP_VOCAB_CALL_OPTION_FIELDS(ROP_VOCAB_DECLARE)
#undef ROP_VOCAB_DECLARE
    friend bool operator==(const CallOptions&, const CallOptions&) = default;
};

#define ROP_VOCAB_CHECK(type, field)           \
    static_assert(detail::holds<type>(#field), \
                  "CallOptions::" #field ": its type does not hold the option's values");
ROP_VOCAB_CALL_OPTION_FIELDS(ROP_VOCAB_CHECK)
#undef ROP_VOCAB_CHECK

namespace detail {
inline constexpr std::string_view kFieldNames[] = {
#define ROP_VOCAB_NAME(type, field) #field,
    ROP_VOCAB_CALL_OPTION_FIELDS(ROP_VOCAB_NAME)
#undef ROP_VOCAB_NAME
};
consteval bool one_field_per_option() {
    if (std::size(kFieldNames) != std::size(kCallOptions)) return false;
    for (const CallOptionSpec& spec : kCallOptions) {
        std::size_t fields = 0;
        for (std::string_view name : kFieldNames) fields += name == spec.name ? 1 : 0;
        if (fields != 1) return false;
    }
    return true;
}
}  // namespace detail
static_assert(detail::one_field_per_option(),
              "every option of kCallOptions has one CallOptions field");

// Calls visit(field) with option `spec`'s field of `options` (a CallOptions, const or not): the
// one name-to-field access, which option_value and set_option_value below, ropc's checks, its
// plan JSON and generated code, and a pipeline binary's --set and --help all go through.
template <class Options, class Visit>
constexpr void visit_field(Options& options, const CallOptionSpec& spec, Visit&& visit) {
#define ROP_VOCAB_VISIT(type, field) \
    if (spec.name == #field) return static_cast<void>(visit(options.field));
    ROP_VOCAB_CALL_OPTION_FIELDS(ROP_VOCAB_VISIT)
#undef ROP_VOCAB_VISIT
}

// An option's value in `options` as the table counts it: the number (Int, Number, Gpus), the
// milliseconds (Duration; 0: none) or the enumerator's index (Enum).
constexpr double option_value(const CallOptions& options, const CallOptionSpec& spec) {
    double value = spec.default_value;
    visit_field(options, spec, [&](const auto& field) { value = detail::table_value(field); });
    return value;
}

// Stores `value` (as the table counts it, already checked against the option's kind and range).
constexpr void set_option_value(CallOptions& options, const CallOptionSpec& spec, double value) {
    visit_field(options, spec, [&](auto& field) {
        field = detail::field_value<std::remove_cvref_t<decltype(field)>>(value);
    });
}

// One option as generated code writes it: {"batch", 16}, {"timeout", 30000} (milliseconds),
// {"recovery", "retry_tail"}.
struct OptionSetting {
    std::string_view name;
    double number = 0;
    std::string_view word;  // Enum: the option's word
    consteval OptionSetting(std::string_view option, double value) : name(option), number(value) {}
    consteval OptionSetting(std::string_view option, std::string_view word_)
        : name(option), word(word_) {}
};

// The defaults but for `settings`, at compile time: a name not in the table, a word not of its
// option or a number out of its range does not compile. ropc writes each Call's options so,
// those that differ from the default (compiler/codegen).
consteval CallOptions options_with(std::initializer_list<OptionSetting> settings) {
    CallOptions options;
    for (const OptionSetting& setting : settings) {
        const CallOptionSpec& spec = call_option(setting.name);
        double value = setting.number;
        if (spec.kind == OptionKind::Enum) {
            std::size_t i = 0;
            while (i < spec.enumerators.size() && spec.enumerators[i] != setting.word) ++i;
            if (i == spec.enumerators.size()) throw "rop::vocab::options_with: no such word";
            value = static_cast<double>(i);
        } else if (!setting.word.empty()) {
            throw "rop::vocab::options_with: this option takes a number";
        } else if ((value < spec.min || value > spec.max) &&
                   !(spec.kind == OptionKind::Duration && value == 0)) {
            throw "rop::vocab::options_with: out of the option's range";
        }
        set_option_value(options, spec, value);
    }
    return options;
}

// The options a shared pool decides for all its Calls (`pool vlm = ... actors 4 gpus 1;`): where
// and how many of the actors run. The runtime copies them into each pooled Call's options
// (rop::runtime::PoolSpec); ropc lets a pooled Call set none of them (E0308) and a pool no other.
inline constexpr std::string_view kPoolOptions[] = {"actors", "gpus", "isolation", "memory_mb"};
constexpr bool is_pool_option(std::string_view name) {
    for (std::string_view option : kPoolOptions) {
        if (option == name) return true;
    }
    return false;
}
consteval bool pool_options_in_table() {
    for (std::string_view name : kPoolOptions) {
        if (detail::option_index(name) == std::size(kCallOptions)) return false;
    }
    return true;
}
static_assert(pool_options_in_table(), "every pool option is a Call option of the table");

}  // namespace rop::vocab
