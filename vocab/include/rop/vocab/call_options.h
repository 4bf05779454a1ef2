// The Call options (`batch 48 actors 4 recovery isolate_tail ...`) in one table: name, kind,
// range, default, spellings, where each may appear and what it means. ropc checks `.rop` files
// against it, the plan JSON takes its keys from it, the runtime's CallOptions take their
// defaults from it, a pipeline binary's `--set` and `--help` read it, and a test holds the
// option table in docs/language.md equal to it. Header-only and standalone: it includes only the
// standard library, so the compiler may include it without depending on the runtime
// (tests/check_layering.sh).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
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

inline constexpr std::string_view kRecoveryWords[] = {"abort", "retry_batch", "retry_tail",
                                                      "isolate_tail"};
inline constexpr std::string_view kBatchingWords[] = {"any_parent", "single_parent"};
inline constexpr std::string_view kIsolationWords[] = {"thread", "process"};
inline constexpr std::string_view kOnFailureWords[] = {"suppress", "skip"};

static_assert(std::size(kRecoveryWords) == std::size_t(Recovery::IsolateTail) + 1);
static_assert(std::size(kBatchingWords) == std::size_t(Batching::SingleParent) + 1);
static_assert(std::size(kIsolationWords) == std::size_t(Isolation::Process) + 1);
static_assert(std::size(kOnFailureWords) == std::size_t(OnFailure::Skip) + 1);

constexpr std::span<const std::string_view> words_of(Recovery) { return kRecoveryWords; }
constexpr std::span<const std::string_view> words_of(Batching) { return kBatchingWords; }
constexpr std::span<const std::string_view> words_of(Isolation) { return kIsolationWords; }
constexpr std::span<const std::string_view> words_of(OnFailure) { return kOnFailureWords; }

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

}  // namespace rop::vocab
