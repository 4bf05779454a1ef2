// The lineage store half of the Engine: entities, exactly-once Item publication, payload slots
// with per-Item consumer counts, Grain sealing and per-root completion.
#include <string>

#include "engine.h"

namespace rop::runtime::detail {

// A payload-slot table this large is released when its last payload is (see release_ref).
constexpr std::size_t kTrimSlots = 4096;

EntityId Engine::create_entity(DomainId domain, EntityId parent, std::uint32_t ordinal,
                               EntityId root) {
    const auto id = static_cast<EntityId>(domain_.size());
    if (id == kNoEntity) throw ContractError("run: too many entities for 32-bit ids");
    const auto local = static_cast<std::uint32_t>(domain_members_[domain].size());
    domain_.push_back(domain);
    parent_.push_back(parent);
    ordinal_.push_back(ordinal);
    root_.push_back(root == kNoEntity ? id : root);
    local_.push_back(local);
    doomed_.push_back(0);
    domain_members_[domain].push_back(id);
    for (PortId p : domain_ports_[domain]) {
        ports_[p].outcome.push_back(Outcome::Unresolved);
        ports_[p].slot.push_back(kNoSlot);
    }
    RootState& r = root_of(id);
    r.pending += static_cast<std::uint32_t>(domain_calls_[domain].size());
    for (CallId c : domain_calls_[domain]) {
        CallState& cs = calls_[c];
        GrainCell cell;
        switch (cs.spec->kind) {
            case CallKind::Map:
            case CallKind::Filter:
            case CallKind::Expand:
                cell.waiting = static_cast<std::uint8_t>(cs.spec->inputs.size());
                break;
            default: break;
        }
        cs.grains.push_back(cell);
        if (cs.spec->kind == CallKind::Reduce) cs.members_pending.push_back(1);
        if (cs.spec->kind == CallKind::Expand) {
            ExpansionTable& x = expansions_[static_cast<std::size_t>(cs.expansion)];
            x.state.push_back(ExpansionState::Pending);
            x.children.emplace_back();
        }
        if (cs.spec->kind == CallKind::Broadcast) {
            const PortId p = cs.spec->inputs[0].port;
            EntityId ancestor = id;
            while (domain_[ancestor] != ports_[p].domain) ancestor = parent_[ancestor];
            if (ports_[p].outcome[local_[ancestor]] != Outcome::Unresolved) {
                work_.push_back({c, local});
            } else {
                cs.broadcast_waiting[ancestor].push_back(local);
            }
        }
    }
    if (parent != kNoEntity) {
        for (CallId reducer : domain_reducers_[domain]) {
            ++calls_[reducer].members_pending[local_[parent]];
        }
    }
    return id;
}

void Engine::publish(PortId port, std::uint32_t local, Outcome outcome, Value value) {
    PortState& ps = ports_[port];
    Outcome& current = ps.outcome[local];
    const std::uint32_t held = ps.slot[local];
    const bool same = current == Outcome::Present
                          ? held != kNoSlot && payloads_[held].value.same_object(value)
                          : !value.has_value();
    switch (publish_item(current, outcome, same)) {
        case Publication::Accept: break;
        case Publication::Duplicate: return;
        case Publication::Conflict:
            throw ContractError("bug: conflicting publication on port '" +
                                plan_.ports[port].name + "' entity " +
                                std::to_string(entity_of(ps.domain, local)) + ": " +
                                to_string(current) + " then " + to_string(outcome));
    }
    current = outcome;
    const EntityId entity = entity_of(ps.domain, local);
    if (options_.observer) options_.observer->on_item(port, entity, outcome, value);
    if (outcome == Outcome::Present) {
        RootState& r = root_of(entity);
        if (ps.result) r.any_result = true;
        if (!ps.root_sinks.empty()) buffer_for_sinks(ps, entity, value);
        for (const SinkBinding* sink : ps.sinks) sink->consume(entity, value);
        const bool pin = !ps.broadcasters.empty();
        const std::uint32_t refs = ps.refs + (pin ? 1 : 0);
        if (refs > 0) {
            std::uint32_t slot;
            if (free_slots_.empty()) {
                slot = static_cast<std::uint32_t>(payloads_.size());
                payloads_.emplace_back();
            } else {
                slot = free_slots_.back();
                free_slots_.pop_back();
            }
            PayloadSlot& s = payloads_[slot];
            s.bytes = static_cast<std::uint32_t>(value.byte_size());
            s.refs = refs;
            s.value = std::move(value);
            ps.slot[local] = slot;
            live_bytes_ += s.bytes;
            if (++live_slots_ > report_.peak_live_items) report_.peak_live_items = live_slots_;
            if (pin) r.pins.emplace_back(port, local);
        }
    }
    for (const Consumer& c : ps.direct) {
        if (--calls_[c.call].grains[local].waiting == 0) work_.push_back({c.call, local});
    }
    if (!ps.reducers.empty()) {
        const std::uint32_t parent_local = local_[parent_[entity]];
        for (CallId r : ps.reducers) {
            if (--calls_[r].members_pending[parent_local] == 0) work_.push_back({r, parent_local});
        }
    }
    for (CallId b : ps.broadcasters) {
        auto& waiting = calls_[b].broadcast_waiting;
        auto it = waiting.find(entity);
        if (it == waiting.end()) continue;
        for (std::uint32_t l : it->second) work_.push_back({b, l});
        waiting.erase(it);
    }
}

void Engine::release_ref(PortId port, std::uint32_t local) {
    PortState& ps = ports_[port];
    const std::uint32_t slot = ps.slot[local];
    if (slot == kNoSlot) return;
    PayloadSlot& s = payloads_[slot];
    if (--s.refs > 0) return;
    s.value = Value();
    live_bytes_ -= s.bytes;
    ps.slot[local] = kNoSlot;
    if (--live_slots_ == 0 && payloads_.size() >= kTrimSlots) {
        // Every payload is gone: give the table sized for the peak back (100 roots x 10k
        // children hold a million map outputs until their reduces; 36 bytes a slot).
        std::vector<PayloadSlot>().swap(payloads_);  // (= {} would keep the capacity)
        std::vector<std::uint32_t>().swap(free_slots_);
        return;
    }
    free_slots_.push_back(slot);
}

void Engine::seal(CallId call, std::uint32_t local, GrainEvent event) {
    CallState& cs = calls_[call];
    GrainCell& g = cs.grains[local];
    const auto next = grain_transition(g.phase, event);
    if (!next || *next != GrainPhase::Sealed) {
        throw ContractError("bug: call '" + cs.spec->name + "' grain " + std::to_string(local) +
                            ": event " + to_string(event) + " in phase " + to_string(g.phase));
    }
    g.phase = GrainPhase::Sealed;
    switch (cs.spec->kind) {
        case CallKind::Map:
        case CallKind::Filter:
        case CallKind::Expand:
            for (const CallInput& in : cs.spec->inputs) release_ref(in.port, local);
            break;
        case CallKind::Reduce: cs.groups.erase(local); break;
        case CallKind::Broadcast: break;
    }
    RootState& r = root_of(entity_of(cs.spec->domain, local));
    if (--r.pending == 0) root_done(r);
}

void Engine::record_failure(CallId call, std::uint32_t local, const std::string& reason,
                            std::uint32_t attempts) {
    CallState& cs = calls_[call];
    ++cs.counters.failed;
    const EntityId entity = entity_of(cs.spec->domain, local);
    RootState& r = root_of(entity);
    if (skip_reduces_) {  // a skip-reduce may absorb it: judged at root_done
        r.failures.push_back({entity, call, reason, attempts});
        return;
    }
    if (r.result.status == RootStatus::Failed) return;  // the first failure is reported
    r.result.status = RootStatus::Failed;
    r.result.failed_call = cs.spec->name;
    r.result.reason = reason;
    r.result.attempts = attempts;
}

void Engine::root_done(RootState& root) {
    root.done = true;
    --inflight_roots_;
    ++roots_done_;
    const auto now = Clock::now();
    root.result.latency_s = std::chrono::duration<double>(now - root.admitted).count();
    if (!first_root_) {
        first_root_ = true;
        report_.time_to_first_root_s = std::chrono::duration<double>(now - start_).count();
    }
    if (skip_reduces_) judge_failures(root);
    if (root.result.status != RootStatus::Failed) {
        root.result.status = root.any_result ? RootStatus::Ok : RootStatus::Dropped;
    }
    // Sinks first, then the journal line: a root is journaled, and so skipped by --resume, only
    // once every sink holds its output (a crash in between replays it; restore() undoes it).
    if (!sink_buffers_.empty()) write_root_sinks(root);
    if (journal_) journal_root(root);
    for (const auto& [port, local] : root.pins) release_ref(port, local);
    root.pins.clear();
    root.pins.shrink_to_fit();
    if (options_.observer) options_.observer->on_root_done(root.entity);
}

// Why a skip-reduce left `child` out: the failure recorded for the child itself, else the first
// one recorded below it (a failed line under a suppressed page), else "suppressed" (a sibling's
// GroupFailure, a barrier). The root's failures are few; nothing is stored per child.
std::string Engine::skip_reason(const RootState& root, EntityId child) const {
    const FailureRecord* below = nullptr;
    for (const FailureRecord& f : root.failures) {
        if (f.entity == child) return f.reason;
        if (below != nullptr) continue;
        for (EntityId e = parent_[f.entity]; e != kNoEntity; e = parent_[e]) {
            if (e == child) {
                below = &f;
                break;
            }
        }
    }
    return below != nullptr ? below->reason : "suppressed";
}

// A failure is absorbed when a skip-reduce left out the child it happened in (or under), unless
// a suppress-reduce over the same parent's children suppressed its group on a member failure
// (that output is lost, so the root did fail). The first failure not absorbed fails the root,
// as without skip-reduces; otherwise a root with skipped members is partial.
void Engine::judge_failures(RootState& root) {
    auto skipped = [&](EntityId e) {
        for (const SkipRecord& s : root.skips) {
            if (s.child == e) return true;
        }
        return false;
    };
    auto strict = [&](EntityId parent) {
        for (EntityId p : root.strict_parents) {
            if (p == parent) return true;
        }
        return false;
    };
    auto absorbed = [&](EntityId failed) {
        for (EntityId e = failed; parent_[e] != kNoEntity; e = parent_[e]) {
            if (skipped(e) && !strict(parent_[e])) return true;
        }
        return false;
    };
    for (const FailureRecord& f : root.failures) {
        if (absorbed(f.entity)) continue;
        if (root.result.status != RootStatus::Failed) {
            root.result.status = RootStatus::Failed;
            root.result.failed_call = calls_[f.call].spec->name;
            root.result.reason = f.reason;
            root.result.attempts = f.attempts;
        }
        break;
    }
    for (const SkipRecord& s : root.skips) {
        root.result.skipped.push_back({calls_[s.call].spec->name, ordinal_[s.child], s.reason});
    }
    root.result.partial = root.result.status != RootStatus::Failed && !root.skips.empty();
    root.failures = {};
    root.skips = {};
    root.strict_parents = {};
}

}  // namespace rop::runtime::detail
