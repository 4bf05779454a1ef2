// The scheduler: admission of roots (max_inflight_roots, the payload budget), the per-Call
// ready queues and recovery queues, batch building (batch cap, batching single_parent, partial
// batches), dispatch to the Executor, and the batches in flight. Priority rules: dispatch.cpp.
#pragma once

#include <array>
#include <bit>
#include <deque>
#include <memory>
#include <vector>

#include "lineage_store.h"
#include "resolver.h"

namespace rop::runtime::detail {

class RootSinks;

// Per Call, what the scheduler counts (its part of CallCounters).
struct BatchCounts {
    std::uint64_t batches = 0;
    std::uint64_t mixed_parent_batches = 0;
    std::uint64_t stale_at_end = 0;  // Grains of abandoned batches whose report never came
};

// The READY Grains of one Call, the least served root first (docs/runtime.md, priority rule 5):
// a Grain waits at level bit_width(n / unit), n being how many Grains its root had queued at this
// Call before it and unit the Call's batch cap. The lowest non-empty level goes first, FIFO
// inside a level. A small root's Grains thus pass the backlog of a huge one that came first,
// while the Call's batches stay as full as before.
class ReadyQueue {
  public:
    static constexpr std::uint32_t kLevels = 16;
    static std::uint32_t level(std::uint32_t queued_before, std::uint32_t unit) {
        const auto l = static_cast<std::uint32_t>(std::bit_width(queued_before / unit));
        return l < kLevels ? l : kLevels - 1;
    }
    void push(std::uint32_t local, std::uint32_t level) {
        levels_[level].push_back(local);
        nonempty_ |= 1u << level;
        ++size_;
    }
    bool empty() const { return size_ == 0; }
    std::size_t size() const { return size_; }
    std::uint32_t front() const { return levels_[std::countr_zero(nonempty_)].front(); }
    void pop_front() {
        const int l = std::countr_zero(nonempty_);
        levels_[l].pop_front();
        if (levels_[l].empty()) nonempty_ &= ~(1u << l);
        --size_;
    }

  private:
    std::array<std::deque<std::uint32_t>, kLevels> levels_;
    std::uint32_t nonempty_ = 0;  // bit l: levels_[l] has Grains
    std::size_t size_ = 0;
};

// A root finished before it is admitted: the result store's whole-root answer (the Engine's;
// cache/result_cache.h). answer() writes its sinks and journal line and files it done, or
// returns false and leaves it to run.
class RootShortcut {
  public:
    virtual ~RootShortcut() = default;
    virtual bool answer(std::uint32_t ordinal, RootSource::Root& root) = 0;
};

class Scheduler final : public ReadySink {
  public:
    // `drain`: resolves the store's tasks after admission and after Grains sealed at dequeue.
    // `shortcut`: answers roots without admitting them (null: none).
    Scheduler(const Plan& plan, const RunOptions& options, RootSource& source, Executor& executor,
              LineageStore& store, RootSinks& sinks, TaskDrain& drain,
              RootShortcut* shortcut = nullptr);
    Scheduler(const Scheduler&) = delete;
    Scheduler& operator=(const Scheduler&) = delete;

    // New roots while the budgets allow (at least one root in flight). Roots the shortcut
    // answers take no budget; after kAnswersPerAdmit of them admit() returns with
    // admit_again() true, so that the driver comes back at once, between its other duties.
    void admit();
    static constexpr std::size_t kAnswersPerAdmit = 256;
    bool admit_again() const { return admit_again_; }
    void dispatch();  // batches to idle actors, downstream Calls first

    // ---- queues ----
    void enqueue_ready(CallId call, std::uint32_t local) override;
    // Replays Grains (a new attempt: generation+1). Immediate units go before the ready FIFO,
    // deferred ones (bisection halves) after full ready batches.
    void requeue(CallId call, std::vector<std::uint32_t> grains, bool deferred);

    // ---- batches in flight ----
    void finished(BatchJob& job);  // its Done report arrived: no longer in flight
    void recycle(BatchJob* job);   // back to the pool, payload references released
    void abandon(BatchJob& job);   // timed out: its actor is retired; a late report is stale
    std::vector<BatchJob*> expired(Clock::time_point now) const;  // past their deadline
    Clock::time_point next_deadline(Clock::time_point until) const;
    bool any_timed() const { return !timed_.empty(); }
    std::vector<BatchJob*>& streaming() { return streaming_; }  // expand batches in flight
    bool no_more_streaming() const;
    // Backpressure (docs/runtime.md "Streaming expand"): with `limit` and some other work that
    // can consume what is held, grants each streaming expand batch its share of the payload
    // budget left (none: paused); otherwise (a reduce over their children needs them all) no
    // limit. A paused batch's timeout waits for it. resume_streaming(): no limit (end of run).
    void pace_streaming(bool limit, Clock::time_point now);
    void resume_streaming(Clock::time_point now);
    std::uint64_t pauses() const { return pauses_; }
    // Jobs submitted and not yet Done, abandoned ones excluded: the ones the driver waits for.
    std::size_t active_jobs() const { return live_jobs_ - abandoned_jobs_; }
    std::size_t live_jobs() const { return live_jobs_; }
    void settle_report(BatchJob& job);  // after an exception: a Done report, discarded
    // End of the run: every job still out goes to the report queue (see ReportQueue).
    void hand_over(ReportQueue& reports);
    const std::vector<std::unique_ptr<BatchJob>>& jobs() const { return jobs_; }
    // Marks every Grain of the batches in flight whose result `discarded` says is unwanted
    // (BatchJob::unwanted): their actors may skip them.
    template <class Discarded>
    void mark_unwanted(const Discarded& discarded) {
        for (const std::unique_ptr<BatchJob>& job : jobs_) {
            if (!job->running || job->abandoned) continue;
            for (std::size_t g = 0; g < job->size() && g < job->unwanted.size(); ++g) {
                std::atomic_ref<std::uint8_t> flag(job->unwanted[g]);
                if (flag.load(std::memory_order_relaxed) == 0 && discarded(*job, g)) {
                    flag.store(1, std::memory_order_relaxed);
                }
            }
        }
    }

    bool source_exhausted() const { return source_exhausted_; }
    std::size_t peak_inflight_roots() const { return peak_inflight_roots_; }
    double mean_batch_fill(CallId call) const;
    const BatchCounts& counts(CallId call) const { return counts_[call]; }
    void stop_admitting() { admitting_ = false; }  // a clean stop: in-flight roots go on
    void halt() {
        admitting_ = false;
        halted_ = true;
    }  // aborted: no more batches either

  private:
    struct CallQueues {
        ReadyQueue ready;                                            // READY Grains
        std::deque<std::vector<std::uint32_t>> immediate, deferred;  // recovery units
        std::uint32_t inflight = 0;                                  // batches held by actors
        std::uint64_t dispatched = 0;
        // Full ready batches taken while a deferred unit waited (priority rule 7: at most the
        // Call's actors, then the unit goes).
        std::uint32_t passed_deferred = 0;
        bool has_work() const { return !ready.empty() || !immediate.empty() || !deferred.empty(); }
    };

    void dispatch_pass();             // one pass over the Calls, downstream first
    void dispatch_pool(PoolId pool);  // its Calls in turn while its actors have room
    bool may_dispatch(CallId call, bool tail) const;  // work, and a free slot for it
    bool send_batch(CallId call, bool tail);
    std::uint32_t depth(CallId call, bool tail) const;  // batches per actor
    // Nothing can add Grains to `call`'s queues any more: the source is exhausted and no Call
    // upstream of it has work queued or in flight (its partial batch need not wait).
    bool fed_no_more(CallId call) const;
    // The next batch of `call`; `tail`: fed_no_more(call), which sizes a ready batch.
    BatchJob* build_job(CallId call, bool tail);
    void describe_for_crash(BatchJob& job) const;
    void note_submit(const BatchJob& job);  // the journal's watermark (journal.h)
    void note_running();                    // a root running alone: its Calls in flight
    void grant(std::int64_t credit, Clock::time_point now);  // to every streaming batch

    const Plan& plan_;
    const RunOptions& options_;
    RootSource& source_;
    Executor& executor_;
    LineageStore& store_;
    RootSinks& sinks_;
    TaskDrain& drain_;
    RootShortcut* shortcut_;

    std::vector<CallQueues> queues_;
    struct PoolQueues {
        std::vector<CallId> calls;   // its Calls with actors, in plan order
        std::uint32_t inflight = 0;  // batches of its Calls held by its actors
        std::uint32_t depth = 2;     // batches per actor: kPipelineDepth, 1 with a timeout
        std::size_t last = 0;        // the index in `calls` served last
    };
    std::vector<PoolId> pool_of_;  // per Call: its pool, or kNoPool
    std::vector<PoolQueues> pools_;
    std::vector<BatchCounts> counts_;
    std::vector<CallId> dispatch_order_;
    std::vector<std::vector<CallId>> upstream_;  // per Call: the Calls whose outputs reach it
    std::vector<std::unique_ptr<BatchJob>> jobs_;
    std::vector<BatchJob*> free_jobs_;
    std::vector<BatchJob*> timed_;      // in flight on a Call with a timeout
    std::vector<BatchJob*> streaming_;  // expand batches in flight
    std::uint64_t pauses_ = 0;          // streaming batches paused by backpressure
    std::size_t live_jobs_ = 0;         // submitted and not yet Done (abandoned ones included)
    std::size_t abandoned_jobs_ = 0;    // of those, abandoned after a timeout
    std::uint64_t next_job_id_ = 0;
    bool source_exhausted_ = false;
    bool admit_again_ = false;
    bool admitting_ = true;  // false: no more roots (a stop request, an abort)
    bool halted_ = false;    // aborted: no more batches either
    std::size_t peak_inflight_roots_ = 0;
    // --resume after crashes: a root the journal blames for one runs alone (nothing else is
    // admitted while it is in flight); held_ is the next root, waiting for the roots in flight.
    std::optional<RootSource::Root> held_;
    std::optional<std::uint32_t> suspect_;
    std::vector<std::string> running_noted_;  // the last {"running":...} line written
};

}  // namespace rop::runtime::detail
