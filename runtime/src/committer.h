// The committer: turns an actor's reports into lineage facts. The generation fence (only a
// Grain still in flight in the attempt it was dispatched with commits), the whole-batch
// pre-scan (explicit failures first, then barrier checks, then the rest), multi-output
// atomicity, the recovery policies (retry_batch, retry_tail, isolate_tail, abort), infra
// replay, timeouts, and the suppression barriers a GroupFailure installs. A new recovery policy
// goes here (recover_opaque).
#pragma once

#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "lineage_store.h"

namespace rop::runtime::detail {

class Resolver;
class Scheduler;

class Committer {
  public:
    Committer(const RunOptions& options, LineageStore& store, Scheduler& scheduler,
              std::vector<CallCounters>& counters);
    Committer(const Committer&) = delete;
    Committer& operator=(const Committer&) = delete;
    void connect(Resolver* resolver) { resolver_ = resolver; }

    void on_report(Report& report);
    // After a report that raised a barrier or doomed a subtree: the Grains in flight whose
    // results will now be discarded are marked unwanted, so their actors may skip them.
    void mark_unwanted();
    bool take_streamed();  // children streamed by in-flight expand batches
    void check_timeouts();

    // ---- suppression barriers (GroupFailure) ----
    bool barred(CallId call, EntityId entity) const {
        if (barrier_count_[call] == 0 || store_.parent(entity) == kNoEntity) return false;
        return barriers_.count(barrier_key(call, store_.parent(entity))) != 0;
    }
    // Whether a GroupFailure barred some Call over the children of `parent` (only looked for
    // when a member of a skip-reduce's group is FAILED or SUPPRESSED).
    bool group_failed(EntityId parent, std::span<const Outcome> members) const;
    std::uint64_t suppressions() const { return barriers_.size() + store_.dooms(); }

    // ---- abort (recovery abort) ----
    bool aborted() const { return aborted_; }
    const std::string& abort_reason() const { return abort_reason_; }
    Clock::time_point abort_deadline() const { return abort_deadline_; }

  private:
    static std::uint64_t barrier_key(CallId call, EntityId parent) {
        return (static_cast<std::uint64_t>(call) << 32) | parent;
    }
    bool is_live(const BatchJob& job, std::size_t g) const {
        return store_.is_live(job.call, job.grains[g], job.generations[g]);
    }
    void install_barrier(CallId call, EntityId entity);
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
    std::vector<CallCounters>& counters_;
    Resolver* resolver_ = nullptr;

    std::unordered_set<std::uint64_t> barriers_;
    std::vector<std::uint32_t> barrier_count_;  // barriers installed per Call
    std::vector<std::uint8_t> built_;  // per Call: some actor of it was built (ran a batch)
    bool aborted_ = false;
    std::string abort_reason_;
    Clock::time_point abort_deadline_{};  // aborted: stop waiting for running batches then

    std::vector<EmittedChild> stream_scratch_;
    std::vector<std::pair<std::uint32_t, std::uint64_t>> expected_scratch_;
    std::vector<std::uint32_t> live_scratch_, head_scratch_, tail_scratch_;  // on_done
};

}  // namespace rop::runtime::detail
