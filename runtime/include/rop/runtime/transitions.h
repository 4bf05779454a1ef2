// The transition rules of SEMANTICS.md as pure functions: no threads, no I/O, no lineage store.
// The driver calls exactly these; tests/runtime/test_transitions.cpp checks every combination.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "rop/runtime/ids.h"
#include "rop/runtime/plan.h"

namespace rop::runtime {

// ---- Call input algebra (map, filter predicate run, expand, reduce-with-UDF inputs) ----
enum class InputVerdict : std::uint8_t {
    Wait,      // some input is still UNRESOLVED
    Run,       // READY: the Grain runs (an optional DROPPED input reaches the UDF as "missing")
    Suppress,  // an input is FAILED or SUPPRESSED: outputs SUPPRESSED (failure beats drop)
    Drop,      // a required input is DROPPED: outputs DROPPED
};
// modes[i] and outcomes[i] describe input i; input order never matters.
InputVerdict call_input_verdict(std::span<const InputMode> modes,
                                std::span<const Outcome> outcomes);
// Output outcome for a Grain that does not run (verdict Suppress or Drop).
Outcome outcome_of(InputVerdict verdict);

// ---- filter(source, predicate) ----
// source not PRESENT: propagated unchanged (the predicate does not run); PRESENT: keep ->
// PRESENT (value passes unchanged), !keep -> DROPPED.
Outcome filter_outcome(Outcome source, bool keep);
bool filter_runs_predicate(Outcome source);

// ---- broadcast(source in an ancestor Domain) ----
// Every descendant gets its ancestor's outcome (and value) unchanged.
Outcome broadcast_outcome(Outcome ancestor);

// ---- expand ----
enum class ExpansionState : std::uint8_t { Pending, Succeeded, Dropped, Failed };
const char* to_string(ExpansionState state);
// What the expand's input verdict does to its Expansion: Run leaves it Pending (the UDF decides),
// Drop -> DROPPED, Suppress -> FAILED, Wait -> Pending.
ExpansionState expansion_from_inputs(InputVerdict verdict);
// The expand Grain's own report: success -> SUCCEEDED (count sealed), failure -> FAILED.
ExpansionState expansion_from_report(bool success);

// ---- reduce(x in C, to P) ----
enum class ReduceVerdict : std::uint8_t {
    Wait,      // Expansion pending, or some member item UNRESOLVED
    Run,       // group the PRESENT members in ordinal order (possibly empty) and run / publish
    Drop,      // Expansion DROPPED -> output DROPPED
    Suppress,  // Expansion FAILED, or a member FAILED/SUPPRESSED -> output SUPPRESSED
};
ReduceVerdict reduce_verdict(ExpansionState expansion, std::span<const Outcome> members);
// The same rule for a reduce's `on_failure` option: with Skip, FAILED/SUPPRESSED members do not
// suppress the group; they are left out like DROPPED ones (Run). The Expansion rules stay.
ReduceVerdict reduce_verdict(ExpansionState expansion, std::span<const Outcome> members,
                             OnFailure on_failure);
// Whether the member is left out of a running group as skipped (recorded with its reason).
bool reduce_skips(Outcome member, OnFailure on_failure);
Outcome outcome_of(ReduceVerdict verdict);

// ---- Item publication: exactly once ----
enum class Publication : std::uint8_t { Accept, Duplicate, Conflict };
// current: the Item's outcome now; incoming: the new one. same_value: the payloads are the
// same object (or both empty). Duplicate is a no-op; Conflict is a bug and must throw.
Publication publish_item(Outcome current, Outcome incoming, bool same_value);

// ---- Grain phases ----
enum class GrainPhase : std::uint8_t { Waiting, Ready, InFlight, Sealed };
enum class GrainEvent : std::uint8_t {
    InputsRunnable,  // all inputs terminal, verdict Run:        WAITING -> READY
    Resolve,         // decided without running (non-run inputs,
                     // inline Call: broadcast, reduce w/o UDF):  WAITING -> SEALED
    Reserve,         // popped into a batch:                      READY -> IN_FLIGHT
    SuppressQueued,  // barrier / failed ancestor at dequeue:     READY -> SEALED
    Commit,          // a generation-fenced report (or a fenced
                     // suppression, or a terminal failure):      IN_FLIGHT -> SEALED
    Recover,         // replay (retry, bisection, infra):         IN_FLIGHT -> READY, generation+1
};
const char* to_string(GrainPhase phase);
const char* to_string(GrainEvent event);
// The next phase, or nullopt when the pair is not listed (rejected: a runtime bug).
inline std::optional<GrainPhase> grain_transition(GrainPhase phase, GrainEvent event) {
    using P = GrainPhase;
    using E = GrainEvent;
    if (phase == P::Waiting && event == E::InputsRunnable) return P::Ready;
    if (phase == P::Waiting && event == E::Resolve) return P::Sealed;
    if (phase == P::Ready && event == E::Reserve) return P::InFlight;
    if (phase == P::Ready && event == E::SuppressQueued) return P::Sealed;
    if (phase == P::InFlight && event == E::Commit) return P::Sealed;
    if (phase == P::InFlight && event == E::Recover) return P::Ready;
    return std::nullopt;
}

}  // namespace rop::runtime
