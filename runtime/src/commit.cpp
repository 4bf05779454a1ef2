// Commit of reports: the generation fence, the whole-batch pre-scan (explicit failures first,
// then barrier checks, then the rest), multi-output atomicity, recovery policies, infra replay
// and timeouts.
#include <algorithm>
#include <string>

#include "engine.h"

namespace rop::runtime::detail {

// Streamed children are resolved (drain) every this many, so that the work list stays small
// (a 64-root expand batch of 10k children each would otherwise queue 640k tasks at once).
constexpr std::uint32_t kDrainEvery = 64;
// Streamed-child buffers larger than this many entries are freed after use.
constexpr std::size_t kKeepStreamCapacity = std::size_t{1} << 16;

namespace {

// The commit fence: a report counts only for a Grain still in flight in the attempt the job
// was dispatched with. It is the only guard, on purpose: an abandoned job's Grains were replayed
// (generation+1) or failed (sealed) when it was abandoned, and an out-of-process executor may
// deliver an older attempt's report by a path that no driver-side flag can see.
bool is_live(const CallState& cs, const BatchJob& job, std::size_t g) {
    const GrainCell& cell = cs.grains[job.grains[g]];
    return cell.phase == GrainPhase::InFlight && cell.generation == job.generations[g];
}

bool is_success(GrainResult r) {
    return r == GrainResult::Ok || r == GrainResult::Keep || r == GrainResult::Drop;
}

}  // namespace

void Engine::on_report(Report& report) {
    if (!report.job) return;  // a wake-up: take_streamed() runs after every inbox
    if (report.kind == Report::Kind::Emitted) {
        on_emitted(*report.job, report.children);
    } else {
        on_done(*report.job);
    }
}

bool Engine::take_streamed() {
    bool any = false;
    for (std::size_t i = 0; i < streaming_.size(); ++i) {
        BatchJob* job = streaming_[i];
        {
            std::lock_guard<std::mutex> lock(job->children_mutex);
            if (job->children.empty()) continue;
            stream_scratch_.swap(job->children);
        }
        any = true;
        on_emitted(*job, stream_scratch_);
        release_stream_scratch();
    }
    return any;
}

// Streamed-child buffers swap between the driver and the workers; one that grew past
// kKeepStreamCapacity (an expand batch of 64 roots x 10k children) is freed once no more
// expand work can come (source exhausted, no expand batch in flight) instead of being held to
// the end of the run: 32 bytes a child (B1's lineage bytes). Before that it is reused.
void Engine::release_stream_scratch() {
    stream_scratch_.clear();
    if (stream_scratch_.capacity() > kKeepStreamCapacity && no_more_streaming()) {
        std::vector<EmittedChild>().swap(stream_scratch_);  // (= {} would keep the capacity)
    }
}

void Engine::on_emitted(BatchJob& job, std::vector<EmittedChild>& children) {
    const CallState& cs = calls_[job.call];
    std::uint32_t since_drain = 0;
    for (EmittedChild& child : children) {
        if (!is_live(cs, job, child.grain)) continue;  // a stale attempt: not a fact
        const std::uint32_t local = job.grains[child.grain];
        const EntityId e = entity_of(cs.spec->domain, local);
        if (doomed_[e] || barred(job.call, e)) continue;  // will be fenced at commit
        add_child(job.call, local, child.ordinal, std::move(child.value));
        if (++since_drain == kDrainEvery) {
            since_drain = 0;
            drain();
        }
    }
    children.clear();
    drain();
}

void Engine::on_done(BatchJob& job) {
    CallState& cs = calls_[job.call];
    if (cs.spec->kind == CallKind::Expand) {
        streaming_.erase(std::remove(streaming_.begin(), streaming_.end(), &job), streaming_.end());
        std::lock_guard<std::mutex> lock(job.children_mutex);  // the actor is done with it
        stream_scratch_.swap(job.children);
    }
    if (!stream_scratch_.empty()) {
        on_emitted(job, stream_scratch_);
        release_stream_scratch();
    }
    job.running = false;
    --live_jobs_;
    if (job.abandoned) {
        --abandoned_jobs_;
    } else {
        --cs.inflight;
        if (cs.spec->options.timeout.count() > 0) {
            timed_.erase(std::remove(timed_.begin(), timed_.end(), &job), timed_.end());
        }
    }
    if (!options_.trace_path.empty()) {
        trace_.push_back({job.call, job.actor, static_cast<std::uint32_t>(job.size()), job.parents,
                          job.start_ns, job.end_ns, job.abandoned});
    }
    std::vector<std::uint32_t>& live = live_scratch_;  // reused: no allocation per batch
    live.clear();
    for (std::size_t g = 0; g < job.size(); ++g) {
        if (is_live(cs, job, g)) live.push_back(static_cast<std::uint32_t>(g));
    }
    cs.counters.stale_reports += job.size() - live.size();
    if (live.empty()) {
        recycle(&job);
        return;
    }
    if (job.error == BatchError::Contract) {
        throw ContractError("call '" + cs.spec->name + "': " + job.error_message);
    }
    if (job.error == BatchError::Infra) {
        recover_infra(job, "infra: " + job.error_message);
        recycle(&job);
        drain();
        return;
    }
    std::vector<std::uint32_t>& head = head_scratch_;
    std::vector<std::uint32_t>& tail = tail_scratch_;
    head.clear();
    tail.clear();
    for (std::uint32_t g : live) {
        (job.results[g] == GrainResult::None ? tail : head).push_back(g);
    }
    if (job.error == BatchError::Opaque && cs.spec->options.recovery == Recovery::RetryBatch) {
        tail = live;
        head.clear();
    }
    // Pre-scan 1: explicit failures; a GroupFailure installs its barrier before anything commits.
    for (const auto& [g, reason] : job.reasons) {
        if (g >= job.size() || !is_live(cs, job, g)) continue;
        if (std::find(head.begin(), head.end(), g) == head.end()) continue;
        const GrainResult r = job.results[g];
        if (r != GrainResult::RecordFailed && r != GrainResult::GroupFailed) continue;
        const std::uint32_t local = job.grains[g];
        if (r == GrainResult::GroupFailed) {
            install_barrier(job.call, entity_of(cs.spec->domain, local));
        }
        fail_grain(job.call, local, reason);
    }
    // Pre-scan 2 and 3: successes behind a barrier (or under a failed expansion) are discarded
    // before any Item, Expansion or child is created; the rest commits, all outputs at once.
    for (std::uint32_t g : head) {
        if (!is_success(job.results[g]) || !is_live(cs, job, g)) continue;
        const std::uint32_t local = job.grains[g];
        const EntityId e = entity_of(cs.spec->domain, local);
        if (doomed_[e] || barred(job.call, e)) {
            seal_without_running(job.call, local, Outcome::Suppressed, GrainEvent::Commit);
        } else {
            commit_grain(job, g);
        }
    }
    if (!tail.empty()) {
        if (job.error == BatchError::Opaque && cs.spec->options.recovery == Recovery::Abort) {
            abort_on(job, tail);
        } else if (job.error == BatchError::Opaque) {
            recover_opaque(job, tail);
        } else {  // a typed failure was thrown mid-batch: replay the Grains left without result
            std::vector<std::uint32_t> grains;
            for (std::uint32_t g : tail) grains.push_back(job.grains[g]);
            requeue(job.call, std::move(grains), false);
        }
    }
    recycle(&job);
    drain();
}

void Engine::commit_grain(BatchJob& job, std::size_t g) {
    CallState& cs = calls_[job.call];
    const CallSpec& spec = *cs.spec;
    const std::uint32_t local = job.grains[g];
    switch (spec.kind) {
        case CallKind::Map:
        case CallKind::Reduce:
            for (std::size_t o = 0; o < spec.outputs.size(); ++o) {
                publish(spec.outputs[o], local, Outcome::Present,
                        std::move(job.outputs[g * job.num_outputs + o]));
            }
            break;
        case CallKind::Filter:
            if (job.results[g] == GrainResult::Keep) {
                publish(spec.outputs[0], local, Outcome::Present,
                        job.inputs[g * job.num_inputs]);  // the source value passes unchanged
            } else {
                publish(spec.outputs[0], local, Outcome::Dropped, Value());
                ++cs.counters.dropped;
            }
            break;
        case CallKind::Expand: set_expansion(job.call, local, ExpansionState::Succeeded); break;
        case CallKind::Broadcast: break;
    }
    ++cs.counters.grains;
    seal(job.call, local, GrainEvent::Commit);
}

void Engine::fail_grain(CallId call, std::uint32_t local, const std::string& reason) {
    CallState& cs = calls_[call];
    const GrainCell& g = cs.grains[local];
    record_failure(call, local, reason,
                   static_cast<std::uint32_t>(g.generation) + 1u);
    ++cs.counters.grains;
    seal_without_running(call, local, Outcome::Failed, GrainEvent::Commit);
}

void Engine::requeue(CallId call, std::vector<std::uint32_t> grains, bool deferred) {
    if (grains.empty()) return;
    CallState& cs = calls_[call];
    for (std::uint32_t local : grains) {
        GrainCell& g = cs.grains[local];
        g.phase = *grain_transition(g.phase, GrainEvent::Recover);
        ++g.generation;
    }
    (deferred ? cs.deferred : cs.immediate).push_back({std::move(grains)});
}

// Opaque UDF errors, by the Call's recovery policy (Abort is handled by the caller).
void Engine::recover_opaque(BatchJob& job, std::vector<std::uint32_t>& tail) {
    CallState& cs = calls_[job.call];
    const CallOptions& opt = cs.spec->options;
    const std::string reason = "udf error: " + job.error_message;
    std::vector<std::uint32_t> again;
    auto bump = [](GrainCell& g) {
        if (g.attempts < 255) ++g.attempts;
    };
    if (opt.recovery != Recovery::IsolateTail || tail.size() == 1) {
        std::vector<std::uint32_t> spent;  // out of retries
        for (std::uint32_t g : tail) {
            const std::uint32_t local = job.grains[g];
            GrainCell& cell = cs.grains[local];
            bump(cell);
            (cell.attempts <= opt.retries ? again : spent).push_back(local);
        }
        if (!again.empty()) ++cs.counters.retries;  // one replayed batch
        if (spent.size() > 1) cs.counters.retries += 2;  // bisection halves
        cs.counters.retried_items += again.size() + (spent.size() > 1 ? spent.size() : 0);
        requeue(job.call, std::move(again), false);
        fail_or_bisect(job.call, std::move(spent), reason);
        return;
    }
    // isolate_tail: replay the tail once, then bisect still-failing batches until single
    // Grains fail alone. Each Grain runs at most 2 + log2(batch) + retries times.
    bool first = false;
    for (std::uint32_t g : tail) first = first || cs.grains[job.grains[g]].attempts == 0;
    for (std::uint32_t g : tail) {
        bump(cs.grains[job.grains[g]]);
        again.push_back(job.grains[g]);
    }
    cs.counters.retries += (first || again.size() < 2) ? 1 : 2;  // the tail, or its halves
    cs.counters.retried_items += again.size();
    if (first) {
        requeue(job.call, std::move(again), false);
        return;
    }
    requeue_halves(job.call, std::move(again));
}

// Splits Grains that keep failing together into two deferred halves, so that a culprit ends up
// alone: each Grain runs at most log2(batch) more times.
void Engine::requeue_halves(CallId call, std::vector<std::uint32_t> grains) {
    const auto mid = static_cast<std::ptrdiff_t>(grains.size() / 2);
    requeue(call, std::vector<std::uint32_t>(grains.begin(), grains.begin() + mid), true);
    requeue(call, std::vector<std::uint32_t>(grains.begin() + mid, grains.end()), true);
}

// Grains whose retry (or infra) budget is spent: one that failed alone fails; several that
// failed together are bisected first, so that no root that only shared the batch with the
// culprit is failed (SEMANTICS.md: no policy fails a root that did nothing wrong). Their budget
// stays spent, so each half that fails again is split again, down to single Grains.
void Engine::fail_or_bisect(CallId call, std::vector<std::uint32_t> spent,
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
void Engine::abort_on(BatchJob& job, const std::vector<std::uint32_t>& tail) {
    CallState& cs = calls_[job.call];
    std::vector<std::uint32_t> culprits;
    for (std::uint32_t g : tail) {
        const std::uint32_t local = job.grains[g];
        const EntityId e = entity_of(cs.spec->domain, local);
        if (doomed_[e] || barred(job.call, e)) {
            seal_without_running(job.call, local, Outcome::Suppressed, GrainEvent::Commit);
        } else {
            culprits.push_back(local);
        }
    }
    if (culprits.empty()) return;
    if (!report_.aborted) {
        report_.aborted = true;
        abort_deadline_ = Clock::now() + options_.stop_grace;
        report_.abort_reason = "call '" + cs.spec->name + "': " + job.error_message;
    }
    for (std::uint32_t local : culprits) {
        fail_grain(job.call, local, "udf error (abort): " + job.error_message);
    }
}

void Engine::recover_infra(BatchJob& job, const std::string& reason) {
    CallState& cs = calls_[job.call];
    std::vector<std::uint32_t> again, spent;
    for (std::size_t g = 0; g < job.size(); ++g) {
        if (!is_live(cs, job, g)) continue;
        const std::uint32_t local = job.grains[g];
        GrainCell& cell = cs.grains[local];
        if (cell.infra < 255) ++cell.infra;
        (cell.infra <= cs.spec->options.infra_retries ? again : spent).push_back(local);
    }
    if (!again.empty()) ++cs.counters.infra_retries;  // one replayed batch
    if (spent.size() > 1) cs.counters.infra_retries += 2;  // bisection halves
    cs.counters.infra_retried_items += again.size() + (spent.size() > 1 ? spent.size() : 0);
    requeue(job.call, std::move(again), false);
    fail_or_bisect(job.call, std::move(spent), reason);
}

void Engine::check_timeouts() {
    if (timed_.empty()) return;
    const auto now = Clock::now();
    std::vector<BatchJob*> expired;
    for (BatchJob* job : timed_) {
        if (now >= job->deadline) expired.push_back(job);
    }
    for (BatchJob* job : expired) {
        timed_.erase(std::remove(timed_.begin(), timed_.end(), job), timed_.end());
        CallState& cs = calls_[job->call];
        recover_infra(*job, "infra: timeout after " +
                                std::to_string(cs.spec->options.timeout.count()) +
                                " ms (actor abandoned)");
        job->abandoned = true;  // its late report will be stale (or never come)
        ++abandoned_jobs_;
        --cs.inflight;
        executor_.abandon(*job);
    }
    drain();
}

}  // namespace rop::runtime::detail
