// The lineage store: entities, exactly-once Item publication, payload slots with per-Item
// consumer counts, Grain cells and their transitions, expansions, suppression barriers and
// per-root completion. It is the only writer of lineage facts: the other parts read it through
// const views and change it only through its checked operations (advance, publish, seal_...,
// set_expansion, add_child, install_barrier, record_...). SEMANTICS.md's rules on the facts (one
// publication per Item and port, legal Grain transitions, one terminal state per Expansion,
// gap-free child ordinals) are checked here, at its boundary, and a violation is a
// ContractError ("bug: ..."). It also counts what the facts say per Call (Grains that ran,
// suppressed, dropped, failed, skipped members): OutcomeCounts.
//
// Flat struct-of-arrays tables indexed by integer ids; one writer, the driver thread.
#pragma once

#include <chrono>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "id_window.h"
#include "rop/runtime/executor.h"
#include "rop/runtime/run.h"
#include "rop/runtime/transitions.h"

namespace rop::runtime::detail {

using Clock = std::chrono::steady_clock;
inline constexpr std::uint32_t kNoSlot = 0xffffffffu;

// Lineage state of one Grain: 6 bytes, indexed by the entity's index within its Domain.
struct GrainCell {
    GrainPhase phase = GrainPhase::Waiting;
    std::uint8_t waiting = 0;   // inputs not yet terminal (direct Calls)
    std::uint8_t attempts = 0;  // opaque-error failures so far
    std::uint8_t infra = 0;     // infra failures so far
    std::uint16_t generation = 0;
};
static_assert(sizeof(GrainCell) == 6, "GrainCell is the per-Grain lineage cost");

// A reduce Grain's input (the ReduceGroup) and its Batch::parent value, held until it seals.
struct ReadyGroup {
    Value group;
    Value parent;
};

struct Consumer {
    CallId call;
    std::uint32_t input;  // index among the Call's inputs
};

struct PortState {
    DomainId domain = 0;
    IdWindow<Outcome> outcome;         // by entity index in the Domain
    IdWindow<std::uint32_t> slot;      // payload slot, kNoSlot when none is held
    std::vector<Consumer> direct;      // map/filter/expand in the same Domain
    std::vector<CallId> reducers;      // reduce Calls over this port
    std::vector<CallId> broadcasters;  // broadcast Calls reading this port
    std::uint32_t refs = 0;            // pending consumers per item (direct + reduce)
    bool result = false;               // counts for Ok vs Dropped (sink or leaf port)
    std::vector<const SinkBinding*> sinks;
    std::vector<std::uint32_t> root_sinks;  // indexes into RunOptions::root_sinks
};

// What the plan says about a Call that lineage and resolution need (fixed for the run).
struct CallLayout {
    const CallSpec* spec = nullptr;
    std::vector<InputMode> modes;
    bool inline_call = false;  // broadcast, or reduce without a UDF: the driver resolves
    int expansion = -1;        // Expand: its ExpansionTable; Reduce: the one it pairs with
    PortId parent_port = 0;    // Reduce with UDF: the paired expand's first input port
    bool has_parent_port = false;
};

struct ExpansionTable {
    CallId call = 0;
    DomainId child_domain = 0;
    IdWindow<ExpansionState> state;            // by parent index in the parent Domain
    IdWindow<std::vector<EntityId>> children;  // ordinal order
    std::vector<CallId> reducers;
};

// A failure recorded in a root while the plan has a reduce with `on_failure skip`: judged when
// the root is done (absorbed by a skip-reduce, or the root's failure).
struct FailureRecord {
    EntityId entity;  // the failed Grain's entity
    CallId call;
    std::string reason;
    std::uint32_t attempts;
};

// A member a skip-reduce left out: the child entity, for judging failures below it.
struct SkipRecord {
    EntityId child;
    CallId call;
    std::string reason;
};

// An expansion's rop::expected_children hint (progress only).
struct ExpectedChildren {
    CallId expand = 0;
    std::uint32_t local = 0;  // the expand Grain (its parent entity's index in the Domain)
    std::uint64_t children = 0;
};

struct RootState {
    EntityId entity = kNoEntity;
    std::uint32_t pending = 0;               // unsealed Grains in the subtree
    std::uint32_t grains = 0;                // Grains created in the subtree (progress)
    std::vector<ExpectedChildren> expected;  // its expansions' hints (progress)
    std::vector<std::uint32_t> queued;       // per Call: its Grains queued READY (fairness)
    bool done = false;
    bool any_result = false;
    Clock::time_point admitted{};
    std::vector<std::pair<PortId, std::uint32_t>> pins;  // items held for broadcast until done
    // Only with a skip-reduce in the plan, and only on failures (nothing on the happy path):
    std::vector<FailureRecord> failures;  // in the order they were recorded
    std::vector<SkipRecord> skips;
    std::vector<EntityId> strict_parents;  // a suppress-reduce under it suppressed on a member
    RootResult result;
};

// A Grain whose inputs became terminal: the Resolver decides what happens to it.
struct Task {
    CallId call;
    std::uint32_t local;
};

// Resolves the store's pending tasks (the Resolver, through the Engine): what a part calls after
// facts that may have made Grains runnable, before it goes on.
class TaskDrain {
  public:
    virtual ~TaskDrain() = default;
    virtual void drain() = 0;
};

// What the store tells the driver (the Engine), instead of holding its parts: a PRESENT item at
// a root sink's port (buffered until its root is done), and a root whose last Grain sealed (its
// sinks are written and its journal line kept; a sink may fail it: fail_root_at_sink).
class StoreListener {
  public:
    virtual ~StoreListener() = default;
    virtual void root_item(const std::vector<std::uint32_t>& sinks, EntityId entity,
                           const Value& value) = 0;
    virtual void root_complete(const RootState& root) = 0;
};

// Per Call, what the lineage facts say about its Grains (the store's part of CallCounters).
struct OutcomeCounts {
    std::uint64_t grains = 0;      // sealed after running (committed or failed)
    std::uint64_t suppressed = 0;  // sealed without running: an input FAILED or SUPPRESSED,
                                   // a barrier or failed expansion, or discarded at commit
    std::uint64_t dropped = 0;     // outputs DROPPED: a filter said no, a required input DROPPED
    std::uint64_t failed = 0;      // failures recorded
    std::uint64_t skipped_members = 0;  // left out by a skip-reduce
};

class LineageStore {
  public:
    LineageStore(const Plan& plan, const RunOptions& options, StoreListener& listener);
    LineageStore(const LineageStore&) = delete;
    LineageStore& operator=(const LineageStore&) = delete;

    // ---- roots ----
    std::uint32_t admit_root(std::string name, Value value);  // creates and publishes; ordinal
    // A root that does not run: done at once with `result` (one the journal lists, resumed; one
    // that crashed the process twice, failed unrun).
    void add_done_root(RootResult result);
    void complete_if_idle(std::uint32_t ordinal);  // a root whose Grains all sealed at once
    // Roots in flight (and done ones not yet released) by ordinal; a released root is gone.
    const RootState& root(std::uint32_t ordinal) const { return roots_[ordinal]; }
    const RootState& root_of(EntityId entity) const { return roots_[root_ordinal_[entity]]; }
    // A sink could not write a done root (StoreListener::root_complete): it is failed, with
    // `reason`, unless it failed already.
    void fail_root_at_sink(std::uint32_t ordinal, const std::string& reason);
    // Fairness (priority rule 5): how many of its root's Grains `call` queued before this one.
    std::uint32_t count_queued(CallId call, EntityId entity) {
        RootState& root = roots_[root_ordinal_[entity]];
        if (root.queued.empty()) root.queued.assign(plan_.calls.size(), 0);
        return root.queued[call]++;
    }
    std::uint32_t next_ordinal() const { return static_cast<std::uint32_t>(roots_.end()); }
    bool root_done(std::uint32_t ordinal) const {
        return roots_.released(ordinal) || roots_[ordinal].done;
    }
    std::size_t inflight_roots() const { return inflight_roots_; }
    std::size_t roots_done() const { return roots_done_; }

    // ---- releasing finished roots (docs/runtime.md "Memory") ----
    // Drops the lineage of the oldest roots that are done (their sinks written, their journal
    // line added): entities, Items, Grains, expansions and root states, up to the first root
    // still in flight, so the tables follow the roots in flight, not the run. Called between
    // events only: a done root's ids may then be held only by stale batches, which is_live()
    // fences; everything else asks released() first.
    void release_done();
    std::size_t done_since_release() const { return done_since_release_; }
    // Time to release: kReleaseEvery roots are done since the last release, or some root is
    // and the tables hold kReleaseRows entities (big roots: memory follows the rows held, not
    // the number of roots; docs/runtime.md "Memory follows the roots in flight").
    static constexpr std::size_t kReleaseEvery = 64;
    static constexpr std::size_t kReleaseRows = std::size_t{1} << 16;
    bool release_due() const {
        return done_since_release_ >= kReleaseEvery ||
               (done_since_release_ > 0 && domain_.end() - domain_.base() >= kReleaseRows);
    }
    bool released(CallId call, std::uint32_t local) const {
        return domain_members_[layouts_[call].spec->domain].released(local);
    }
    bool released_entity(EntityId e) const { return domain_.released(e); }
    // At the end of the run: every root's result in ordinal order (moved out), and the roots
    // the report does not list (RunOptions::report_ok_roots off).
    std::vector<RootResult> take_results();
    // At the end of an interrupted or aborted run: every root not done is failed with `reason`
    // (unless it failed already); returns how many were not done.
    std::size_t fail_unfinished(const std::string& reason);
    const OmittedRoots& omitted() const { return omitted_; }

    // ---- entities (read) ----
    EntityId entity_of(DomainId domain, std::uint32_t local) const {
        return domain_members_[domain][local];
    }
    DomainId domain(EntityId e) const { return domain_[e]; }
    EntityId parent(EntityId e) const { return parent_[e]; }
    std::uint32_t ordinal(EntityId e) const { return ordinal_[e]; }
    std::uint32_t local(EntityId e) const { return local_[e]; }
    EntityId root_entity(EntityId e) const { return roots_[root_ordinal_[e]].entity; }
    std::uint32_t root_ordinal(EntityId e) const { return root_ordinal_[e]; }
    bool doomed(EntityId e) const { return doomed_[e] != 0; }
    std::uint64_t dooms() const { return dooms_; }          // entities ever doomed (it only grows)
    std::size_t entities() const { return domain_.end(); }  // created in the run
    EntityPath path(EntityId e) const;                      // child ordinals from the root down

    // ---- items (read) ----
    Outcome outcome(PortId port, std::uint32_t local) const { return ports_[port].outcome[local]; }
    // The held payload of a PRESENT item (a reference, not a copy); empty when none is held.
    const Value* payload(PortId port, std::uint32_t local) const {
        const std::uint32_t slot = ports_[port].slot[local];
        return slot == kNoSlot ? nullptr : &payloads_[slot].value;
    }
    DomainId port_domain(PortId port) const { return ports_[port].domain; }
    std::size_t live_bytes() const { return live_bytes_; }
    std::size_t peak_live_items() const { return peak_live_items_; }
    std::size_t peak_live_bytes() const { return peak_live_bytes_; }

    // ---- Grains ----
    const CallLayout& layout(CallId call) const { return layouts_[call]; }
    std::size_t num_calls() const { return layouts_.size(); }
    const GrainCell& grain(CallId call, std::uint32_t local) const { return grains_[call][local]; }
    // The only way a Grain moves (SEMANTICS.md "Grain phases"; grain_transition): InputsRunnable
    // (WAITING -> READY), Reserve (READY -> IN_FLIGHT), Recover (IN_FLIGHT -> READY, a new
    // attempt: generation + 1), and the sealing events Resolve, SuppressQueued and Commit, which
    // take how the Grain ended (`sealed`: PRESENT when it ran and its outputs are published, or
    // its expansion succeeded; FAILED, DROPPED or SUPPRESSED otherwise) and count it. Any other
    // pair is a ContractError; the cell is unchanged then.
    const GrainCell& advance(CallId call, std::uint32_t local, GrainEvent event,
                             Outcome sealed = Outcome::Unresolved) {
        GrainCell& g = grains_[call][local];
        const auto next = grain_transition(g.phase, event);
        if (!next) [[unlikely]]
            throw_bad_event(call, local, event, g.phase);
        if (*next == GrainPhase::Sealed) {
            seal(call, local, event, sealed);
            return g;
        }
        if (event == GrainEvent::Recover) ++g.generation;  // a new attempt: older reports are stale
        g.phase = *next;
        return g;
    }
    // Seals a Grain that does not run, or whose result is not used (failed, suppressed,
    // dropped): every output gets `outcome` (an expand: its Expansion FAILED, or DROPPED).
    void seal_without_running(CallId call, std::uint32_t local, Outcome outcome, GrainEvent event);
    // A failed attempt of a Grain in flight: the opaque-error count (the Call's retries) or the
    // infra count (its infra_retries), after this one.
    std::uint32_t count_attempt(CallId call, std::uint32_t local);
    std::uint32_t count_infra(CallId call, std::uint32_t local);
    // The commit fence (SEMANTICS.md): a report counts only for a Grain still in flight in the
    // attempt it was dispatched with.
    bool is_live(CallId call, std::uint32_t local, std::uint16_t generation) const {
        if (released(call, local)) return false;  // its root is done and gone
        const GrainCell& cell = grains_[call][local];
        return cell.phase == GrainPhase::InFlight && cell.generation == generation;
    }
    const ReadyGroup& group(CallId call, std::uint32_t local) const {
        return groups_[call].at(local);
    }
    void hold_group(CallId call, std::uint32_t local, ReadyGroup group) {
        groups_[call][local] = std::move(group);
    }

    // ---- suppression (SEMANTICS.md "Failures are typed", GroupFailure) ----
    // The one rule: a Grain under a failed streaming expansion (doomed) or behind a barrier on
    // (its Call, its direct parent) is SUPPRESSED, at dequeue, at commit, or as it resolves.
    bool suppressed(CallId call, EntityId entity) const {
        return doomed(entity) || barred(call, entity);
    }
    // A GroupFailure's barrier on (call, the entity's parent); a root has no siblings: none.
    void install_barrier(CallId call, EntityId entity);
    bool barred(CallId call, EntityId entity) const {
        if (barrier_count_[call] == 0 || parent_[entity] == kNoEntity) return false;
        return barriers_.count(barrier_key(call, parent_[entity])) != 0;
    }
    // Whether a GroupFailure barred some Call over the children of `parent` (only looked for
    // when a member of a skip-reduce's group is FAILED or SUPPRESSED).
    bool group_failed(EntityId parent, std::span<const Outcome> members) const;
    // Barriers installed and entities doomed so far (it only grows): a change means some Grain
    // in flight may now be unwanted.
    std::uint64_t suppressions() const { return barriers_.size() + dooms_; }

    // ---- expansions ----
    const ExpansionTable& expansion_of(CallId call) const {
        return expansions_[static_cast<std::size_t>(layouts_[call].expansion)];
    }

    // ---- lineage facts (the only writers) ----
    void publish(PortId port, std::uint32_t local, Outcome outcome, Value value);
    void release_ref(PortId port, std::uint32_t local);
    void seal(CallId call, std::uint32_t local, GrainEvent event);
    void set_expansion(CallId expand, std::uint32_t local, ExpansionState state);
    void add_child(CallId expand, std::uint32_t local, std::uint32_t ordinal, Value value);
    void record_failure(CallId call, std::uint32_t local, const std::string& reason,
                        std::uint32_t attempts);

    // ---- fail-open reduce (on_failure skip) ----
    bool skip_reduces() const { return skip_reduces_; }
    // A skip-reduce `call` left `member` out: counted, kept in its root for judging (and the
    // report), with the reason it failed. Returns that reason.
    std::string record_skip(CallId call, EntityId member);
    // A suppress-reduce lost `parent`'s output to a member failure (judge_failures).
    void record_strict_parent(EntityId parent);

    // Grains whose inputs became terminal, in the order they did: `resolve(task)` for each, FIFO,
    // until none is left (resolve may add more).
    template <class F>
    void drain_tasks(F&& resolve) {
        for (std::size_t i = 0; i < work_.size(); ++i) {
            const Task task = work_[i];
            resolve(task);
        }
        work_.clear();
    }
    std::size_t pending_tasks() const { return work_.size(); }
    const OutcomeCounts& counts(CallId call) const { return counts_[call]; }

    std::size_t lineage_bytes() const;  // the tables' capacity (payloads excluded)

    // ---- progress (Progress::work) ----
    // An expand Grain's rop::expected_children (a later hint for the same Grain replaces it).
    void expect_children(CallId expand, std::uint32_t local, std::uint64_t children);
    ProgressWork work() const;

  private:
    static std::uint64_t barrier_key(CallId call, EntityId parent) {
        return (static_cast<std::uint64_t>(call) << 32) | parent;
    }
    EntityId create_entity(DomainId domain, EntityId parent, std::uint32_t ordinal);
    void seal(CallId call, std::uint32_t local, GrainEvent event, Outcome sealed);
    [[noreturn]] void throw_bad_event(CallId call, std::uint32_t local, GrainEvent event,
                                      GrainPhase phase) const;
    void count_sealed(CallId call, GrainEvent event, Outcome sealed);
    void root_done(RootState& root);
    void release_pins(RootState& root);  // broadcast inputs held until the root is done
    std::string skip_reason(const RootState& root, EntityId child) const;
    void judge_failures(RootState& root);  // at root_done: absorbed, or the root's failure
    void file_result(RootResult& result);  // into released_results_, or omitted_

    const Plan& plan_;
    const RunOptions& options_;
    StoreListener& listener_;
    std::vector<OutcomeCounts> counts_;  // per Call
    // Some reduce has `on_failure skip`: failures are kept per root and judged at root_done.
    bool skip_reduces_ = false;

    std::vector<CallLayout> layouts_;

    // Entities (struct-of-arrays, by EntityId).
    IdWindow<DomainId> domain_;
    IdWindow<EntityId> parent_;
    IdWindow<std::uint32_t> ordinal_;       // among its siblings; a root's: its root ordinal
    IdWindow<std::uint32_t> root_ordinal_;  // the ordinal of its root
    IdWindow<std::uint32_t> local_;
    IdWindow<std::uint8_t> doomed_;  // under a FAILED streaming Expansion
    std::uint64_t dooms_ = 0;
    std::vector<IdWindow<EntityId>> domain_members_;  // by local index in the Domain
    std::vector<std::vector<CallId>> domain_calls_;
    std::vector<std::vector<PortId>> domain_ports_;
    std::vector<std::vector<CallId>> domain_reducers_;  // reduce Calls over this Domain

    std::vector<PortState> ports_;
    std::vector<ExpansionTable> expansions_;
    std::vector<int> expansion_of_domain_;

    // Per Call: Grain cells, reduce members pending per parent, READY reduce groups, and
    // broadcast Grains waiting for their ancestor's item.
    std::vector<IdWindow<GrainCell>> grains_;
    std::vector<IdWindow<std::uint32_t>> members_pending_;
    std::vector<std::unordered_map<std::uint32_t, ReadyGroup>> groups_;
    std::vector<std::unordered_map<EntityId, std::vector<std::uint32_t>>> broadcast_waiting_;

    struct PayloadSlot {
        Value value;
        std::uint32_t refs = 0;
        std::uint32_t bytes = 0;
    };
    std::vector<PayloadSlot> payloads_;
    std::vector<std::uint32_t> free_slots_;
    std::size_t live_slots_ = 0, live_bytes_ = 0, peak_live_items_ = 0, peak_live_bytes_ = 0;

    IdWindow<RootState> roots_;
    std::size_t inflight_roots_ = 0, roots_done_ = 0;
    // Results of released roots, in ordinal order (with RunOptions::report_ok_roots off, only
    // the failed and partial ones; the others are tallied in omitted_).
    std::vector<RootResult> released_results_;
    OmittedRoots omitted_;
    std::size_t kept_failures_ = 0;  // with on_root_result: failed results kept for a summary
    std::size_t done_since_release_ = 0;
    std::size_t peak_lineage_bytes_ = 0;
    // Progress::work: Grains sealed; roots this run finished and their Grains.
    std::uint64_t grains_sealed_ = 0, done_roots_run_ = 0, done_root_grains_ = 0;

    std::vector<Task> work_;

    // Suppression barriers (GroupFailure): (call, parent) keys, and how many per Call.
    std::unordered_set<std::uint64_t> barriers_;
    std::vector<std::uint32_t> barrier_count_;
};

}  // namespace rop::runtime::detail
