// The transition rules of SEMANTICS.md (see transitions.h). Pure; table-tested.
#include "rop/runtime/transitions.h"

namespace rop::runtime {

InputVerdict call_input_verdict(std::span<const InputMode> modes,
                                std::span<const Outcome> outcomes) {
    bool failed = false, dropped = false;
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
        switch (outcomes[i]) {
            case Outcome::Unresolved: return InputVerdict::Wait;
            case Outcome::Failed:
            case Outcome::Suppressed: failed = true; break;
            case Outcome::Dropped:
                if (modes[i] == InputMode::Required) dropped = true;
                break;
            case Outcome::Present: break;
        }
    }
    if (failed) return InputVerdict::Suppress;
    if (dropped) return InputVerdict::Drop;
    return InputVerdict::Run;
}

Outcome outcome_of(InputVerdict verdict) {
    switch (verdict) {
        case InputVerdict::Suppress: return Outcome::Suppressed;
        case InputVerdict::Drop: return Outcome::Dropped;
        default: return Outcome::Unresolved;
    }
}

bool filter_runs_predicate(Outcome source) { return source == Outcome::Present; }

Outcome filter_outcome(Outcome source, bool keep) {
    if (source != Outcome::Present) return source;
    return keep ? Outcome::Present : Outcome::Dropped;
}

Outcome broadcast_outcome(Outcome ancestor) { return ancestor; }

const char* to_string(ExpansionState state) {
    switch (state) {
        case ExpansionState::Pending: return "PENDING";
        case ExpansionState::Succeeded: return "SUCCEEDED";
        case ExpansionState::Dropped: return "DROPPED";
        case ExpansionState::Failed: return "FAILED";
    }
    return "?";
}

ExpansionState expansion_from_inputs(InputVerdict verdict) {
    switch (verdict) {
        case InputVerdict::Drop: return ExpansionState::Dropped;
        case InputVerdict::Suppress: return ExpansionState::Failed;
        default: return ExpansionState::Pending;
    }
}

ExpansionState expansion_from_report(bool success) {
    return success ? ExpansionState::Succeeded : ExpansionState::Failed;
}

ReduceVerdict reduce_verdict(ExpansionState expansion, std::span<const Outcome> members) {
    return reduce_verdict(expansion, members, OnFailure::Suppress);
}

bool reduce_skips(Outcome member, OnFailure on_failure) {
    return on_failure == OnFailure::Skip &&
           (member == Outcome::Failed || member == Outcome::Suppressed);
}

ReduceVerdict reduce_verdict(ExpansionState expansion, std::span<const Outcome> members,
                             OnFailure on_failure) {
    switch (expansion) {
        case ExpansionState::Pending: return ReduceVerdict::Wait;
        case ExpansionState::Dropped: return ReduceVerdict::Drop;
        case ExpansionState::Failed: return ReduceVerdict::Suppress;
        case ExpansionState::Succeeded: break;
    }
    bool bad = false;
    for (Outcome member : members) {
        if (member == Outcome::Unresolved) return ReduceVerdict::Wait;
        if (reduce_skips(member, on_failure)) continue;
        if (member == Outcome::Failed || member == Outcome::Suppressed) bad = true;
    }
    return bad ? ReduceVerdict::Suppress : ReduceVerdict::Run;
}

Outcome outcome_of(ReduceVerdict verdict) {
    switch (verdict) {
        case ReduceVerdict::Drop: return Outcome::Dropped;
        case ReduceVerdict::Suppress: return Outcome::Suppressed;
        default: return Outcome::Unresolved;
    }
}

Publication publish_item(Outcome current, Outcome incoming, bool same_value) {
    if (incoming == Outcome::Unresolved) return Publication::Conflict;
    if (current == Outcome::Unresolved) return Publication::Accept;
    if (current == incoming && same_value) return Publication::Duplicate;
    return Publication::Conflict;
}

const char* to_string(GrainPhase phase) {
    switch (phase) {
        case GrainPhase::Waiting: return "WAITING";
        case GrainPhase::Ready: return "READY";
        case GrainPhase::InFlight: return "IN_FLIGHT";
        case GrainPhase::Sealed: return "SEALED";
    }
    return "?";
}

const char* to_string(GrainEvent event) {
    switch (event) {
        case GrainEvent::InputsRunnable: return "inputs-runnable";
        case GrainEvent::Resolve: return "resolve";
        case GrainEvent::Reserve: return "reserve";
        case GrainEvent::SuppressQueued: return "suppress-queued";
        case GrainEvent::Commit: return "commit";
        case GrainEvent::Recover: return "recover";
    }
    return "?";
}

}  // namespace rop::runtime
