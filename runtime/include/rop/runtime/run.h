// Running a Plan: where roots come from, where results go, the knobs, and what comes back.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "rop/runtime/ids.h"
#include "rop/runtime/plan.h"
#include "rop/runtime/value.h"
#include "rop/udf.h"

namespace rop::runtime {

namespace detail {
struct PlacementChoice;  // actor_placement.h: where actors run beyond this process's threads
}

// Produces root values lazily, so that admission control can hold new roots back.
class RootSource {
  public:
    virtual ~RootSource() = default;
    // The next root's value and a display name (file path, URI); nullopt when exhausted.
    struct Root {
        Value value;
        std::string name;
    };
    virtual std::optional<Root> next() = 0;
    virtual std::optional<std::size_t> size_hint() const { return std::nullopt; }
};

// A schedule-independent coordinate of an entity: the root's source ordinal, then the child
// ordinal at each level below it.
using EntityPath = std::vector<std::uint32_t>;

// Called on the driver thread, in commit order, once per Item when it becomes terminal.
// Sinks and tests use it; the payload is valid only during the call unless copied (cheap).
class ItemObserver {
  public:
    virtual ~ItemObserver() = default;
    virtual void on_item(PortId port, EntityId entity, Outcome outcome, const Value& value) = 0;
    // Called once per root when its whole subtree is terminal (parent-local commit point).
    virtual void on_root_done(EntityId root) { (void)root; }
};

// A streaming observer of one port: every PRESENT item as it commits (driver thread, commit
// order). Kept for tests and in-process consumers; real sinks are RootSinkBindings.
struct SinkBinding {
    PortId port;
    std::function<void(EntityId entity, const Value& value)> consume;
};

// Which root a sink is writing: its zero-based position in the source and its display name;
// the same type a UDF sink's write() takes (rop/udf.h holds its one definition).
using rop::RootKey;

// A per-root sink (docs/runtime.md "Sinks, journal and resume"). The runtime buffers a root's
// PRESENT items at `port` and, when the root is done, calls write_root once with all of them in
// ordinal order (depth-first by the ordinals of the entity path), on the driver thread; roots
// without a PRESENT item there are not written. write_root must leave the root durable when it
// returns (temp file + rename, or one appended chunk + fsync) unless the sink has sync(): then
// write_root only writes (one appended chunk, no fsync) and sync() makes everything written so
// far durable; the runtime calls it once per commit group, before that group's journal lines
// (RunOptions::commit_group). If write_root throws, the root is reported Failed with "sink NAME:
// message", every sink with restore() is put back to its checkpoint from before that root (no
// sink keeps a part of a failed root), and the run goes on. After every root the runtime
// journals each sink's checkpoint() token; restore(token) runs once before the first write:
// "" on a fresh run (start empty), the last journaled token on --resume (undo anything written
// after it). All three may be empty (a sink whose writes are idempotent per root).
// skip_root (may be empty) is called instead of write_root for every root that ends with nothing
// written to this sink (failed, dropped, no PRESENT item at its port, undone because another
// sink failed it), before its journal line: a sink that writes in source order need not wait
// for it (std.io's ordered record sink).
struct RootSinkBinding {
    PortId port = 0;
    std::function<void(const RootKey&, std::span<const Value> items)> write_root;
    std::function<std::string()> checkpoint;          // may be empty
    std::function<void(const std::string&)> restore;  // may be empty
    std::function<void()> sync;                       // may be empty
    std::function<void(const RootKey&)> skip_root;    // may be empty
    std::string name;  // for messages and the journal; empty: the port's name
};

// A request to end a run early, from another thread or a signal handler (the binary's SIGINT
// and SIGTERM). The first request stops admitting roots and gives the roots in flight
// RunOptions::stop_grace to finish; a second ends the run at once. Either way the journal holds
// exactly the roots that finished, and the RunReport lists the others as failed with an
// "interrupted" reason (--resume runs them again). request() is async-signal-safe.
class StopRequest {
  public:
    void request(int signal = 0) noexcept {
        if (signal != 0) signal_.store(signal, std::memory_order_relaxed);
        count_.fetch_add(1, std::memory_order_release);
    }
    int count() const noexcept { return count_.load(std::memory_order_acquire); }
    int signal() const noexcept { return signal_.load(std::memory_order_relaxed); }  // 0: none

  private:
    std::atomic<int> count_{0};
    std::atomic<int> signal_{0};
};

// --resume with a journal this pipeline did not write (RunOptions::pipeline_name and
// pipeline_hash against the journal's header): nothing is run, nothing written. The binary
// exits 2 with the message.
class ForeignJournal : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

struct RunOptions {
    std::string executor = "threads";            // make_executor(): "threads" or "inline"
    std::size_t max_inflight_roots = 64;         // roots admitted but not yet done
    std::size_t max_payload_bytes = 1ull << 30;  // live payload budget before admission stops
    std::vector<SinkBinding> sinks;              // streaming observers of ports
    std::vector<RootSinkBinding> root_sinks;     // per-root sinks (written when a root is done)
    // Journal of finished roots (JSONL, one line per root: ordinal, name, status, every root
    // sink's checkpoint token). Empty: no journal. resume: restore the sinks to the last
    // journaled tokens and skip the roots the journal lists (reported with their earlier
    // status); otherwise a fresh run: restore("") on every root sink and a new journal.
    std::string journal_path;
    bool resume = false;
    // With resume: the roots the journal lists as Failed run again (a failed root wrote
    // nothing, so nothing is written twice); a new line supersedes the old one. Crash counts
    // of those roots are forgotten: an environment failure deserves another try.
    bool retry_failed = false;
    // Whose journal: a fresh journal's header records the pipeline's name and the hash of its
    // `.rop` text; resume throws ForeignJournal for a journal another pipeline wrote, and for
    // one of this pipeline built from another `.rop` text unless resume_rebuilt (the binary's
    // --resume-rebuilt). Empty name: not recorded, not checked.
    std::string pipeline_name;
    std::string pipeline_hash;
    bool resume_rebuilt = false;
    // Commit groups: finished roots' journal lines are kept and made durable together (every
    // sink's sync(), then one write and one fsync of the journal) once commit_group roots wait
    // or the oldest has waited commit_window, and when the run ends. A kill loses at most the
    // group in the making; --resume reruns those roots (exactly once either way). 1: every root
    // on its own (one fsync per root and sink).
    std::size_t commit_group = 1024;
    std::chrono::milliseconds commit_window{50};
    // false: RunReport::roots lists only failed and partial roots; the others are counted in
    // RunReport::omitted (8 bytes per root for its latency instead of its whole result), so
    // the memory of a run of many small roots follows the roots in flight.
    bool report_ok_roots = true;
    // Takes each root's result as the run is done with it: in source order (resumed roots
    // included), once its lineage is released, and the rest when the run ends. When set, the
    // run keeps nothing per root but the first keep_failed_results failed ones (in
    // RunReport::roots, for a summary) and counts the rest in RunReport::omitted, so that a
    // run of millions of roots keeps only what is in flight (pipeline_main streams them into
    // --report). report_ok_roots is then for on_root_result to apply.
    std::function<void(const struct RootResult&)> on_root_result;
    std::size_t keep_failed_results = 10;
    ItemObserver* observer = nullptr;
    std::string trace_path;  // Chrome/Perfetto JSON when set
    // Keep every finished batch in RunReport::batches (the record the trace is written from,
    // kept with or without trace_path; pipeline_main's --report-html draws it): 56 bytes a batch.
    bool keep_batches = false;
    // With keep_batches: measure each in-process batch's CPU time and its wait for a core
    // (BatchRecord::cpu_ns, wait_ns; two reads of /proc a batch, so --estimate's sample only).
    bool measure_cpu = false;
    std::function<void(const struct Progress&)> on_progress;  // periodic, from the driver
    std::chrono::milliseconds progress_interval{500};
    // After an abort (or a contract error), how long run() still waits for batches running on
    // healthy actors (an abort commits their results) before it stops the executor anyway. A
    // batch still running then, like one abandoned after a timeout, is left behind: its thread
    // is detached, never joined, so run() never hangs on a stuck UDF (docs/runtime.md).
    // The same grace applies to the roots in flight after a first StopRequest.
    std::chrono::milliseconds stop_grace{2000};
    StopRequest* stop = nullptr;  // polled by the driver (at least every 50 ms when set)
    // How to start a worker for an `isolation process` Call: the executable and its arguments
    // (the runtime appends --rop-worker CALL:FD:MEMORY). pipeline_main sets it to the binary
    // itself with its own arguments; a run with an isolated Call and no worker_argv throws.
    std::vector<std::string> worker_argv;
    // Where the actors run beyond this process's threads and workers (pipeline_main makes it: the
    // other ranks of an MPI job, or this machine's GPUs to pin actors to; docs/runtime.md
    // "Placement of actors"). Null: here.
    std::shared_ptr<const detail::PlacementChoice> placement;
    // The result store (docs/runtime.md "Re-runs"): a Grain whose key (its Call's identity, code
    // fingerprint and arguments, its inputs' content) is in cache_dir is answered from it, and a
    // Grain that ran is stored. Empty: off. trust_mtime: a file's content is its path, size and
    // modification time instead of its bytes. cache_max_bytes: the store's size limit (least
    // recently used entries go first); 0: the store's default.
    std::string cache_dir;
    bool trust_mtime = false;
    std::uint64_t cache_max_bytes = 0;
    // Fill BatchJob::crash_note/crash_roots at dispatch, for the crash handler pipeline_main
    // installs (a few hundred nanoseconds per batch; off for in-process uses).
    bool crash_reports = false;
    // Stuck batches (StuckBatch): flagged once a batch has run longer than stuck_min and
    // stuck_factor x its Call's median batch time; stuck_factor <= 0 turns the check off.
    // on_stuck is called once per flagged batch, on the driver thread.
    double stuck_factor = 10;
    std::chrono::milliseconds stuck_min{10'000};
    std::function<void(const struct StuckBatch&)> on_stuck;
    // Called once per root this run finishes (Ok, Dropped or Failed, with its reason), on the
    // driver thread, after its sinks were written: pipeline_main logs each failed root as it
    // happens and counts roots for the metrics. Not called for resumed roots, nor for the roots
    // an abort or interruption leaves unfinished (those are only in the report).
    std::function<void(const struct RootResult&)> on_root_finished;
};

// One batch that ran, as the trace and --report-html draw it (RunOptions::keep_batches).
struct BatchRecord {
    CallId call = 0;
    std::uint32_t actor = 0;    // global actor index (the trace's tid)
    std::uint32_t size = 0;     // Grains in the batch
    std::uint32_t parents = 0;  // distinct direct parents (exact with trace_path, else 1 or 2)
    std::int64_t start_ns = 0, end_ns = 0;  // on its actor; in RunReport::batches since run start
    bool stale = false;                     // abandoned (a timeout): its results were not used
    // Its actor thread's CPU time and its wait for a core while the batch ran (ns; with
    // RunOptions::measure_cpu, in-process only, else cpu_ns -1): --estimate fits a Call's cost
    // without the wait and shares the CPU part over the cores it predicts for.
    std::int64_t cpu_ns = -1, wait_ns = 0;
    // With measure_cpu: each Grain's root, by its ordinal (the order the source gave it), so
    // that --estimate can tell what each sampled root cost; else empty.
    std::vector<std::uint32_t> roots = {};
};

struct CallCounters {
    std::string name;
    std::uint64_t grains = 0;  // sealed Grains that ran
    std::uint64_t batches = 0;
    double mean_batch_fill = 0;  // grains per batch / batch cap
    // The median run time of the Call's last 64 finished batches (0 before one finishes); the
    // one stuck batches are measured against (StuckBatch::median_s).
    double median_batch_s = 0;
    // The run time of every finished batch, summed over the Call's actors (abandoned ones left
    // out): what --estimate predicts as the Call's busy time.
    double busy_s = 0;
    // Replays after an opaque UDF error: one per replayed batch (a retry, a replayed tail, a
    // bisection half), however many Grains it held; retried_items counts those Grains.
    std::uint64_t retries = 0;
    std::uint64_t retried_items = 0;
    // Replays after an infra failure (an InfraFailure, a failed actor setup, a timeout): one
    // per replayed batch; infra_retried_items counts its Grains.
    std::uint64_t infra_retries = 0;
    std::uint64_t infra_retried_items = 0;
    // Grains that did not run because an input was FAILED or SUPPRESSED (a filter passes a
    // FAILED source on unchanged, and counts here too), or a barrier / failed expansion.
    std::uint64_t suppressed = 0;
    // Grains whose outputs are DROPPED: the filter's predicate said no, or a required input
    // was DROPPED (the Grain did not run).
    std::uint64_t dropped = 0;
    std::uint64_t stale_reports = 0;  // rejected by the generation fence
    std::uint64_t failed = 0;
    std::uint64_t mixed_parent_batches = 0;
    std::uint64_t stuck_batches = 0;  // batches flagged as stuck (see StuckBatch)
    // A reduce with `on_failure skip`: FAILED or SUPPRESSED members left out of its groups.
    std::uint64_t skipped_members = 0;
    // What the Call's UDF counted itself with rop::count (rop/udf.h): "http_retries" -> 3.
    std::map<std::string, std::uint64_t> udf_counters = {};
    // With the result store on: Grains answered from it, Grains that ran instead and why
    // ("code changed in f at udfs/x.hpp:12", "new or changed input", "cache off"...),
    // entries found corrupt (recomputed, never used).
    std::uint64_t cache_hits = 0;
    std::uint64_t cache_misses = 0;
    std::uint64_t cache_corrupt = 0;
    std::map<std::string, std::uint64_t> cache_miss_reasons = {};
};

// A batch that has run far longer than its Call usually takes: longer than
// RunOptions::stuck_min and stuck_factor x the Call's median batch time (0 before any batch of
// the Call has finished). Reported once per batch to RunOptions::on_stuck and listed in every
// Progress while it runs. Often a UDF that hangs in a Call without a timeout.
struct StuckBatch {
    CallId call = 0;
    std::string call_name;                 // the plan's name
    std::size_t grains = 0;                // Grains in the batch
    std::vector<std::string> roots;        // their roots' names, distinct, in batch order
    double running_s = 0;                  // since the batch started on its actor
    double median_s = 0;                   // the Call's median batch time; 0: none finished yet
    std::chrono::milliseconds timeout{0};  // the Call's timeout; 0: none
};

// The rule above: whether a batch running for running_s is stuck, given its Call's median
// batch time (0 when none has finished). Never when stuck_factor <= 0 (detection off).
bool batch_stuck(double running_s, double median_s, double stuck_factor,
                 std::chrono::milliseconds stuck_min);

// The run's work counted in Grains rather than roots, for an ETA that follows the expands
// (docs/runtime.md "Progress"): one root that expands to 427 pages weighs 427 pages' Grains.
// All zero where the executor does not count them (then the ETA counts roots).
struct ProgressWork {
    std::uint64_t sealed = 0;            // Grains finished in this run, every root
    std::uint64_t done_roots = 0;        // roots this run finished (resumed ones excluded)
    std::uint64_t done_root_grains = 0;  // the Grains those roots had
    std::uint64_t inflight_grains = 0;   // Grains created so far under the roots in flight
    // inflight_grains plus the Grains still to come for children an expand announced with
    // rop::expected_children but has not emitted yet (one Grain per Call of the child's Domain).
    double inflight_estimate = 0;
};

// What --estimate predicted for a run (its --estimate-json file, given to the run with
// --with-estimate FILE; docs/runtime.md "Estimates"): the progress ETA follows it, and the report
// and --report-html show it beside what happened. Scaled to this run's roots when the estimate
// was made for another count.
struct PredictedCall {
    std::string name;   // the plan's Call name
    double grains = 0;  // Grains the Call was predicted to seal
    double busy_s = 0;  // its batches' predicted run time, summed
    double utilization = 0;
};
struct RunPrediction {
    std::string file;                 // where it was read from
    std::size_t roots = 0;            // the roots it is for (this run's, after scaling)
    std::size_t estimated_roots = 0;  // the roots the estimate was made for
    std::size_t sample_roots = 0;     // the roots its sample ran
    std::size_t counted_roots = 0;    // the roots whose children it counted (the sample's too)
    std::uint32_t cores = 0;          // the machine shape it assumed
    double makespan_s = 0;
    std::optional<double> makespan_low_s, makespan_high_s;  // over the sample's fan-out
    double first_root_s = 0;
    double p50_commit_s = 0, p99_commit_s = 0;
    // This process's peak resident memory (the sample's peak, plus the payload the whole run
    // holds at once beyond the sample's); nullopt in an older file.
    std::optional<double> peak_rss_bytes;
    std::vector<PredictedCall> calls;  // in plan order
    // The share of the work done over the predicted run: (share, seconds) at each hundredth,
    // the share as the ETA measures it (estimate_remaining_s). Empty in an older file.
    std::vector<std::pair<double, double>> progress;
};

// One reading of the progress ETA, kept for the report: at `at_s` into the run, the ETA said
// the run would end at `end_s` (elapsed + time left).
struct EtaReading {
    double at_s = 0;
    double end_s = 0;
};

struct Progress {
    std::vector<CallCounters> calls;
    std::size_t roots_admitted = 0;
    std::size_t roots_done = 0;
    std::optional<std::size_t> roots_total;
    // Roots the resumed journal lists as finished (counted in roots_done and roots_total as the
    // source reaches them, but never run): their work is not this run's.
    std::size_t roots_resumed = 0;
    double elapsed_s = 0;
    std::vector<StuckBatch> stuck;  // batches flagged stuck and still running
    ProgressWork work = {};
};

enum class RootStatus : std::uint8_t { Ok, Dropped, Failed };
const char* to_string(
    RootStatus status);  // "ok", "dropped", "failed": the report and journal spelling

// A member a reduce with `on_failure skip` left out (RootResult::skipped).
struct SkippedMember {
    std::string call;  // the reduce Call's plan name
    std::uint32_t ordinal = 0;
    std::string reason;
};

struct RootResult {
    std::string name;
    RootStatus status = RootStatus::Ok;
    // Ok (or Dropped) although a skip-reduce absorbed failures below it: what it left out, in
    // the order the reduces resolved. A failure outside every absorbed subtree still fails it.
    bool partial = false;
    std::vector<SkippedMember> skipped;
    bool resumed = false;  // skipped: an earlier run journaled it (status, reason from there)
    // For failures: the first failing Call, its reason and the attempts it took.
    std::string failed_call;
    std::string reason;
    std::uint32_t attempts = 0;
    double latency_s = 0;  // admission to done
};

// Root latencies for the report's percentiles, in bounded memory: every value is kept up to
// kExact of them (8 MiB), then they go into buckets 1% wide that remember the largest latency
// each holds (about 45 KiB however many roots run). A nearest-rank percentile is then the
// largest latency of the bucket that holds it: a latency that happened, within 1% of the exact
// one.
class LatencySample {
  public:
    static constexpr std::size_t kExact = std::size_t{1} << 20;
    void add(double seconds);
    void add(const LatencySample& other);
    std::size_t size() const { return n_; }
    bool exact() const { return buckets_.empty(); }
    // The nearest-rank percentile (the smallest latency with at least `percent`% of the sample
    // at or below it; exact() or within 1%) and the largest latency. size() > 0.
    double percentile(std::size_t percent) const;
    double max() const { return max_; }

  private:
    void to_buckets();
    std::size_t n_ = 0;
    double max_ = 0;
    std::vector<double> values_;          // while exact
    std::vector<std::uint64_t> buckets_;  // then: counts per bucket
    std::vector<double> bucket_max_;      // the largest latency in each bucket
};

// Roots a run counts instead of listing: all but failed and partial ones with
// RunOptions::report_ok_roots off; all but the first few failed ones when RunOptions::
// on_root_result takes them.
struct OmittedRoots {
    std::size_t ok = 0, dropped = 0, failed = 0;
    std::size_t resumed = 0;  // of those, skipped because an earlier run journaled them
    LatencySample latency;    // of those run by this process (not the resumed ones)
};

struct RunReport {
    bool aborted = false;  // a Call with recovery=abort hit an opaque error
    std::string abort_reason;
    bool interrupted = false;          // a StopRequest ended the run early (see StopRequest)
    std::string interrupt_reason;      // e.g. "SIGINT"; unfinished roots say "interrupted (...)"
    std::size_t unfinished_roots = 0;  // admitted roots an interruption left unfinished
    std::vector<RootResult> roots;     // in source order
    OmittedRoots omitted;              // not in roots (RunOptions::report_ok_roots off)
    std::vector<CallCounters> calls;
    double wall_s = 0;
    double time_to_first_root_s = 0;
    std::size_t peak_inflight_roots = 0;
    std::size_t peak_live_items = 0;
    std::size_t peak_live_bytes = 0;  // payload bytes held by the lineage store at the worst
    // The process's peak resident memory (pipeline_main fills it); 0: unknown.
    std::uint64_t peak_rss_bytes = 0;
    // Streaming expand batches paused because payloads were over max_payload_bytes.
    std::uint64_t backpressure_pauses = 0;
    std::size_t entities = 0;  // roots and children created
    // Lineage tables at their largest, sampled before each release of finished roots
    // (capacity, payloads excluded): with roots released as they finish, this follows the
    // roots in flight, not the run.
    std::size_t lineage_bytes = 0;
    // With the result store: entries found damaged (removed, their Grains ran again) and
    // results that could not be stored, one line each.
    std::vector<std::string> cache_notes;
    // With the result store: roots answered whole from it (no Grain created; their Grains are
    // counted in the Calls' cache_hits).
    std::uint64_t cache_roots_answered = 0;
    // RunOptions::keep_batches: every batch that finished, in the order they did (not in the JSON).
    std::vector<BatchRecord> batches;
    // pipeline_main: the estimate the run was given (--with-estimate), and what its header ETA said
    // along the way (at most ~70 readings, spaced geometrically); both in the JSON.
    std::optional<RunPrediction> prediction;
    std::vector<EtaReading> eta;
    // Who ran: filled by pipeline_main, empty when run() is called directly (null in the JSON).
    std::string pipeline;     // PipelineDefinition::name
    std::string rop_version;  // PipelineDefinition::version (the ropc that built it)
    std::string rop_hash;     // PipelineDefinition::rop_hash: of the `.rop` text
    std::string host;         // gethostname()
    std::string started_at;   // ISO-8601 UTC, e.g. 2026-12-01T17:47:27.123Z
    std::string ended_at;
    std::size_t total_roots() const {
        return roots.size() + omitted.ok + omitted.dropped + omitted.failed;
    }
    std::size_t failed_roots() const;  // listed and omitted
    std::string to_json() const;       // the run report (--report FILE)
    // The report in two parts, for a report whose roots were streamed (pipeline_main writes
    // each root as it is released, RunOptions::on_root_result): one root's entry, and
    // everything but the roots (their summary and percentiles count `roots` and `omitted`).
    static std::string root_json(const RootResult& root);  // one line
    std::string summary_json() const;  // an object, dump(2) style, without "roots"
};

// Runs the plan to completion on the default thread-actor executor. Never loses a root: every
// root ends Ok, Dropped or Failed(reason) in the report, or the run is reported aborted.
RunReport run(const Plan& plan, RootSource& source, const RunOptions& options = {});

}  // namespace rop::runtime
