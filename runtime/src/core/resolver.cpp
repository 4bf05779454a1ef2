// The resolver (resolver.h): the Call input algebra, filter, broadcast, expand and reduce rules
// (pure functions in transitions.h) applied to Grains whose inputs became terminal.
#include "resolver.h"

#include <string>

namespace rop::runtime::detail {

// FIFO, so that Grains become READY in the order their inputs resolved (children in ordinal
// order). resolve() may add tasks; it never calls drain() itself.
void Resolver::drain() {
    store_.drain_tasks([this](const Task& task) { resolve(task.call, task.local); });
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
            store_.advance(call, local, GrainEvent::Resolve, outcome);
            return;
        }
        case CallKind::Filter: {
            const Outcome source = store_.outcome(spec.inputs[0].port, local);
            if (filter_runs_predicate(source)) {
                make_ready(call, local);
            } else {
                store_.seal_without_running(call, local, filter_outcome(source, false),
                                            GrainEvent::Resolve);
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
                store_.seal_without_running(call, local, outcome_of(verdict), GrainEvent::Resolve);
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
                store_.group_failed(store_.entity_of(spec.domain, local), scratch_)) {
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
                        group.skipped.push_back({store_.ordinal(m), store_.record_skip(call, m)});
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
                store_.record_strict_parent(store_.entity_of(spec.domain, local));
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
                store_.seal_without_running(call, local, outcome_of(verdict), GrainEvent::Resolve);
            } else if (cl.inline_call) {
                store_.publish(spec.outputs[0], local, Outcome::Present,
                               Value::of(std::move(group)));
                store_.advance(call, local, GrainEvent::Resolve, Outcome::Present);
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

void Resolver::make_ready(CallId call, std::uint32_t local) {
    const CallSpec& spec = *store_.layout(call).spec;
    if (store_.suppressed(call, store_.entity_of(spec.domain, local))) {
        store_.seal_without_running(call, local, Outcome::Suppressed, GrainEvent::Resolve);
        return;
    }
    store_.advance(call, local, GrainEvent::InputsRunnable);
    ready_.enqueue_ready(call, local);
}

}  // namespace rop::runtime::detail
