// The committer (committer.h): the generation fence, the whole-batch pre-scan (explicit failures
// first, then barrier checks, then the rest), multi-output atomicity, recovery policies, infra
// replay and timeouts.
#include "committer.h"

#include <algorithm>
#include <string>

#include "scheduler.h"

namespace rop::runtime::detail {

// Streamed children are resolved (drain) every this many, so that the work list stays small
// (a 64-root expand batch of 10k children each would otherwise queue 640k tasks at once).
constexpr std::uint32_t kDrainEvery = 64;
// Streamed-child buffers larger than this many entries are freed after use.
constexpr std::size_t kKeepStreamCapacity = std::size_t{1} << 16;

namespace {

bool is_success(GrainResult r) {
    return r == GrainResult::Ok || r == GrainResult::Keep || r == GrainResult::Drop;
}

}  // namespace

// The commit fence (LineageStore::is_live) is the only guard, on purpose: an abandoned job's
// Grains were replayed (generation+1) or failed (sealed) when it was abandoned, and an
// out-of-process executor may deliver an older attempt's report by a path that no driver-side
// flag can see.

Committer::Committer(const RunOptions& options, LineageStore& store, Scheduler& scheduler,
                     TaskDrain& drain)
    : options_(options),
      store_(store),
      scheduler_(scheduler),
      drain_(drain),
      counts_(store.num_calls()),
      built_(store.num_calls(), 0) {}

void Committer::on_report(Report& report) {
    if (!report.job) return;  // a wake-up: take_streamed() runs after every inbox
    const std::uint64_t before = store_.suppressions();
    if (report.kind == Report::Kind::Emitted) {
        on_emitted(*report.job, report.children);
    } else if (report.kind == Report::Kind::GroupFailed) {
        on_group_failed(*report.job, report.grain, report.reason);
    } else {
        on_done(*report.job);
    }
    if (store_.suppressions() != before) mark_unwanted();
}

void Committer::mark_unwanted() {
    scheduler_.mark_unwanted([this](const BatchJob& job, std::size_t g) {
        if (!is_live(job, g)) return false;
        return store_.suppressed(
            job.call, store_.entity_of(store_.layout(job.call).spec->domain, job.grains[g]));
    });
}

bool Committer::take_streamed() {
    bool any = false;
    std::vector<BatchJob*>& streaming = scheduler_.streaming();
    for (std::size_t i = 0; i < streaming.size(); ++i) {
        BatchJob* job = streaming[i];
        {
            std::lock_guard<std::mutex> lock(job->children_mutex);
            if (job->children.empty() && job->expected_children.empty()) continue;
            stream_scratch_.swap(job->children);
            expected_scratch_.swap(job->expected_children);
        }
        any = true;
        on_expected(*job);
        on_emitted(*job, stream_scratch_);
        release_stream_scratch();
    }
    return any;
}

// Streamed-child buffers swap between the driver and the workers; one that grew past
// kKeepStreamCapacity (an expand batch of 64 roots x 10k children) is freed once no more
// expand work can come (source exhausted, no expand batch in flight) instead of being held to
// the end of the run: 32 bytes a child (B1's lineage bytes). Before that it is reused.
void Committer::release_stream_scratch() {
    stream_scratch_.clear();
    if (stream_scratch_.capacity() > kKeepStreamCapacity && scheduler_.no_more_streaming()) {
        std::vector<EmittedChild>().swap(stream_scratch_);  // (= {} would keep the capacity)
    }
}

// rop::expected_children hints (progress only: no lineage fact depends on them).
void Committer::on_expected(BatchJob& job) {
    for (const auto& [grain, children] : expected_scratch_) {
        if (!is_live(job, grain)) continue;
        store_.expect_children(job.call, job.grains[grain], children);
    }
    expected_scratch_.clear();
}

void Committer::on_emitted(BatchJob& job, std::vector<EmittedChild>& children) {
    const DomainId domain = store_.layout(job.call).spec->domain;
    std::uint32_t since_drain = 0;
    for (EmittedChild& child : children) {
        if (!is_live(job, child.grain)) continue;  // a stale attempt: not a fact
        const std::uint32_t local = job.grains[child.grain];
        const EntityId e = store_.entity_of(domain, local);
        if (store_.suppressed(job.call, e)) continue;  // will be fenced at commit
        store_.add_child(job.call, local, child.ordinal, std::move(child.value));
        if (++since_drain == kDrainEvery) {
            since_drain = 0;
            drain_.drain();
        }
    }
    children.clear();
    drain_.drain();
}

// A GroupFailure streamed while its batch runs: the same fact pre-scan 1 of on_done() commits
// (the barrier, then the Grain failed), committed now if the attempt is still live. The Grain is
// then sealed, so the batch's Done passes over it; its siblings in that batch are unwanted from
// now on (mark_unwanted, in on_report).
void Committer::on_group_failed(BatchJob& job, std::uint32_t g, const std::string& reason) {
    if (g >= job.size() || !is_live(job, g)) return;  // a stale attempt: not a fact
    const CallSpec& spec = *store_.layout(job.call).spec;
    const std::uint32_t local = job.grains[g];
    store_.install_barrier(job.call, store_.entity_of(spec.domain, local));
    fail_grain(job.call, local, reason);
    ++job.streamed_failures;
    drain_.drain();
}

void Committer::on_done(BatchJob& job) {
    const CallSpec& spec = *store_.layout(job.call).spec;
    if (spec.kind == CallKind::Expand) {
        std::lock_guard<std::mutex> lock(job.children_mutex);  // the actor is done with it
        stream_scratch_.swap(job.children);
        expected_scratch_.swap(job.expected_children);
    }
    on_expected(job);
    scheduler_.finished(job);
    if (!stream_scratch_.empty()) {
        on_emitted(job, stream_scratch_);
        release_stream_scratch();
    }
    std::vector<std::uint32_t>& live = live_scratch_;  // reused: no allocation per batch
    live.clear();
    for (std::size_t g = 0; g < job.size(); ++g) {
        if (is_live(job, g)) live.push_back(static_cast<std::uint32_t>(g));
    }
    // Grains a streamed GroupFailure already sealed are not stale reports.
    counts_[job.call].stale_reports += job.size() - live.size() - job.streamed_failures;
    if (live.empty()) {
        scheduler_.recycle(&job);
        return;
    }
    if (job.error == BatchError::Contract) {
        throw ContractError("call '" + spec.name + "': " + job.error_message);
    }
    if (job.error == BatchError::Setup && !built_[job.call]) {
        // No actor of this Call was ever built: a setup error (missing model data, a bad
        // argument, a server down at start) would fail every root alike, so the run stops once,
        // with one message. The roots in flight are reported as ended by the abort.
        abort_run("call '" + spec.name + "': " + job.error_message);
        scheduler_.recycle(&job);
        return;
    }
    if (job.error != BatchError::Setup) built_[job.call] = true;
    if (job.error == BatchError::Infra || job.error == BatchError::Setup) {
        recover_infra(job, "infra: " + job.error_message);
        scheduler_.recycle(&job);
        drain_.drain();
        return;
    }
    std::vector<std::uint32_t>& head = head_scratch_;
    std::vector<std::uint32_t>& tail = tail_scratch_;
    head.clear();
    tail.clear();
    for (std::uint32_t g : live) {
        (job.results[g] == GrainResult::None ? tail : head).push_back(g);
    }
    if (job.error == BatchError::Opaque && spec.options.recovery == Recovery::RetryBatch) {
        tail = live;
        head.clear();
    }
    if (job.error == BatchError::Unattributed && tail.size() == 1) {
        // A typed failure naming no item, and one item left without a result: that item is
        // the one it was about. It fails like a named one (a GroupFailure raises its barrier
        // in pre-scan 1, before this batch's siblings commit).
        job.results[tail[0]] = job.error_kind;
        job.reasons.emplace_back(tail[0], job.error_message);
        head.push_back(tail[0]);
        tail.clear();
    }
    // Pre-scan 1: explicit failures; a GroupFailure installs its barrier before anything commits.
    for (const auto& [g, reason] : job.reasons) {
        if (g >= job.size() || !is_live(job, g)) continue;
        if (std::find(head.begin(), head.end(), g) == head.end()) continue;
        const GrainResult r = job.results[g];
        if (r != GrainResult::RecordFailed && r != GrainResult::GroupFailed) continue;
        const std::uint32_t local = job.grains[g];
        if (r == GrainResult::GroupFailed) {
            store_.install_barrier(job.call, store_.entity_of(spec.domain, local));
        }
        fail_grain(job.call, local, reason);
    }
    // Pre-scan 2 and 3: successes behind a barrier (or under a failed expansion) are discarded
    // before any Item, Expansion or child is created; the rest commits, all outputs at once.
    for (std::uint32_t g : head) {
        if (!is_success(job.results[g]) || !is_live(job, g)) continue;
        const std::uint32_t local = job.grains[g];
        if (store_.suppressed(job.call, store_.entity_of(spec.domain, local))) {
            store_.seal_without_running(job.call, local, Outcome::Suppressed, GrainEvent::Commit);
        } else {
            commit_grain(job, g);
        }
    }
    if (!tail.empty()) {
        if (job.error == BatchError::Opaque && spec.options.recovery == Recovery::Abort) {
            abort_on(job, tail);
        } else if (job.error == BatchError::Opaque) {
            recover_opaque(job, tail);
        } else if (job.error == BatchError::Unattributed) {
            // Which item the typed failure was about is unknown: replay the items left without
            // a result in halves (generation+1) until it is thrown for one alone. Deterministic
            // failures are not retried, so no retry budget is spent.
            std::vector<std::uint32_t> grains;
            for (std::uint32_t g : tail) grains.push_back(job.grains[g]);
            RecoveryCounts& counters = counts_[job.call];
            counters.retries += 2;  // the two halves
            counters.retried_items += grains.size();
            requeue_halves(job.call, std::move(grains));
        } else {  // a typed failure was thrown mid-batch: replay the Grains left without result
            std::vector<std::uint32_t> grains;
            for (std::uint32_t g : tail) grains.push_back(job.grains[g]);
            scheduler_.requeue(job.call, std::move(grains), false);
        }
    }
    scheduler_.recycle(&job);
    drain_.drain();
}

void Committer::commit_grain(BatchJob& job, std::size_t g) {
    const CallSpec& spec = *store_.layout(job.call).spec;
    const std::uint32_t local = job.grains[g];
    Outcome sealed = Outcome::Present;
    switch (spec.kind) {
        case CallKind::Map:
        case CallKind::Reduce:
            for (std::size_t o = 0; o < spec.outputs.size(); ++o) {
                store_.publish(spec.outputs[o], local, Outcome::Present,
                               std::move(job.outputs[g * job.num_outputs + o]));
            }
            break;
        case CallKind::Filter:
            if (job.results[g] == GrainResult::Keep) {
                store_.publish(
                    spec.outputs[0], local, Outcome::Present,
                    job.inputs[g * job.num_inputs]);  // the source value passes unchanged
            } else {
                store_.publish(spec.outputs[0], local, Outcome::Dropped, Value());
                sealed = Outcome::Dropped;
            }
            break;
        case CallKind::Expand:
            store_.set_expansion(job.call, local, ExpansionState::Succeeded);
            break;
        case CallKind::Broadcast:
        case CallKind::Source:
        case CallKind::Sink: break;  // not in a Plan (PlanBuilder refuses them)
    }
    store_.advance(job.call, local, GrainEvent::Commit, sealed);
}

void Committer::fail_grain(CallId call, std::uint32_t local, const std::string& reason) {
    const GrainCell& g = store_.grain(call, local);
    store_.record_failure(call, local, reason, static_cast<std::uint32_t>(g.generation) + 1u);
    store_.seal_without_running(call, local, Outcome::Failed, GrainEvent::Commit);
}

// Opaque UDF errors, by the Call's recovery policy (Abort is handled by the caller).
void Committer::recover_opaque(BatchJob& job, std::vector<std::uint32_t>& tail) {
    const CallOptions& opt = store_.layout(job.call).spec->options;
    RecoveryCounts& counters = counts_[job.call];
    const std::string reason = "udf error: " + job.error_message;
    std::vector<std::uint32_t> again;
    if (opt.recovery != Recovery::IsolateTail || tail.size() == 1) {
        std::vector<std::uint32_t> spent;  // out of retries
        for (std::uint32_t g : tail) {
            const std::uint32_t local = job.grains[g];
            const std::uint32_t attempts = store_.count_attempt(job.call, local);
            (attempts <= opt.retries ? again : spent).push_back(local);
        }
        if (!again.empty()) ++counters.retries;       // one replayed batch
        if (spent.size() > 1) counters.retries += 2;  // bisection halves
        counters.retried_items += again.size() + (spent.size() > 1 ? spent.size() : 0);
        scheduler_.requeue(job.call, std::move(again), false);
        fail_or_bisect(job.call, std::move(spent), reason);
        return;
    }
    // isolate_tail: replay the tail once, then bisect still-failing batches until single
    // Grains fail alone. Each Grain runs at most 2 + log2(batch) + retries times.
    bool first = false;
    for (std::uint32_t g : tail)
        first = first || store_.grain(job.call, job.grains[g]).attempts == 0;
    for (std::uint32_t g : tail) {
        store_.count_attempt(job.call, job.grains[g]);
        again.push_back(job.grains[g]);
    }
    counters.retries += (first || again.size() < 2) ? 1 : 2;  // the tail, or its halves
    counters.retried_items += again.size();
    if (first) {
        scheduler_.requeue(job.call, std::move(again), false);
        return;
    }
    requeue_halves(job.call, std::move(again));
}

// Splits Grains that keep failing together into two deferred halves, so that a culprit ends up
// alone: each Grain runs at most log2(batch) more times.
void Committer::requeue_halves(CallId call, std::vector<std::uint32_t> grains) {
    const auto mid = static_cast<std::ptrdiff_t>(grains.size() / 2);
    scheduler_.requeue(call, std::vector<std::uint32_t>(grains.begin(), grains.begin() + mid),
                       true);
    scheduler_.requeue(call, std::vector<std::uint32_t>(grains.begin() + mid, grains.end()), true);
}

// Grains whose retry (or infra) budget is spent: one that failed alone fails; several that
// failed together are bisected first, so that no root that only shared the batch with the
// culprit is failed (SEMANTICS.md: no policy fails a root that did nothing wrong). Their budget
// stays spent, so each half that fails again is split again, down to single Grains.
void Committer::fail_or_bisect(CallId call, std::vector<std::uint32_t> spent,
                               const std::string& reason) {
    if (spent.empty()) return;
    if (spent.size() == 1) {
        fail_grain(call, spent.front(), reason);
        return;
    }
    requeue_halves(call, std::move(spent));
}

// recovery abort: the error stops the run -- unless every Grain it could have come from was
// already doomed by a GroupFailure barrier (or a failed expansion): those are SUPPRESSED, as under
// any policy, and the run goes on. Runs after the pre-scan, so a GroupFailure reported in this
// very batch has installed its barrier and keeps its own reason.
void Committer::abort_on(BatchJob& job, const std::vector<std::uint32_t>& tail) {
    const CallSpec& spec = *store_.layout(job.call).spec;
    std::vector<std::uint32_t> culprits;
    for (std::uint32_t g : tail) {
        const std::uint32_t local = job.grains[g];
        if (store_.suppressed(job.call, store_.entity_of(spec.domain, local))) {
            store_.seal_without_running(job.call, local, Outcome::Suppressed, GrainEvent::Commit);
        } else {
            culprits.push_back(local);
        }
    }
    if (culprits.empty()) return;
    abort_run("call '" + spec.name + "': " + job.error_message);
    for (std::uint32_t local : culprits) {
        fail_grain(job.call, local, "udf error (abort): " + job.error_message);
    }
}

void Committer::abort_run(std::string reason) {
    if (aborted_) return;
    aborted_ = true;
    abort_deadline_ = Clock::now() + options_.stop_grace;
    abort_reason_ = std::move(reason);
    scheduler_.halt();
}

void Committer::recover_infra(BatchJob& job, const std::string& reason) {
    const std::uint32_t budget = store_.layout(job.call).spec->options.infra_retries;
    RecoveryCounts& counters = counts_[job.call];
    std::vector<std::uint32_t> again, spent;
    for (std::size_t g = 0; g < job.size(); ++g) {
        if (!is_live(job, g)) continue;
        const std::uint32_t local = job.grains[g];
        (store_.count_infra(job.call, local) <= budget ? again : spent).push_back(local);
    }
    if (!again.empty()) ++counters.infra_retries;       // one replayed batch
    if (spent.size() > 1) counters.infra_retries += 2;  // bisection halves
    counters.infra_retried_items += again.size() + (spent.size() > 1 ? spent.size() : 0);
    scheduler_.requeue(job.call, std::move(again), false);
    if (spent.size() == 1) {  // alone and out of replays: it fails, saying how often it was tried
        const unsigned attempts = store_.grain(job.call, spent.front()).infra;
        fail_grain(job.call, spent.front(),
                   reason + " (after " + std::to_string(attempts) +
                       (attempts == 1 ? " attempt)" : " attempts)"));
        return;
    }
    fail_or_bisect(job.call, std::move(spent), reason);
}

void Committer::check_timeouts() {
    if (!scheduler_.any_timed()) return;  // the common case: no clock read per loop turn
    const std::vector<BatchJob*> expired = scheduler_.expired(Clock::now());
    for (BatchJob* job : expired) {
        const CallSpec& spec = *store_.layout(job->call).spec;
        std::vector<std::uint32_t> live;
        for (std::size_t g = 0; g < job->size(); ++g) {
            if (is_live(*job, g)) live.push_back(job->grains[g]);
        }
        if (live.size() > 1) {
            // One hung item must not time out its batch-mates: the halves run (and are timed)
            // on their own, down to single items; only a single item spends its infra budget.
            RecoveryCounts& counters = counts_[job->call];
            counters.infra_retries += 2;
            counters.infra_retried_items += live.size();
            requeue_halves(job->call, std::move(live));
        } else {
            recover_infra(*job, "infra: timeout after " +
                                    std::to_string(spec.options.timeout.count()) +
                                    " ms (actor abandoned)");
        }
        scheduler_.abandon(*job);
    }
    if (!expired.empty()) drain_.drain();
}

}  // namespace rop::runtime::detail
