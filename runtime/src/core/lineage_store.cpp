// The lineage store (lineage_store.h): entities, exactly-once Item publication, payload slots
// with per-Item consumer counts, Grain sealing, expansions and per-root completion.
#include "lineage_store.h"

#include <algorithm>
#include <string>

namespace rop::runtime::detail {

void throw_released(std::size_t id, std::size_t base) {
    throw ContractError("bug: lineage row " + std::to_string(id) +
                        " read after its root was released (rows below " + std::to_string(base) +
                        " are gone)");
}

// A payload-slot table this large is released when its last payload is (see release_ref).
constexpr std::size_t kTrimSlots = 4096;

LineageStore::LineageStore(const Plan& plan, const RunOptions& options, StoreListener& listener)
    : plan_(plan),
      options_(options),
      listener_(listener),
      counts_(plan.calls.size()),
      barrier_count_(plan.calls.size(), 0) {
    const std::size_t nd = plan.domains.size();
    domain_members_.resize(nd);
    domain_calls_.resize(nd);
    domain_ports_.resize(nd);
    domain_reducers_.resize(nd);
    expansion_of_domain_.assign(nd, -1);
    ports_.resize(plan.ports.size());
    for (std::size_t p = 0; p < plan.ports.size(); ++p) {
        ports_[p].domain = plan.ports[p].domain;
        domain_ports_[plan.ports[p].domain].push_back(static_cast<PortId>(p));
    }
    const std::size_t nc = plan.calls.size();
    layouts_.resize(nc);
    grains_.resize(nc);
    members_pending_.resize(nc);
    groups_.resize(nc);
    broadcast_waiting_.resize(nc);
    for (std::size_t i = 0; i < nc; ++i) {
        const auto c = static_cast<CallId>(i);
        const CallSpec& spec = plan.calls[i];
        CallLayout& cl = layouts_[i];
        cl.spec = &spec;
        for (const CallInput& in : spec.inputs) cl.modes.push_back(in.mode);
        domain_calls_[spec.domain].push_back(c);
        cl.inline_call =
            spec.kind == CallKind::Broadcast || (spec.kind == CallKind::Reduce && !spec.factory);
        switch (spec.kind) {
            case CallKind::Map:
            case CallKind::Filter:
            case CallKind::Expand:
                for (std::size_t k = 0; k < spec.inputs.size(); ++k) {
                    ports_[spec.inputs[k].port].direct.push_back(
                        {c, static_cast<std::uint32_t>(k)});
                    ++ports_[spec.inputs[k].port].refs;
                }
                break;
            case CallKind::Reduce: {
                const PortId in = spec.inputs[0].port;
                ports_[in].reducers.push_back(c);
                ++ports_[in].refs;
                domain_reducers_[plan.ports[in].domain].push_back(c);
                skip_reduces_ = skip_reduces_ || spec.options.on_failure == OnFailure::Skip;
                break;
            }
            case CallKind::Broadcast: ports_[spec.inputs[0].port].broadcasters.push_back(c); break;
            case CallKind::Source:
            case CallKind::Sink: break;  // not in a Plan (PlanBuilder refuses them)
        }
        if (spec.kind == CallKind::Expand) {
            ExpansionTable table;
            table.call = c;
            table.child_domain = plan.ports[spec.outputs[0]].domain;
            cl.expansion = static_cast<int>(expansions_.size());
            expansion_of_domain_[table.child_domain] = cl.expansion;
            expansions_.push_back(std::move(table));
        }
    }
    for (std::size_t i = 0; i < nc; ++i) {
        const CallSpec& spec = plan.calls[i];
        if (spec.kind != CallKind::Reduce) continue;
        const int x = expansion_of_domain_[plan.ports[spec.inputs[0].port].domain];
        if (x < 0) throw ContractError("run: reduce '" + spec.name + "' has no expand");
        layouts_[i].expansion = x;
        expansions_[static_cast<std::size_t>(x)].reducers.push_back(static_cast<CallId>(i));
        // A reduce with a UDF sees the parent's value (Batch::parent): the paired expand's
        // first input Item is held for it until the reduce resolves.
        const CallSpec& expand = plan.calls[expansions_[static_cast<std::size_t>(x)].call];
        if (!layouts_[i].inline_call && !expand.inputs.empty()) {
            layouts_[i].parent_port = expand.inputs[0].port;
            layouts_[i].has_parent_port = true;
            ++ports_[expand.inputs[0].port].refs;
        }
    }
    if (!options.sinks.empty() || !options.root_sinks.empty()) {
        for (const SinkBinding& sink : options.sinks) {
            if (sink.port >= ports_.size()) throw ContractError("run: sink on an unknown port");
            ports_[sink.port].result = true;
            ports_[sink.port].sinks.push_back(&sink);
        }
        for (std::size_t i = 0; i < options.root_sinks.size(); ++i) {
            const RootSinkBinding& sink = options.root_sinks[i];
            if (sink.port >= ports_.size()) throw ContractError("run: sink on an unknown port");
            if (!sink.write_root) throw ContractError("run: root sink without write_root");
            ports_[sink.port].result = true;
            ports_[sink.port].root_sinks.push_back(static_cast<std::uint32_t>(i));
        }
    } else {
        for (PortState& ps : ports_) {
            ps.result = ps.direct.empty() && ps.reducers.empty() && ps.broadcasters.empty();
        }
    }
}

std::uint32_t LineageStore::admit_root(std::string name, Value value) {
    const std::uint32_t ordinal = next_ordinal();
    RootState& root = roots_.emplace_back();
    root.admitted = Clock::now();
    root.result.name = std::move(name);
    ++inflight_roots_;
    const EntityId id = create_entity(0, kNoEntity, ordinal);
    roots_[ordinal].entity = id;
    publish(plan_.source_port, local_[id], Outcome::Present, std::move(value));
    return ordinal;
}

void LineageStore::add_done_root(RootResult result) {
    RootState& root = roots_.emplace_back();
    root.done = true;
    root.result = std::move(result);
    ++roots_done_;
    ++done_since_release_;
}

void LineageStore::fail_root_at_sink(std::uint32_t ordinal, const std::string& reason) {
    RootResult& result = roots_[ordinal].result;
    if (result.status == RootStatus::Failed) return;
    result.status = RootStatus::Failed;
    result.failed_call.clear();
    result.reason = reason;
    result.attempts = 1;
}

std::size_t LineageStore::fail_unfinished(const std::string& reason) {
    std::size_t unfinished = 0;
    for (std::size_t r = roots_.base(); r < roots_.end(); ++r) {
        RootResult& result = roots_[r].result;
        if (roots_[r].done) continue;
        ++unfinished;
        if (result.status == RootStatus::Failed) continue;
        result.status = RootStatus::Failed;
        result.reason = reason;
    }
    return unfinished;
}

void LineageStore::complete_if_idle(std::uint32_t ordinal) {
    if (roots_.released(ordinal)) return;
    RootState& root = roots_[ordinal];
    if (!root.done && root.pending == 0) root_done(root);
}

void LineageStore::release_pins(RootState& root) {
    for (const auto& [port, local] : root.pins) release_ref(port, local);
    root.pins.clear();
    root.pins.shrink_to_fit();
}

EntityPath LineageStore::path(EntityId e) const {
    EntityPath p;
    for (; parent_[e] != kNoEntity; e = parent_[e]) p.push_back(ordinal_[e]);
    std::reverse(p.begin(), p.end());
    return p;
}

EntityId LineageStore::create_entity(DomainId domain, EntityId parent, std::uint32_t ordinal) {
    const auto id = static_cast<EntityId>(domain_.end());
    if (id == kNoEntity) throw ContractError("run: too many entities for 32-bit ids");
    const auto local = static_cast<std::uint32_t>(domain_members_[domain].end());
    domain_.push_back(domain);
    parent_.push_back(parent);
    ordinal_.push_back(ordinal);
    root_ordinal_.push_back(parent == kNoEntity ? ordinal : root_ordinal_[parent]);
    local_.push_back(local);
    doomed_.push_back(0);
    domain_members_[domain].push_back(id);
    for (PortId p : domain_ports_[domain]) {
        ports_[p].outcome.push_back(Outcome::Unresolved);
        ports_[p].slot.push_back(kNoSlot);
    }
    RootState& r = roots_[root_ordinal_[id]];
    r.pending += static_cast<std::uint32_t>(domain_calls_[domain].size());
    r.grains += static_cast<std::uint32_t>(domain_calls_[domain].size());
    for (CallId c : domain_calls_[domain]) {
        const CallLayout& cl = layouts_[c];
        GrainCell cell;
        switch (cl.spec->kind) {
            case CallKind::Map:
            case CallKind::Filter:
            case CallKind::Expand:
                cell.waiting = static_cast<std::uint8_t>(cl.spec->inputs.size());
                break;
            default: break;
        }
        grains_[c].push_back(cell);
        if (cl.spec->kind == CallKind::Reduce) members_pending_[c].push_back(1);
        if (cl.spec->kind == CallKind::Expand) {
            ExpansionTable& x = expansions_[static_cast<std::size_t>(cl.expansion)];
            x.state.push_back(ExpansionState::Pending);
            x.children.emplace_back();
        }
        if (cl.spec->kind == CallKind::Broadcast) {
            const PortId p = cl.spec->inputs[0].port;
            EntityId ancestor = id;
            while (domain_[ancestor] != ports_[p].domain) ancestor = parent_[ancestor];
            if (ports_[p].outcome[local_[ancestor]] != Outcome::Unresolved) {
                work_.push_back({c, local});
            } else {
                broadcast_waiting_[c][ancestor].push_back(local);
            }
        }
    }
    if (parent != kNoEntity) {
        for (CallId reducer : domain_reducers_[domain]) {
            ++members_pending_[reducer][local_[parent]];
        }
    }
    return id;
}

void LineageStore::publish(PortId port, std::uint32_t local, Outcome outcome, Value value) {
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
            throw ContractError("bug: conflicting publication on port '" + plan_.ports[port].name +
                                "' entity " + std::to_string(entity_of(ps.domain, local)) + ": " +
                                to_string(current) + " then " + to_string(outcome));
    }
    current = outcome;
    const EntityId entity = entity_of(ps.domain, local);
    if (options_.observer) options_.observer->on_item(port, entity, outcome, value);
    if (outcome == Outcome::Present) {
        RootState& r = roots_[root_ordinal_[entity]];
        if (ps.result) r.any_result = true;
        if (!ps.root_sinks.empty()) listener_.root_item(ps.root_sinks, entity, value);
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
            peak_live_bytes_ = std::max(peak_live_bytes_, live_bytes_);
            peak_live_items_ = std::max(peak_live_items_, ++live_slots_);
            if (pin) r.pins.emplace_back(port, local);
        }
    }
    for (const Consumer& c : ps.direct) {
        if (--grains_[c.call][local].waiting == 0) work_.push_back({c.call, local});
    }
    if (!ps.reducers.empty()) {
        const std::uint32_t parent_local = local_[parent_[entity]];
        for (CallId r : ps.reducers) {
            if (--members_pending_[r][parent_local] == 0) work_.push_back({r, parent_local});
        }
    }
    for (CallId b : ps.broadcasters) {
        auto& waiting = broadcast_waiting_[b];
        auto it = waiting.find(entity);
        if (it == waiting.end()) continue;
        for (std::uint32_t l : it->second) work_.push_back({b, l});
        waiting.erase(it);
    }
}

void LineageStore::release_ref(PortId port, std::uint32_t local) {
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

void LineageStore::throw_bad_event(CallId call, std::uint32_t local, GrainEvent event,
                                   GrainPhase phase) const {
    throw ContractError("bug: call '" + layouts_[call].spec->name + "' grain " +
                        std::to_string(local) + ": event " + to_string(event) + " in phase " +
                        to_string(phase));
}

void LineageStore::seal_without_running(CallId call, std::uint32_t local, Outcome outcome,
                                        GrainEvent event) {
    const CallSpec& spec = *layouts_[call].spec;
    if (spec.kind == CallKind::Expand) {
        set_expansion(
            call, local,
            outcome == Outcome::Dropped ? ExpansionState::Dropped : ExpansionState::Failed);
    } else {
        for (PortId out : spec.outputs) publish(out, local, outcome, Value());
    }
    advance(call, local, event, outcome);
}

std::uint32_t LineageStore::count_attempt(CallId call, std::uint32_t local) {
    GrainCell& g = grains_[call][local];
    if (g.attempts < 255) ++g.attempts;
    return g.attempts;
}

std::uint32_t LineageStore::count_infra(CallId call, std::uint32_t local) {
    GrainCell& g = grains_[call][local];
    if (g.infra < 255) ++g.infra;
    return g.infra;
}

// What a sealed Grain counts as (CallCounters): a Grain that ran is one of `grains` (a filter
// that said no is `dropped` too; a failure is counted where it is recorded); one that did not
// run, or whose result was discarded, is `suppressed` when it ends FAILED or SUPPRESSED (a filter
// or broadcast passes a FAILED input on unchanged, as a map in its place would be SUPPRESSED)
// and `dropped` when it ends DROPPED; an inline Grain that resolved PRESENT (broadcast, a reduce
// without a UDF) counts as neither.
void LineageStore::count_sealed(CallId call, GrainEvent event, Outcome sealed) {
    OutcomeCounts& c = counts_[call];
    const bool ran = event == GrainEvent::Commit && sealed != Outcome::Suppressed;
    if (ran) ++c.grains;
    if (sealed == Outcome::Dropped) ++c.dropped;
    if (!ran && (sealed == Outcome::Failed || sealed == Outcome::Suppressed)) ++c.suppressed;
}

void LineageStore::seal(CallId call, std::uint32_t local, GrainEvent event, Outcome sealed) {
    const CallSpec& spec = *layouts_[call].spec;
    if (sealed == Outcome::Unresolved) {
        throw ContractError("bug: call '" + spec.name + "' grain " + std::to_string(local) +
                            ": sealed by " + to_string(event) + " without an outcome");
    }
    count_sealed(call, event, sealed);
    GrainCell& g = grains_[call][local];
    g.phase = GrainPhase::Sealed;
    switch (spec.kind) {
        case CallKind::Map:
        case CallKind::Filter:
        case CallKind::Expand:
            for (const CallInput& in : spec.inputs) release_ref(in.port, local);
            break;
        case CallKind::Reduce: groups_[call].erase(local); break;
        case CallKind::Broadcast:
        case CallKind::Source:
        case CallKind::Sink: break;
    }
    RootState& r = roots_[root_ordinal_[entity_of(spec.domain, local)]];
    ++grains_sealed_;
    if (--r.pending == 0) root_done(r);
}

void LineageStore::record_failure(CallId call, std::uint32_t local, const std::string& reason,
                                  std::uint32_t attempts) {
    const CallSpec& spec = *layouts_[call].spec;
    ++counts_[call].failed;
    const EntityId entity = entity_of(spec.domain, local);
    RootState& r = roots_[root_ordinal_[entity]];
    if (skip_reduces_) {  // a skip-reduce may absorb it: judged at root_done
        r.failures.push_back({entity, call, reason, attempts});
        return;
    }
    if (r.result.status == RootStatus::Failed) return;  // the first failure is reported
    r.result.status = RootStatus::Failed;
    r.result.failed_call = spec.name;
    r.result.reason = reason;
    r.result.attempts = attempts;
}

void LineageStore::root_done(RootState& root) {
    root.done = true;
    --inflight_roots_;
    ++roots_done_;
    ++done_since_release_;
    ++done_roots_run_;
    done_root_grains_ += root.grains;
    root.expected.clear();
    root.expected.shrink_to_fit();
    root.result.latency_s = std::chrono::duration<double>(Clock::now() - root.admitted).count();
    if (skip_reduces_) judge_failures(root);
    if (root.result.status != RootStatus::Failed) {
        root.result.status = root.any_result ? RootStatus::Ok : RootStatus::Dropped;
    }
    listener_.root_complete(root);  // sinks, journal line, observer
    release_pins(root);
}

void LineageStore::install_barrier(CallId call, EntityId entity) {
    if (parent_[entity] == kNoEntity) return;
    if (barriers_.insert(barrier_key(call, parent_[entity])).second) ++barrier_count_[call];
}

bool LineageStore::group_failed(EntityId parent, std::span<const Outcome> members) const {
    bool failed = false;
    for (Outcome m : members) failed = failed || reduce_skips(m, OnFailure::Skip);
    if (!failed) return false;
    for (CallId c = 0; c < barrier_count_.size(); ++c) {
        if (barrier_count_[c] != 0 && barriers_.count(barrier_key(c, parent)) != 0) return true;
    }
    return false;
}

std::string LineageStore::record_skip(CallId call, EntityId member) {
    RootState& root = roots_[root_ordinal_[member]];
    std::string reason = skip_reason(root, member);
    root.skips.push_back({member, call, reason});
    ++counts_[call].skipped_members;
    return reason;
}

void LineageStore::record_strict_parent(EntityId parent) {
    roots_[root_ordinal_[parent]].strict_parents.push_back(parent);
}

// Why a skip-reduce left `child` out: the failure recorded for the child itself, else the first
// one recorded below it (a failed line under a suppressed page), else "suppressed" (a sibling's
// GroupFailure, a barrier). The root's failures are few; nothing is stored per child.
std::string LineageStore::skip_reason(const RootState& root, EntityId child) const {
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
void LineageStore::judge_failures(RootState& root) {
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
            root.result.failed_call = layouts_[f.call].spec->name;
            root.result.reason = f.reason;
            root.result.attempts = f.attempts;
        }
        break;
    }
    for (const SkipRecord& s : root.skips) {
        root.result.skipped.push_back({layouts_[s.call].spec->name, ordinal_[s.child], s.reason});
    }
    root.result.partial = root.result.status != RootStatus::Failed && !root.skips.empty();
    root.failures = {};
    root.skips = {};
    root.strict_parents = {};
}

void LineageStore::set_expansion(CallId expand, std::uint32_t local, ExpansionState state) {
    ExpansionTable& x = expansions_[static_cast<std::size_t>(layouts_[expand].expansion)];
    if (x.state[local] != ExpansionState::Pending) {
        throw ContractError("bug: expansion of call '" + layouts_[expand].spec->name +
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
            ++dooms_;
            for (const ExpansionTable& below : expansions_) {
                if (layouts_[below.call].spec->domain != domain_[e]) continue;
                const auto& kids = below.children[local_[e]];
                stack.insert(stack.end(), kids.begin(), kids.end());
            }
        }
    }
    for (CallId r : x.reducers) {
        if (--members_pending_[r][local] == 0) work_.push_back({r, local});
    }
}

void LineageStore::add_child(CallId expand, std::uint32_t local, std::uint32_t ordinal,
                             Value value) {
    const auto xi = static_cast<std::size_t>(layouts_[expand].expansion);
    if (expansions_[xi].state[local] != ExpansionState::Pending) return;
    const std::size_t have = expansions_[xi].children[local].size();
    if (ordinal < have) return;  // re-emitted by a replay: already a fact
    if (ordinal > have) {
        throw ContractError("bug: call '" + layouts_[expand].spec->name + "' child ordinal gap");
    }
    const CallSpec& spec = *layouts_[expand].spec;
    const EntityId parent = entity_of(spec.domain, local);
    const EntityId child = create_entity(expansions_[xi].child_domain, parent, ordinal);
    expansions_[xi].children[local].push_back(child);
    publish(spec.outputs[0], local_[child], Outcome::Present, std::move(value));
}

void LineageStore::expect_children(CallId expand, std::uint32_t local, std::uint64_t children) {
    RootState& r = roots_[root_ordinal_[entity_of(layouts_[expand].spec->domain, local)]];
    for (ExpectedChildren& e : r.expected) {
        if (e.expand == expand && e.local == local) {
            e.children = children;
            return;
        }
    }
    r.expected.push_back({expand, local, children});
}

// The roots in flight: their Grains so far, plus one Grain per Call of the child Domain for each
// child a still-streaming expansion announced and has not emitted. Once per progress interval;
// the hints are few (one per announcing expand Grain of a root in flight).
ProgressWork LineageStore::work() const {
    ProgressWork w;
    w.sealed = grains_sealed_;
    w.done_roots = done_roots_run_;
    w.done_root_grains = done_root_grains_;
    for (std::size_t i = roots_.base(); i < roots_.end(); ++i) {
        const RootState& r = roots_[i];
        if (r.done) continue;
        w.inflight_grains += r.grains;
        double estimate = r.grains;
        for (const ExpectedChildren& e : r.expected) {
            const ExpansionTable& x =
                expansions_[static_cast<std::size_t>(layouts_[e.expand].expansion)];
            if (x.state[e.local] != ExpansionState::Pending) continue;  // its count is final
            const std::size_t emitted = x.children[e.local].size();
            if (e.children <= emitted) continue;
            estimate += static_cast<double>(e.children - emitted) *
                        static_cast<double>(domain_calls_[x.child_domain].size());
        }
        w.inflight_estimate += estimate;
    }
    return w;
}

// Bytes held by the lineage tables (capacity, not size: what the process really holds).
std::size_t LineageStore::lineage_bytes() const {
    std::size_t total = domain_.capacity_bytes() + parent_.capacity_bytes() +
                        ordinal_.capacity_bytes() + root_ordinal_.capacity_bytes() +
                        local_.capacity_bytes() + doomed_.capacity_bytes() +
                        roots_.capacity_bytes();
    for (const auto& members : domain_members_) total += members.capacity_bytes();
    for (const PortState& ps : ports_) {
        total += ps.outcome.capacity_bytes() + ps.slot.capacity_bytes();
    }
    for (std::size_t c = 0; c < grains_.size(); ++c) {
        total += grains_[c].capacity_bytes() + members_pending_[c].capacity_bytes();
    }
    for (const ExpansionTable& x : expansions_) {
        total += x.state.capacity_bytes() + x.children.capacity_bytes();
        for (const auto& kids : x.children.stored()) total += kids.capacity() * sizeof(EntityId);
    }
    return std::max(total, peak_lineage_bytes_);
}

// The oldest roots that are done go first (their results kept or tallied), then, per table,
// the longest run of oldest rows whose roots are done: an entity's root is done when its
// ordinal is released or its state says so. A root still in flight stops the run, so a slow
// root keeps what was created after it until it finishes (docs/runtime.md "Memory").
void LineageStore::release_done() {
    done_since_release_ = 0;
    peak_lineage_bytes_ = lineage_bytes();
    std::size_t r = roots_.base();
    for (; r < roots_.end() && roots_[r].done; ++r) {
        file_result(roots_[r].result);
        roots_[r] = RootState{};  // its vectors and strings go now, not at the next compaction
    }
    roots_.release_to(r);
    auto dead = [&](EntityId e) { return domain_.released(e) || root_done(root_ordinal_[e]); };
    std::size_t e = domain_.base();
    while (e < domain_.end() && dead(static_cast<EntityId>(e))) ++e;
    for (std::size_t d = 0; d < domain_members_.size(); ++d) {
        IdWindow<EntityId>& members = domain_members_[d];
        std::size_t l = members.base();
        while (l < members.end() && dead(members[l])) ++l;
        members.release_to(l);
        for (PortId p : domain_ports_[d]) {
            ports_[p].outcome.release_to(l);
            ports_[p].slot.release_to(l);
        }
        for (CallId c : domain_calls_[d]) {
            grains_[c].release_to(l);
            if (layouts_[c].spec->kind == CallKind::Reduce) members_pending_[c].release_to(l);
            if (layouts_[c].spec->kind == CallKind::Expand) {
                ExpansionTable& x = expansions_[static_cast<std::size_t>(layouts_[c].expansion)];
                // Move-assigned, not `= {}`: assigning an empty list keeps the capacity, and a
                // released row stays until its table is compacted (2,730 rows: 128 KiB a row for
                // roots of 20,000 children).
                for (std::size_t k = x.children.base(); k < l; ++k) {
                    x.children[k] = std::vector<EntityId>();
                }
                x.state.release_to(l);
                x.children.release_to(l);
            }
        }
    }
    domain_.release_to(e);
    parent_.release_to(e);
    ordinal_.release_to(e);
    root_ordinal_.release_to(e);
    local_.release_to(e);
    doomed_.release_to(e);
}

// A finished root's result, in ordinal order: handed to RunOptions::on_root_result (kept only
// among the first few failures), kept for the report, or tallied when the report lists only
// failed and partial roots.
void LineageStore::file_result(RootResult& result) {
    const bool failed = result.status == RootStatus::Failed;
    if (options_.on_root_result) {
        options_.on_root_result(result);
        if (failed && kept_failures_ < options_.keep_failed_results) {
            ++kept_failures_;
            released_results_.push_back(std::move(result));
            return;
        }
    } else if (options_.report_ok_roots || failed || result.partial) {
        released_results_.push_back(std::move(result));
        return;
    }
    ++(failed ? omitted_.failed : result.status == RootStatus::Ok ? omitted_.ok : omitted_.dropped);
    if (result.resumed) {
        ++omitted_.resumed;
    } else {
        omitted_.latency.add(result.latency_s);
    }
}

std::vector<RootResult> LineageStore::take_results() {
    for (std::size_t r = roots_.base(); r < roots_.end(); ++r) {
        // Unfinished ones (interrupted, aborted) are failed by now (Engine::run).
        file_result(roots_[r].result);
    }
    return std::move(released_results_);
}

}  // namespace rop::runtime::detail
