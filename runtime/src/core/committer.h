// The committer: turns an actor's reports into lineage facts. The generation fence (only a
// Grain still in flight in the attempt it was dispatched with commits), the whole-batch
// pre-scan (explicit failures first, then barrier checks, then the rest), multi-output
// atomicity, the recovery policies (retry_batch, retry_tail, isolate_tail, abort), infra
// replay, timeouts, and when a GroupFailure installs its suppression barrier (the barriers
// themselves are lineage facts: LineageStore::install_barrier). A new recovery policy goes here
// (recover_opaque).
#pragma once

#include <string>
#include <vector>

#include "lineage_store.h"

namespace rop::runtime::detail {

class Scheduler;

// Per Call, what the committer counts (its part of CallCounters).
struct RecoveryCounts {
    // Replays after an opaque UDF error: one per replayed batch; retried_items its Grains.
    std::uint64_t retries = 0, retried_items = 0;
    // Replays after an infra failure (crash, timeout, a failed setup).
    std::uint64_t infra_retries = 0, infra_retried_items = 0;
    std::uint64_t stale_reports = 0;  // Grains of reports the generation fence rejected
};

class Committer {
  public:
    // `drain`: resolves the store's tasks after a report's facts are committed.
    Committer(const RunOptions& options, LineageStore& store, Scheduler& scheduler,
              TaskDrain& drain);
    Committer(const Committer&) = delete;
    Committer& operator=(const Committer&) = delete;

    void on_report(Report& report);
    // After a report that raised a barrier or doomed a subtree: the Grains in flight whose
    // results will now be discarded are marked unwanted, so their actors may skip them.
    void mark_unwanted();
    bool take_streamed();  // children streamed by in-flight expand batches
    void check_timeouts();

    const RecoveryCounts& counts(CallId call) const { return counts_[call]; }

    // ---- abort (recovery abort) ----
    bool aborted() const { return aborted_; }
    const std::string& abort_reason() const { return abort_reason_; }
    Clock::time_point abort_deadline() const { return abort_deadline_; }

  private:
    bool is_live(const BatchJob& job, std::size_t g) const {
        return store_.is_live(job.call, job.grains[g], job.generations[g]);
    }
    void release_stream_scratch();
    void on_emitted(BatchJob& job, std::vector<EmittedChild>& children);
    void on_expected(BatchJob& job);  // the hints in expected_scratch_
    void on_done(BatchJob& job);
    void on_group_failed(BatchJob& job, std::uint32_t g, const std::string& reason);
    void commit_grain(BatchJob& job, std::size_t g);
    // tail: batch indexes to replay (retry_batch: the whole live batch).
    void recover_opaque(BatchJob& job, std::vector<std::uint32_t>& tail);
    void abort_on(BatchJob& job, const std::vector<std::uint32_t>& tail);  // recovery abort
    void requeue_halves(CallId call, std::vector<std::uint32_t> grains);
    void fail_or_bisect(CallId call, std::vector<std::uint32_t> spent, const std::string& reason);
    void recover_infra(BatchJob& job, const std::string& reason);
    void abort_run(std::string reason);  // no more roots, no more batches; the first reason stays
    void fail_grain(CallId call, std::uint32_t local, const std::string& reason);

    const RunOptions& options_;
    LineageStore& store_;
    Scheduler& scheduler_;
    TaskDrain& drain_;
    std::vector<RecoveryCounts> counts_;
    std::vector<std::uint8_t> built_;  // per Call: some actor of it was built (ran a batch)
    bool aborted_ = false;
    std::string abort_reason_;
    Clock::time_point abort_deadline_{};  // aborted: stop waiting for running batches then

    std::vector<EmittedChild> stream_scratch_;
    std::vector<std::pair<std::uint32_t, std::uint64_t>> expected_scratch_;
    std::vector<std::uint32_t> live_scratch_, head_scratch_, tail_scratch_;  // on_done
};

}  // namespace rop::runtime::detail
