// The driver's state: plan-derived tables, the lineage store (flat struct-of-arrays tables
// indexed by integer ids, single writer: the driver thread), the per-Call ready queues, and the
// run loop. Split over lineage.cpp (entities, items, payloads, roots), resolve.cpp (input
// algebra, filter, broadcast, expand, reduce), dispatch.cpp (queues, batches, admission),
// commit.cpp (reports, failures, recovery) and driver.cpp (the loop and the report).
#pragma once

#include <chrono>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "journal.h"
#include "rop/runtime/executor.h"
#include "rop/runtime/run.h"
#include "rop/runtime/transitions.h"

namespace rop::runtime::detail {

using Clock = std::chrono::steady_clock;
inline constexpr std::uint32_t kNoSlot = 0xffffffffu;
// Batches per Call whose run times give its median batch time (stuck batches).
inline constexpr std::size_t kMedianWindow = 64;

// Lineage state of one Grain: 6 bytes, indexed by the entity's index within its Domain.
struct GrainCell {
    GrainPhase phase = GrainPhase::Waiting;
    std::uint8_t waiting = 0;   // inputs not yet terminal (direct Calls)
    std::uint8_t attempts = 0;  // opaque-error failures so far
    std::uint8_t infra = 0;     // infra failures so far
    std::uint16_t generation = 0;
};
static_assert(sizeof(GrainCell) == 6, "GrainCell is the per-Grain lineage cost");

// A set of Grains replayed together (retry, bisection half, infra replay).
struct RecoveryUnit {
    std::vector<std::uint32_t> grains;
};

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
    std::vector<Outcome> outcome;      // by entity index in the Domain
    std::vector<std::uint32_t> slot;   // payload slot, kNoSlot when none is held
    std::vector<Consumer> direct;      // map/filter/expand in the same Domain
    std::vector<CallId> reducers;      // reduce Calls over this port
    std::vector<CallId> broadcasters;  // broadcast Calls reading this port
    std::uint32_t refs = 0;            // pending consumers per item (direct + reduce)
    bool result = false;               // counts for Ok vs Dropped (sink or leaf port)
    std::vector<const SinkBinding*> sinks;
    std::vector<std::uint32_t> root_sinks;  // indexes into RunOptions::root_sinks
};

struct CallState {
    const CallSpec* spec = nullptr;
    std::vector<GrainCell> grains;
    std::vector<InputMode> modes;
    std::deque<std::uint32_t> ready;  // FIFO of READY Grains
    std::deque<RecoveryUnit> immediate, deferred;
    std::uint32_t inflight = 0;       // batches held by actors
    std::uint32_t barriers = 0;       // suppression barriers installed on this Call
    bool inline_call = false;         // broadcast, or reduce without a UDF: the driver resolves
    int expansion = -1;               // Expand: its ExpansionTable; Reduce: the one it pairs with
    std::vector<std::uint32_t> members_pending;             // Reduce: per parent
    std::unordered_map<std::uint32_t, ReadyGroup> groups;   // Reduce with UDF: READY groups
    PortId parent_port = 0;           // Reduce with UDF: the paired expand's first input port
    bool has_parent_port = false;
    std::unordered_map<EntityId, std::vector<std::uint32_t>> broadcast_waiting;  // by ancestor
    CallCounters counters;
    std::uint64_t dispatched = 0;
    std::vector<std::int64_t> batch_ns;  // run times of the last kMedianWindow batches (ring)
    std::size_t batch_ns_next = 0;
};

struct ExpansionTable {
    CallId call = 0;
    DomainId child_domain = 0;
    std::vector<ExpansionState> state;               // by parent index in the parent Domain
    std::vector<std::vector<EntityId>> children;     // ordinal order
    std::vector<CallId> reducers;
};

struct PayloadSlot {
    Value value;
    std::uint32_t refs = 0;
    std::uint32_t bytes = 0;
};

// A PRESENT item waiting at a root sink's port until its root is done.
struct BufferedItem {
    std::uint32_t sink;  // index into RunOptions::root_sinks
    EntityId entity;
    Value value;
};

// A root's items for the root sinks, until the root is done (kept out of RootState: only
// pipelines with root sinks pay for it).
struct SinkBuffer {
    std::vector<BufferedItem> items;
    std::size_t bytes = 0;  // their payload bytes (counted in live_bytes_ for admission)
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

struct RootState {
    EntityId entity = kNoEntity;
    std::uint32_t pending = 0;  // unsealed Grains in the subtree
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

struct TraceEvent {
    CallId call;
    std::uint32_t actor, size, parents;
    std::int64_t start_ns, end_ns;
    bool stale;
};

struct Task {
    CallId call;
    std::uint32_t local;
};

class Engine {
public:
    Engine(const Plan& plan, RootSource& source, const RunOptions& options, Executor& executor);
    RunReport run();

    // ---- lineage.cpp ----
    EntityId create_entity(DomainId domain, EntityId parent, std::uint32_t ordinal, EntityId root);
    void publish(PortId port, std::uint32_t local, Outcome outcome, Value value);
    void release_ref(PortId port, std::uint32_t local);
    void seal(CallId call, std::uint32_t local, GrainEvent event);
    void record_failure(CallId call, std::uint32_t local, const std::string& reason,
                        std::uint32_t attempts);
    void root_done(RootState& root);
    // ---- resolve.cpp / lineage.cpp: fail-open reduce (on_failure skip) ----
    std::string skip_reason(const RootState& root, EntityId child) const;
    void judge_failures(RootState& root);  // at root_done: absorbed, or the root's failure
    EntityId entity_of(DomainId domain, std::uint32_t local) const {
        return domain_members_[domain][local];
    }
    RootState& root_of(EntityId entity) { return roots_[ordinal_[root_[entity]]]; }

    // ---- root_sinks.cpp ----
    void open_root_sinks();  // journal, restore(); before the executor starts
    void buffer_for_sinks(const PortState& ps, EntityId entity, const Value& value);
    void write_root_sinks(RootState& root);   // write_root per sink, in ordinal order
    void journal_root(const RootState& root);  // one journal line: status and sink checkpoints
    // A root the journal lists (resume): recorded done with its earlier status; true if so.
    bool skip_journaled(std::uint32_t ordinal, const std::string& name);

    // ---- resolve.cpp ----
    void drain();
    void resolve(CallId call, std::uint32_t local);
    void seal_without_running(CallId call, std::uint32_t local, Outcome outcome, GrainEvent ev);
    static void count_not_run(CallState& cs, Outcome outcome);  // suppressed / dropped
    void make_ready(CallId call, std::uint32_t local);
    void set_expansion(CallId expand, std::uint32_t local, ExpansionState state);
    bool barred(CallId call, EntityId entity) const;
    bool group_failed(EntityId parent, std::span<const Outcome> members) const;
    void install_barrier(CallId call, EntityId entity);
    void add_child(CallId expand, std::uint32_t local, std::uint32_t ordinal, Value value);

    // ---- dispatch.cpp ----
    void admit();
    void dispatch();
    void dispatch_pass();  // one pass over the Calls, downstream first
    BatchJob* build_job(CallId call);

    // ---- commit.cpp ----
    void on_report(Report& report);
    bool take_streamed();  // children streamed by in-flight expand batches
    void release_stream_scratch();
    bool no_more_streaming() const {
        if (!source_exhausted_ || !streaming_.empty()) return false;
        for (const CallState& cs : calls_) {
            if (cs.spec->kind == CallKind::Expand && !cs.ready.empty()) return false;
        }
        return true;
    }
    void on_emitted(BatchJob& job, std::vector<EmittedChild>& children);
    void on_done(BatchJob& job);
    void commit_grain(BatchJob& job, std::size_t g);
    // tail: batch indexes to replay (retry_batch: the whole live batch).
    void recover_opaque(BatchJob& job, std::vector<std::uint32_t>& tail);
    void abort_on(BatchJob& job, const std::vector<std::uint32_t>& tail);  // recovery abort
    void requeue_halves(CallId call, std::vector<std::uint32_t> grains);
    void fail_or_bisect(CallId call, std::vector<std::uint32_t> spent, const std::string& reason);
    void recover_infra(BatchJob& job, const std::string& reason);
    void requeue(CallId call, std::vector<std::uint32_t> grains, bool deferred);
    void fail_grain(CallId call, std::uint32_t local, const std::string& reason);
    void check_timeouts();
    void recycle(BatchJob* job);

    // ---- stuck.cpp ----
    void note_batch_time(const BatchJob& job);  // a finished batch's run time (median)
    double median_batch_s(const CallState& cs) const;
    void check_stuck();                          // flags new stuck batches (on_stuck)
    std::vector<StuckBatch> stuck_batches() const;  // flagged and still running
    StuckBatch describe_stuck(const BatchJob& job, Clock::time_point now) const;

    // ---- driver.cpp ----
    void event_loop();
    void settle(Clock::time_point deadline);
    void shut_down(std::vector<Report>& left);
    Progress progress() const;
    std::size_t lineage_bytes() const;
    void finish_counters();

    const Plan& plan_;
    // Some reduce has `on_failure skip`: failures are kept per root and judged at root_done.
    const bool skip_reduces_ = [this] {
        for (const CallSpec& c : plan_.calls) {
            if (c.kind == CallKind::Reduce && c.options.on_failure == OnFailure::Skip) return true;
        }
        return false;
    }();
    RootSource& source_;
    const RunOptions& options_;
    Executor& executor_;
    // Shared with executors whose threads may outlive run() (a stuck, abandoned actor): see
    // ReportQueue in executor.h and Engine::shut_down.
    std::shared_ptr<ReportQueue> reports_ = std::make_shared<ReportQueue>();
    std::vector<Report> inbox_;

    // Entities (struct-of-arrays, by EntityId).
    std::vector<DomainId> domain_;
    std::vector<EntityId> parent_;
    std::vector<std::uint32_t> ordinal_;
    std::vector<EntityId> root_;
    std::vector<std::uint32_t> local_;
    std::vector<std::uint8_t> doomed_;  // under a FAILED streaming Expansion
    std::vector<std::vector<EntityId>> domain_members_;
    std::vector<std::vector<CallId>> domain_calls_;
    std::vector<std::vector<PortId>> domain_ports_;
    std::vector<std::vector<CallId>> domain_reducers_;  // reduce Calls over this Domain

    std::vector<PortState> ports_;
    std::vector<CallState> calls_;
    std::vector<ExpansionTable> expansions_;
    std::vector<int> expansion_of_domain_;
    std::unordered_set<std::uint64_t> barriers_;

    std::vector<PayloadSlot> payloads_;
    std::vector<std::uint32_t> free_slots_;
    std::size_t live_slots_ = 0, live_bytes_ = 0;

    std::vector<std::string> root_sink_names_;
    std::unique_ptr<Journal> journal_;
    std::unordered_map<std::uint64_t, JournalEntry> journaled_;  // resume: roots to skip
    std::unordered_map<std::uint32_t, SinkBuffer> sink_buffers_;  // by root ordinal
    std::vector<std::vector<std::uint32_t>> path_scratch_;

    std::vector<RootState> roots_;
    std::size_t inflight_roots_ = 0, roots_done_ = 0;
    bool source_exhausted_ = false;

    std::vector<Task> work_;
    std::vector<Outcome> scratch_;

    std::vector<std::unique_ptr<BatchJob>> jobs_;
    std::vector<BatchJob*> free_jobs_;
    std::vector<BatchJob*> timed_;  // in flight on a Call with a timeout
    std::vector<BatchJob*> streaming_;  // expand batches in flight
    std::vector<EmittedChild> stream_scratch_;
    std::vector<std::uint32_t> live_scratch_, head_scratch_, tail_scratch_;  // on_done
    std::size_t live_jobs_ = 0;       // submitted and not yet Done (abandoned ones included)
    std::size_t abandoned_jobs_ = 0;  // of those, abandoned after a timeout
    Clock::time_point abort_deadline_{};  // aborted: stop waiting for running batches then
    std::uint64_t next_job_id_ = 0;
    std::vector<CallId> dispatch_order_;

    std::vector<TraceEvent> trace_;
    RunReport report_;
    Clock::time_point start_{};
    bool first_root_ = false;
};

// report_json.cpp: the Chrome/Perfetto trace of batches ("X" events, actor as tid).
void write_trace(const std::string& path, const Plan& plan, const std::vector<TraceEvent>& events,
                 std::int64_t origin_ns);

}  // namespace rop::runtime::detail
