// The seam between the single driver (lineage, scheduling, commit) and whatever runs UDFs:
// the driver hands BatchJobs to an Executor and receives Reports on one ReportQueue.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "rop/runtime/plan.h"
#include "rop/runtime/run.h"
#include "rop/runtime/udf.h"

namespace rop::runtime {

// What one Grain of a batch reported.
enum class GrainResult : std::uint8_t { None, Ok, Keep, Drop, RecordFailed, GroupFailed };
// What went wrong with a batch as a whole (process() threw something that is not typed).
// Setup: the Call's actor could not be built (its factory threw or returned nothing).
// Unattributed: a typed failure naming no item (a batch UDF's): the batch is bisected.
enum class BatchError : std::uint8_t { None, Opaque, Infra, Contract, Setup, Unattributed };

struct EmittedChild {
    std::uint32_t grain;    // index in the batch
    std::uint32_t ordinal;  // zero-based among the Grain's children, counted per attempt
    Value value;
};

// Lent by an executor to a streaming expand batch whose actor is reentrant (Actor::reentrant):
// emit_child calls run_waiting() every kYieldEvery children, and while its credit is spent, to
// run another queued batch of the same Call on the same actor and thread before going on.
class Yielder {
  public:
    static constexpr std::uint32_t kYieldEvery = 8;
    virtual ~Yielder() = default;
    virtual bool run_waiting() = 0;  // ran one (true) or there was none to run (false)
};

// One dispatched batch: the driver fills the request half, an actor fills the result half.
// A job belongs to the driver except between submit() and the arrival of its Done report; a job
// still out when the run ends belongs to the ReportQueue from then on (ReportQueue::adopt).
struct BatchJob {
    // ---- request (driver) ----
    CallId call = 0;
    CallKind kind = CallKind::Map;
    std::uint32_t num_inputs = 0;
    std::uint32_t num_outputs = 0;
    std::uint64_t id = 0;
    std::vector<std::uint32_t> grains;       // the driver's handles (entity index in the Domain)
    std::vector<std::uint16_t> generations;  // attempt generation per Grain (commit fence)
    std::vector<GrainInfo> infos;
    std::vector<Value> inputs;         // size() * num_inputs, Grain-major
    std::vector<Value> parent_values;  // reduce: Batch::parent per Grain; else empty
    // Per Grain, set by the driver (through std::atomic_ref) once the Grain's result would be
    // discarded: its parent's GroupFailure barred it, or its expansion failed. The actor may
    // skip it (Batch::wanted, rop::wanted); one left without a result is then not an error.
    std::vector<std::uint8_t> unwanted;
    // RunOptions::crash_reports: what the crash handler says and journals if this batch brings
    // the process down ("call 'm', batch of 8 from roots a.pdf, b.pdf"; the roots' ordinals).
    std::string crash_note;
    std::string crash_call;
    std::vector<std::uint64_t> crash_roots;
    // ---- results (actor) ----
    std::vector<Value> outputs;  // size() * num_outputs, Grain-major
    std::vector<GrainResult> results;
    std::vector<std::pair<std::uint32_t, std::string>> reasons;  // for Record/GroupFailed
    std::vector<std::uint32_t> emitted;  // children emitted so far per Grain (this attempt)
    // Streamed children not yet taken by the driver. In-process executors append under
    // children_mutex and the driver takes them whenever it is awake (so a child is schedulable
    // before its expand Grain reports); out-of-process executors send Emitted reports instead.
    std::mutex children_mutex;
    std::vector<EmittedChild> children;
    // rop::expected_children hints not yet taken by the driver (Grain, count), under
    // children_mutex like the children (in-process executors only).
    std::vector<std::pair<std::uint32_t, std::uint64_t>> expected_children;
    BatchError error = BatchError::None;
    GrainResult error_kind = GrainResult::None;  // Unattributed: RecordFailed or GroupFailed
    std::string error_message;
    std::uint32_t actor = 0;                // global actor index (trace tid)
    std::int64_t start_ns = 0, end_ns = 0;  // steady_clock, for the trace
    // Set by the driver (RunOptions::measure_cpu): the actor thread measures the batch's CPU
    // time and its wait for a core into cpu_ns and wait_ns (BatchRecord); -1: not measured.
    bool measure_cpu = false;
    std::int64_t cpu_ns = -1, wait_ns = 0;
    // start_ns as the driver may read it while the batch runs (stuck batches); 0 until the
    // batch starts on its actor (a queued batch is not running yet).
    std::atomic<std::int64_t> started_ns{0};
    // When the batch last emitted a child (steady_clock ns; a streaming expand): the stuck check
    // counts time from here, since a batch still emitting is making progress, however long it
    // has run (a 400-page PDF streaming its pages).
    std::atomic<std::int64_t> progress_ns{0};
    // rop::count calls of the UDF while this batch ran (written by the actor thread, read by
    // the driver after the batch's Done report); summed into CallCounters::udf_counters.
    std::map<std::string, std::uint64_t, std::less<>> udf_counters;
    // Backpressure on a streaming expand (docs/runtime.md "Streaming expand"): the payload
    // bytes it may still emit. emit_child takes each child's bytes from it and, once it is
    // spent, waits until the driver grants more (its share of what is left of
    // RunOptions::max_payload_bytes while other work can consume what is held).
    static constexpr std::int64_t kUnlimitedCredit = std::int64_t{1} << 62;
    std::atomic<std::int64_t> credit{kUnlimitedCredit};
    // Set by the executor for the run of a streaming expand batch that may lend its actor
    // (Yielder); null otherwise. Actor thread only.
    Yielder* yielder = nullptr;
    std::uint32_t since_yield = 0;  // children emitted since the last lend
    // ---- driver bookkeeping ----
    bool running = false;                 // submitted, its Done report not yet received
    bool abandoned = false;               // timed out; its late report is stale
    bool flagged_stuck = false;           // reported as a StuckBatch
    std::uint32_t streamed_failures = 0;  // its GroupFailures committed before its Done
    std::uint32_t parents = 0;            // distinct direct parents in the batch (trace)
    std::chrono::steady_clock::time_point deadline{};
    bool paused = false;  // the driver granted it nothing: its timeout waits (driver only)
    std::chrono::steady_clock::time_point paused_at{};

    std::size_t size() const { return grains.size(); }
    void clear_results();  // sizes the result half for size() Grains
};

// A message from an executor to the driver. An Emitted report with no job only wakes the
// driver so that it takes streamed children from the in-flight jobs. A GroupFailed report is a
// GroupFailure the UDF reported for one item (Batch::fail_group) while its batch goes on: the
// driver raises the barrier at once instead of at the batch's Done (docs/runtime.md).
struct Report {
    enum class Kind : std::uint8_t { Emitted, Done, GroupFailed };
    Kind kind = Kind::Done;
    BatchJob* job = nullptr;
    std::vector<EmittedChild> children;  // Kind::Emitted: a streamed chunk of children
    std::uint32_t grain = 0;             // Kind::GroupFailed: the item, its index in the batch
    std::string reason;                  // Kind::GroupFailed: the failure's reason
};

// Many producers (actor threads), one consumer (the driver). Guarantee: reports of one job
// arrive in the order they were pushed (one mutex, one FIFO vector); the driver sleeps on a
// condition variable when there is nothing to do (no busy spin).
//
// Lifetime: the driver owns the queue through a std::shared_ptr (the Engine makes it with
// std::make_shared). An executor whose threads may outlive run() -- an actor abandoned after a
// timeout, or still busy when an aborted run gives up waiting -- keeps it alive with
// shared_from_this(), once, when it starts. At the end of the run the driver close()s the queue
// and hands it every job still out (submitted, no Done received) with adopt(): from then on the
// queue owns those jobs, a push() of such a job's Done frees it (the worker's last touch of the
// job is that push), any other late report is dropped, and jobs whose Done never comes die with
// the queue, i.e. with the last thread that holds it. So a late thread only ever touches the
// queue, its own job and its executor's state, all kept alive by shared ownership, never the
// driver's memory. The hot path pays nothing for this: push() tests one plain bool it reads
// under the mutex it already takes.
class ReportQueue : public std::enable_shared_from_this<ReportQueue> {
  public:
    ReportQueue() = default;
    ReportQueue(const ReportQueue&) = delete;
    ReportQueue& operator=(const ReportQueue&) = delete;

    void push(Report report);
    // Moves all queued reports into out (appending); blocks until one arrives or `until` passes.
    // Before sleeping it announces the wait and calls before_sleep (the driver takes streamed
    // children there); if that returns true it does not sleep. A producer that adds a streamed
    // child and then sees driver_waiting() pushes a wake-up report: no child is ever stranded.
    // spin_us > 0: first poll that long (yielding) before blocking; the driver passes it only
    // while batches are in flight, when a report is due soon (saves a futex wake per batch).
    void pop_all(std::vector<Report>& out, std::chrono::steady_clock::time_point until,
                 const std::function<bool()>& before_sleep = {}, int spin_us = 0);
    bool driver_waiting() const { return waiting_.load(); }
    // Reports pushed and not yet taken by the driver (the estimate's virtual-time executor
    // releases its next batch only once this is 0 and the driver waits: src/estimate).
    std::size_t queued() const { return queued_.load(std::memory_order_acquire); }

    // End of the run (driver): returns the reports still queued; every later push() is dropped,
    // except the Done of an adopted job, which frees that job.
    std::vector<Report> close();
    // Takes ownership of a job that is still out after close() (its worker may still be running
    // it, or it was queued and will never run). Freed on its Done or with the queue.
    void adopt(std::unique_ptr<BatchJob> job);
    std::size_t adopted() const;  // jobs in custody (tests)

  private:
    mutable std::mutex mutex_;
    std::condition_variable ready_;
    std::vector<Report> queue_;
    std::atomic<bool> waiting_{false};
    std::atomic<std::size_t> queued_{0};  // queue_.size(), readable without the mutex
    bool closed_ = false;                 // guarded by mutex_
    std::unordered_map<const BatchJob*, std::unique_ptr<BatchJob>> custody_;  // guarded by mutex_
};

// Runs one job on one actor (any executor's worker side): builds the Batch view, calls
// process(), classifies exceptions, streams children through `reports` and pushes Done.
// Returns true when the actor must be replaced (it raised an InfraFailure).
bool execute_job(Actor* actor, BatchJob& job, ReportQueue& reports, std::string setup_error = {});

// The sets of actors an executor builds for a plan: one per Call with actors, and one per shared
// pool, whose Calls' batches all go to its actors (PoolSpec). `of_call[c]`: the set serving Call
// c, kNoSet for a Call without actors (broadcast, a reduce without a UDF).
struct ActorSet {
    std::string name;      // the Call's or the pool's
    ActorFactory factory;  // one actor (a pool's: PoolSpec::factory, or a thread PoolActor)
    std::uint32_t actors = 1;
    bool pool = false;
    std::vector<CallId> calls;  // the Calls it serves
};
struct ActorSets {
    static constexpr std::uint32_t kNoSet = 0xFFFFFFFFu;
    std::vector<ActorSet> sets;
    std::vector<std::uint32_t> of_call;
};
ActorSets actor_sets(const Plan& plan);

// Executors: thread actors (default), later process-isolated actors and MPI ranks (see
// docs/runtime.md). The driver never submits more jobs to a Call than its `actors` option.
class Executor {
  public:
    virtual ~Executor() = default;
    virtual void start(const Plan& plan, ReportQueue& reports) = 0;
    virtual void submit(BatchJob& job) = 0;
    // The actor running `job` timed out: retire it and start a fresh one for the Call. The old
    // actor's Done report may still arrive later (the driver rejects it as stale), or never.
    virtual void abandon(BatchJob& job) = 0;
    // Stops all actors and returns promptly: idle actors are stopped and joined, jobs queued but
    // not started are dropped (never run), and an actor still inside a batch (abandoned, or left
    // running when an aborted run stopped waiting for it) is not waited for: it finishes on its
    // own, or never, touching only memory it shares ownership of (see ReportQueue). The driver
    // calls it once every batch it still cares about has reported.
    virtual void stop() = 0;
    // Whether the driver may poll the report queue a moment (yielding) before it sleeps, while
    // batches are in flight: a report from an actor thread is often due soon. False for an
    // executor that reports only once the driver sleeps (the estimate's virtual time), where
    // the poll would only delay it.
    virtual bool driver_may_poll() const { return true; }
};

std::unique_ptr<Executor> make_thread_executor();  // "threads": actor threads per Call
std::unique_ptr<Executor> make_inline_executor();  // "inline": batches on the driver thread

// The executors this runtime has, by the name RunOptions::executor and the binary's --executor
// take ("threads", "inline"); make_executor throws std::invalid_argument naming them for any
// other name. A new executor is a file runtime/src/<name>_executor.cpp and a line here.
const std::vector<std::string_view>& executor_names();
std::unique_ptr<Executor> make_executor(std::string_view name);

// run() with an explicit executor (tests, benchmarks); run(plan, source, options) makes the one
// RunOptions::executor names.
RunReport run(const Plan& plan, RootSource& source, const RunOptions& options, Executor& executor);

}  // namespace rop::runtime
