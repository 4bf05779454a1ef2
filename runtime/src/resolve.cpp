// The resolver (resolver.h): the Call input algebra, filter, broadcast, expand and reduce rules
// (pure functions in transitions.h) applied to Grains whose inputs became terminal.
#include <string>

#include "committer.h"
#include "resolver.h"
#include "scheduler.h"

namespace rop::runtime::detail {

// FIFO, so that Grains become READY in the order their inputs resolved (children in ordinal
// order). resolve() may append tasks; it never calls drain() itself.
void Resolver::drain() {
    std::vector<Task>& work = store_.tasks();
    for (std::size_t i = 0; i < work.size(); ++i) {
        const Task task = work[i];
        resolve(task.call, task.local);
    }
    work.clear();
}

// A Grain sealed without running: counted as `suppressed` when an input FAILED or was
// SUPPRESSED (a filter or broadcast passes a FAILED input on unchanged; a map in its place
// would be SUPPRESSED, and both count the same), `dropped` when its outputs are DROPPED.
void Resolver::count_not_run(CallId call, Outcome outcome) {
    if (outcome == Outcome::Failed || outcome == Outcome::Suppressed) ++counters_[call].suppressed;
    if (outcome == Outcome::Dropped) ++counters_[call].dropped;
}

void Resolver::resolve(CallId call, std::uint32_t local) {
    const CallLayout& cl = store_.layout(call);
    const CallSpec& spec = *cl.spec;
    switch (spec.kind) {
        case CallKind::Broadcast: {
            const PortId in = spec.inputs[0].port;
            EntityId ancestor = store_.entity_of(spec.domain, local);
            while (store_.domain(ancestor) != store_.port_domain(in)) {
                ancestor = store_.parent(ancestor);
            }
            const std::uint32_t at = store_.local(ancestor);
            const Outcome source = store_.outcome(in, at);
            const Value* held = store_.payload(in, at);
            Value value = source == Outcome::Present && held ? *held : Value();
            const Outcome outcome = broadcast_outcome(source);
            store_.publish(spec.outputs[0], local, outcome, std::move(value));
            count_not_run(call, outcome);
            store_.seal(call, local, GrainEvent::Resolve);
            return;
        }
        case CallKind::Filter: {
            const Outcome source = store_.outcome(spec.inputs[0].port, local);
            if (filter_runs_predicate(source)) {
                make_ready(call, local);
            } else {
                const Outcome outcome = filter_outcome(source, false);
                store_.publish(spec.outputs[0], local, outcome, Value());
                count_not_run(call, outcome);  // as a map in its place counts it
                store_.seal(call, local, GrainEvent::Resolve);
            }
            return;
        }
        case CallKind::Map:
        case CallKind::Expand: {
            scratch_.clear();
            for (const CallInput& in : spec.inputs) {
                scratch_.push_back(store_.outcome(in.port, local));
            }
            const InputVerdict verdict = call_input_verdict(cl.modes, scratch_);
            if (verdict == InputVerdict::Wait) {
                throw ContractError("bug: call '" + spec.name + "' resolved with pending inputs");
            }
            if (verdict == InputVerdict::Run) {
                make_ready(call, local);
            } else {
                seal_without_running(call, local, outcome_of(verdict), GrainEvent::Resolve);
            }
            return;
        }
        case CallKind::Reduce: {
            const ExpansionTable& x = store_.expansion_of(call);
            const PortId in = spec.inputs[0].port;
            const std::vector<EntityId>& members = x.children[local];
            scratch_.clear();
            for (EntityId m : members) scratch_.push_back(store_.outcome(in, store_.local(m)));
            OnFailure on_failure = spec.options.on_failure;
            if (on_failure == OnFailure::Skip &&
                committer_.group_failed(store_.entity_of(spec.domain, local), scratch_)) {
                // A GroupFailure failed the whole group: skipping its members would fold
                // whichever siblings committed before the barrier (timing), so it suppresses.
                on_failure = OnFailure::Suppress;
            }
            const ReduceVerdict verdict = reduce_verdict(x.state[local], scratch_, on_failure);
            if (verdict == ReduceVerdict::Wait) {
                throw ContractError("bug: reduce '" + spec.name + "' resolved while pending");
            }
            ReduceGroup group;
            if (verdict == ReduceVerdict::Run) {
                group.values.reserve(members.size());
                group.ordinals.reserve(members.size());
                for (EntityId m : members) {
                    const Value* held = store_.payload(in, store_.local(m));
                    const Outcome member = store_.outcome(in, store_.local(m));
                    if (reduce_skips(member, on_failure)) {
                        RootState& root = store_.root_of(m);
                        std::string reason = store_.skip_reason(root, m);
                        group.skipped.push_back({store_.ordinal(m), reason});
                        root.skips.push_back({m, call, std::move(reason)});
                        ++counters_[call].skipped_members;
                    }
                    if (member != Outcome::Present) continue;
                    group.values.push_back(held ? *held : Value());
                    group.ordinals.push_back(store_.ordinal(m));
                }
            }
            if (store_.skip_reduces() && verdict == ReduceVerdict::Suppress &&
                x.state[local] == ExpansionState::Succeeded) {
                // A suppress-reduce lost this parent's output to a member failure: no
                // skip-reduce over the same children absorbs that failure (judge_failures).
                const EntityId parent = store_.entity_of(spec.domain, local);
                store_.root_of(parent).strict_parents.push_back(parent);
            }
            for (EntityId m : members) store_.release_ref(in, store_.local(m));
            Value parent;
            if (cl.has_parent_port) {
                const Value* held = store_.payload(cl.parent_port, local);
                if (verdict == ReduceVerdict::Run &&
                    store_.outcome(cl.parent_port, local) == Outcome::Present && held) {
                    parent = *held;  // a reference, not a copy
                }
                store_.release_ref(cl.parent_port, local);
            }
            if (verdict != ReduceVerdict::Run) {
                seal_without_running(call, local, outcome_of(verdict), GrainEvent::Resolve);
            } else if (cl.inline_call) {
                store_.publish(spec.outputs[0], local, Outcome::Present,
                               Value::of(std::move(group)));
                store_.seal(call, local, GrainEvent::Resolve);
            } else {
                store_.hold_group(call, local, {Value::of(std::move(group)), std::move(parent)});
                make_ready(call, local);
            }
            return;
        }
        case CallKind::Source:
        case CallKind::Sink: return;  // not in a Plan (PlanBuilder refuses them)
    }
}

void Resolver::seal_without_running(CallId call, std::uint32_t local, Outcome outcome,
                                    GrainEvent event) {
    const CallSpec& spec = *store_.layout(call).spec;
    if (spec.kind == CallKind::Expand) {
        store_.set_expansion(
            call, local,
            outcome == Outcome::Dropped ? ExpansionState::Dropped : ExpansionState::Failed);
    } else {
        for (PortId out : spec.outputs) store_.publish(out, local, outcome, Value());
    }
    // (Failed here is fail_grain's: a Grain that ran and failed, counted in `failed`.)
    if (outcome != Outcome::Failed) count_not_run(call, outcome);
    store_.seal(call, local, event);
}

void Resolver::make_ready(CallId call, std::uint32_t local) {
    const CallSpec& spec = *store_.layout(call).spec;
    const EntityId entity = store_.entity_of(spec.domain, local);
    if (store_.doomed(entity) || committer_.barred(call, entity)) {
        seal_without_running(call, local, Outcome::Suppressed, GrainEvent::Resolve);
        return;
    }
    GrainCell& g = store_.grain(call, local);
    const auto next = grain_transition(g.phase, GrainEvent::InputsRunnable);
    if (!next) throw ContractError("bug: call '" + spec.name + "': ready twice");
    g.phase = *next;
    scheduler_.enqueue_ready(call, local);
}

}  // namespace rop::runtime::detail
