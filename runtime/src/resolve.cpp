// Resolution of Grains whose inputs became terminal: the Call input algebra, filter, broadcast,
// expand and reduce rules (pure functions in transitions.h), barriers and failed expansions.
#include <string>

#include "engine.h"

namespace rop::runtime::detail {
namespace {
std::uint64_t barrier_key(CallId call, EntityId parent) {
    return (static_cast<std::uint64_t>(call) << 32) | parent;
}
}  // namespace

// FIFO, so that Grains become READY in the order their inputs resolved (children in ordinal
// order). resolve() may append tasks; it never calls drain() itself.
void Engine::drain() {
    for (std::size_t i = 0; i < work_.size(); ++i) {
        const Task task = work_[i];
        resolve(task.call, task.local);
    }
    work_.clear();
}

// A Grain sealed without running: counted as `suppressed` when an input FAILED or was
// SUPPRESSED (a filter or broadcast passes a FAILED input on unchanged; a map in its place
// would be SUPPRESSED, and both count the same), `dropped` when its outputs are DROPPED.
void Engine::count_not_run(CallState& cs, Outcome outcome) {
    if (outcome == Outcome::Failed || outcome == Outcome::Suppressed) ++cs.counters.suppressed;
    if (outcome == Outcome::Dropped) ++cs.counters.dropped;
}

bool Engine::barred(CallId call, EntityId entity) const {
    if (calls_[call].barriers == 0 || parent_[entity] == kNoEntity) return false;
    return barriers_.count(barrier_key(call, parent_[entity])) != 0;
}

// Whether a GroupFailure barred some Call over the children of `parent` (only looked for when a
// member of a skip-reduce's group is FAILED or SUPPRESSED).
bool Engine::group_failed(EntityId parent, std::span<const Outcome> members) const {
    bool failed = false;
    for (Outcome m : members) failed = failed || reduce_skips(m, OnFailure::Skip);
    if (!failed) return false;
    for (CallId c = 0; c < calls_.size(); ++c) {
        if (calls_[c].barriers != 0 && barriers_.count(barrier_key(c, parent)) != 0) return true;
    }
    return false;
}

// A root has no siblings: a GroupFailure on a root-Domain Grain fails only that root.
void Engine::install_barrier(CallId call, EntityId entity) {
    if (parent_[entity] == kNoEntity) return;
    if (barriers_.insert(barrier_key(call, parent_[entity])).second) ++calls_[call].barriers;
}

void Engine::resolve(CallId call, std::uint32_t local) {
    CallState& cs = calls_[call];
    const CallSpec& spec = *cs.spec;
    switch (spec.kind) {
        case CallKind::Broadcast: {
            const PortId in = spec.inputs[0].port;
            EntityId ancestor = entity_of(spec.domain, local);
            while (domain_[ancestor] != ports_[in].domain) ancestor = parent_[ancestor];
            const std::uint32_t at = local_[ancestor];
            const Outcome source = ports_[in].outcome[at];
            const std::uint32_t slot = ports_[in].slot[at];
            Value value = source == Outcome::Present && slot != kNoSlot ? payloads_[slot].value
                                                                        : Value();
            const Outcome outcome = broadcast_outcome(source);
            publish(spec.outputs[0], local, outcome, std::move(value));
            count_not_run(cs, outcome);
            seal(call, local, GrainEvent::Resolve);
            return;
        }
        case CallKind::Filter: {
            const Outcome source = ports_[spec.inputs[0].port].outcome[local];
            if (filter_runs_predicate(source)) {
                make_ready(call, local);
            } else {
                const Outcome outcome = filter_outcome(source, false);
                publish(spec.outputs[0], local, outcome, Value());
                count_not_run(cs, outcome);  // as a map in its place counts it
                seal(call, local, GrainEvent::Resolve);
            }
            return;
        }
        case CallKind::Map:
        case CallKind::Expand: {
            scratch_.clear();
            for (const CallInput& in : spec.inputs) {
                scratch_.push_back(ports_[in.port].outcome[local]);
            }
            const InputVerdict verdict = call_input_verdict(cs.modes, scratch_);
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
            const ExpansionTable& x = expansions_[static_cast<std::size_t>(cs.expansion)];
            const PortId in = spec.inputs[0].port;
            const std::vector<EntityId>& members = x.children[local];
            scratch_.clear();
            for (EntityId m : members) scratch_.push_back(ports_[in].outcome[local_[m]]);
            OnFailure on_failure = spec.options.on_failure;
            if (on_failure == OnFailure::Skip &&
                group_failed(entity_of(spec.domain, local), scratch_)) {
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
                    const std::uint32_t slot = ports_[in].slot[local_[m]];
                    const Outcome member = ports_[in].outcome[local_[m]];
                    if (reduce_skips(member, on_failure)) {
                        RootState& root = root_of(m);
                        std::string reason = skip_reason(root, m);
                        group.skipped.push_back({ordinal_[m], reason});
                        root.skips.push_back({m, call, std::move(reason)});
                        ++cs.counters.skipped_members;
                    }
                    if (member != Outcome::Present) continue;
                    group.values.push_back(slot == kNoSlot ? Value() : payloads_[slot].value);
                    group.ordinals.push_back(ordinal_[m]);
                }
            }
            if (skip_reduces_ && verdict == ReduceVerdict::Suppress &&
                x.state[local] == ExpansionState::Succeeded) {
                // A suppress-reduce lost this parent's output to a member failure: no
                // skip-reduce over the same children absorbs that failure (judge_failures).
                const EntityId parent = entity_of(spec.domain, local);
                root_of(parent).strict_parents.push_back(parent);
            }
            for (EntityId m : members) release_ref(in, local_[m]);
            Value parent;
            if (cs.has_parent_port) {
                const PortState& pp = ports_[cs.parent_port];
                if (verdict == ReduceVerdict::Run && pp.outcome[local] == Outcome::Present &&
                    pp.slot[local] != kNoSlot) {
                    parent = payloads_[pp.slot[local]].value;  // a reference, not a copy
                }
                release_ref(cs.parent_port, local);
            }
            if (verdict != ReduceVerdict::Run) {
                seal_without_running(call, local, outcome_of(verdict), GrainEvent::Resolve);
            } else if (cs.inline_call) {
                publish(spec.outputs[0], local, Outcome::Present, Value::of(std::move(group)));
                seal(call, local, GrainEvent::Resolve);
            } else {
                cs.groups[local] = {Value::of(std::move(group)), std::move(parent)};
                make_ready(call, local);
            }
            return;
        }
    }
}

void Engine::seal_without_running(CallId call, std::uint32_t local, Outcome outcome,
                                  GrainEvent event) {
    CallState& cs = calls_[call];
    if (cs.spec->kind == CallKind::Expand) {
        set_expansion(call, local,
                      outcome == Outcome::Dropped ? ExpansionState::Dropped : ExpansionState::Failed);
    } else {
        for (PortId out : cs.spec->outputs) publish(out, local, outcome, Value());
    }
    // (Failed here is fail_grain's: a Grain that ran and failed, counted in `failed`.)
    if (outcome != Outcome::Failed) count_not_run(cs, outcome);
    seal(call, local, event);
}

void Engine::make_ready(CallId call, std::uint32_t local) {
    CallState& cs = calls_[call];
    const EntityId entity = entity_of(cs.spec->domain, local);
    if (doomed_[entity] || barred(call, entity)) {
        seal_without_running(call, local, Outcome::Suppressed, GrainEvent::Resolve);
        return;
    }
    GrainCell& g = cs.grains[local];
    const auto next = grain_transition(g.phase, GrainEvent::InputsRunnable);
    if (!next) throw ContractError("bug: call '" + cs.spec->name + "': ready twice");
    g.phase = *next;
    cs.ready.push_back(local);
}

void Engine::set_expansion(CallId expand, std::uint32_t local, ExpansionState state) {
    ExpansionTable& x = expansions_[static_cast<std::size_t>(calls_[expand].expansion)];
    if (x.state[local] != ExpansionState::Pending) {
        throw ContractError("bug: expansion of call '" + calls_[expand].spec->name +
                            "' terminal twice");
    }
    x.state[local] = state;
    if (state == ExpansionState::Failed && !x.children[local].empty()) {
        // Streaming expand failed after emitting: its children's not-yet-committed work is
        // suppressed (at dequeue, or fenced at commit). Committed facts stay.
        std::vector<EntityId> stack(x.children[local].begin(), x.children[local].end());
        while (!stack.empty()) {
            const EntityId e = stack.back();
            stack.pop_back();
            if (doomed_[e]) continue;
            doomed_[e] = 1;
            for (const ExpansionTable& below : expansions_) {
                if (calls_[below.call].spec->domain != domain_[e]) continue;
                const auto& kids = below.children[local_[e]];
                stack.insert(stack.end(), kids.begin(), kids.end());
            }
        }
    }
    for (CallId r : x.reducers) {
        if (--calls_[r].members_pending[local] == 0) work_.push_back({r, local});
    }
}

void Engine::add_child(CallId expand, std::uint32_t local, std::uint32_t ordinal, Value value) {
    const auto xi = static_cast<std::size_t>(calls_[expand].expansion);
    if (expansions_[xi].state[local] != ExpansionState::Pending) return;
    const std::size_t have = expansions_[xi].children[local].size();
    if (ordinal < have) return;  // re-emitted by a replay: already a fact
    if (ordinal > have) {
        throw ContractError("bug: call '" + calls_[expand].spec->name + "' child ordinal gap");
    }
    const EntityId parent = entity_of(calls_[expand].spec->domain, local);
    const EntityId child =
        create_entity(expansions_[xi].child_domain, parent, ordinal, root_[parent]);
    expansions_[xi].children[local].push_back(child);
    publish(calls_[expand].spec->outputs[0], local_[child], Outcome::Present, std::move(value));
}

}  // namespace rop::runtime::detail
