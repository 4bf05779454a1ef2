// The kinds of Call a `.rop` file writes, in one enumeration that the compiler (parser, checks,
// binding, codegen) and the runtime (plan, scheduler) share, so that no kind is mapped to another
// by name. A source and a sink are Calls to the compiler; a runtime Plan holds the other five
// (rop::runtime::PlanBuilder refuses the two). Standard library only (tests/check_layering.sh).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <string_view>

namespace rop::vocab {

enum class CallKind : std::uint8_t { Map, Filter, Expand, Broadcast, Reduce, Source, Sink };

// The keyword of each kind, indexed by the enumerator's value.
inline constexpr std::string_view kCallKindWords[] = {"map",    "filter", "expand", "broadcast",
                                                      "reduce", "source", "sink"};
static_assert(std::size(kCallKindWords) == std::size_t(CallKind::Sink) + 1);

constexpr std::span<const std::string_view> words_of(CallKind) { return kCallKindWords; }

// "map", "filter", "expand", "broadcast", "reduce", "source" or "sink" (a string literal, so
// its data() is NUL-terminated).
constexpr std::string_view word(CallKind kind) {
    const auto i = static_cast<std::size_t>(kind);
    return i < std::size(kCallKindWords) ? kCallKindWords[i] : std::string_view("?");
}

// Whether a runtime Plan runs Calls of this kind: all but sources and sinks, which are the
// run's ends (rop::runtime::SourceDefinition, SinkDefinition).
constexpr bool in_plan(CallKind kind) { return kind != CallKind::Source && kind != CallKind::Sink; }

}  // namespace rop::vocab
