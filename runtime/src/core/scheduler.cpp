// The scheduler (scheduler.h): admission of roots and dispatch of batches. Priority rules
// (docs/runtime.md):
//  - Calls are offered idle actors downstream first (reverse topological order), so work that
//    finishes roots drains before work that widens the frontier;
//  - new roots are admitted only while fewer than max_inflight_roots are in flight and the live
//    payload bytes stay under max_payload_bytes (at least one root is always admitted);
//  - inside a Call: immediate retries, then a full batch from the ready queue, then deferred
//    recovery (which waits behind at most one full batch per actor), then a partial ready batch,
//    which only goes to a Call with no batch in flight or that nothing upstream can feed any more
//    (its tail: then one batch per actor, each a share of what is left);
//  - the ready queue serves the least served root first (ReadyQueue, scheduler.h);
//  - the Calls of a shared pool share its actors' slots and take turns at them (dispatch_pool).
#include "scheduler.h"

#include <algorithm>

#include "root_sinks.h"

namespace rop::runtime::detail {

constexpr std::uint32_t kPipelineDepth = 2;

// Batches per actor at a Call's tail: one, except for an expand, which keeps its second batch
// queued so that a streaming expand may lend its actor to it (priority rule 6).
constexpr std::uint32_t tail_depth(CallKind kind) {
    return kind == CallKind::Expand ? kPipelineDepth : 1;
}

Scheduler::Scheduler(const Plan& plan, const RunOptions& options, RootSource& source,
                     Executor& executor, LineageStore& store, RootSinks& sinks, TaskDrain& drain,
                     RootShortcut* shortcut)
    : plan_(plan),
      options_(options),
      source_(source),
      executor_(executor),
      store_(store),
      sinks_(sinks),
      drain_(drain),
      shortcut_(shortcut),
      queues_(plan.calls.size()),
      counts_(plan.calls.size()) {
    for (std::size_t i = plan.calls.size(); i-- > 0;) {
        if (!store.layout(static_cast<CallId>(i)).inline_call) {
            dispatch_order_.push_back(static_cast<CallId>(i));
        }
    }
    // A shared pool's Calls take turns at its actors: its slots are counted once for them all.
    pool_of_.assign(plan.calls.size(), kNoPool);
    pools_.resize(plan.pools.size());
    for (std::size_t c = 0; c < plan.calls.size(); ++c) {
        const PoolId p = plan.calls[c].pool;
        if (p == kNoPool || store.layout(static_cast<CallId>(c)).inline_call) continue;
        pool_of_[c] = p;
        pools_[p].calls.push_back(static_cast<CallId>(c));
        // One depth for the whole pool: with a timeout on any of its Calls no batch of the pool
        // waits behind another (its clock would run), and a Call at its tail is held to one
        // batch per actor by its own count, never by the others' deeper queues.
        if (plan.calls[c].options.timeout.count() > 0) pools_[p].depth = 1;
    }
    // Who feeds whom: a Call's upstream is every Call whose outputs reach one of its inputs.
    std::vector<std::vector<CallId>> producers(plan.ports.size());
    for (std::size_t c = 0; c < plan.calls.size(); ++c) {
        for (const PortId out : plan.calls[c].outputs) {
            producers[out].push_back(static_cast<CallId>(c));
        }
    }
    upstream_.resize(plan.calls.size());
    for (std::size_t c = 0; c < plan.calls.size(); ++c) {
        std::vector<bool> seen(plan.calls.size(), false);
        std::vector<CallId> stack{static_cast<CallId>(c)};
        while (!stack.empty()) {
            const CallId at = stack.back();
            stack.pop_back();
            for (const CallInput& in : plan.calls[at].inputs) {
                for (const CallId from : producers[in.port]) {
                    if (seen[from]) continue;
                    seen[from] = true;
                    upstream_[c].push_back(from);
                    stack.push_back(from);
                }
            }
        }
    }
}

bool Scheduler::fed_no_more(CallId call) const {
    if (!source_exhausted_ || held_) return false;
    for (const CallId from : upstream_[call]) {
        if (queues_[from].inflight > 0 || queues_[from].has_work()) return false;
    }
    return true;
}

void Scheduler::admit() {
    if (suspect_ && !store_.root_done(*suspect_)) return;  // it runs alone
    if (suspect_) {
        // Its journal line is durable before anything else runs: a death from now on is not
        // counted against it.
        sinks_.sync();
        suspect_.reset();
        running_noted_.clear();
        sinks_.note_running(running_noted_);
    }
    admit_again_ = false;
    std::size_t answered = 0;
    while ((held_ || !source_exhausted_) && admitting_ &&
           (store_.inflight_roots() == 0 ||
            (store_.inflight_roots() < options_.max_inflight_roots &&
             store_.live_bytes() + sinks_.buffered_bytes() < options_.max_payload_bytes))) {
        std::optional<RootSource::Root> next =
            held_ ? std::exchange(held_, std::nullopt) : source_.next();
        if (!next) {
            source_exhausted_ = true;
            break;
        }
        if (const std::uint32_t ordinal = store_.next_ordinal();
            sinks_.crashed_before() && !sinks_.journaled_ordinal(ordinal)) {
            if (const Journal::Crashes* c = sinks_.crashes(ordinal); c && c->count >= 2) {
                // It brought the process down twice (the second time alone): it fails, unrun.
                RootResult result;
                result.name = std::move(next->name);
                result.status = RootStatus::Failed;
                result.failed_call = c->call;
                result.reason = c->reason();
                result.attempts = c->count;
                sinks_.skip(ordinal, result.name);
                sinks_.journal_entry(ordinal, result);
                store_.add_done_root(std::move(result));
                continue;
            } else if (c) {
                if (store_.inflight_roots() > 0) {  // wait until it can run alone
                    held_ = std::move(next);
                    break;
                }
                sinks_.sync();  // what finished before it stays finished if it crashes again
                suspect_ = ordinal;
            }
        }
        if (sinks_.resuming()) {
            const std::uint32_t ordinal = store_.next_ordinal();
            if (const JournalEntry* e = sinks_.journaled(ordinal, next->name)) {
                RootResult result;
                result.name = std::move(next->name);
                result.status = e->status;
                result.failed_call = e->failed_call;
                result.reason = e->reason;
                result.attempts = e->attempts;
                result.resumed = true;
                store_.add_done_root(std::move(result));
                continue;
            }
        }
        if (shortcut_ && suspect_ != store_.next_ordinal() &&
            shortcut_->answer(store_.next_ordinal(), *next)) {
            if (++answered < kAnswersPerAdmit) continue;
            admit_again_ = true;
            break;
        }
        const std::uint32_t ordinal =
            store_.admit_root(std::move(next->name), std::move(next->value));
        peak_inflight_roots_ = std::max(peak_inflight_roots_, store_.inflight_roots());
        drain_.drain();
        store_.complete_if_idle(ordinal);
        if (suspect_ == ordinal) break;  // alone: nothing else until it is done
    }
}

void Scheduler::enqueue_ready(CallId call, std::uint32_t local) {
    const CallSpec& spec = plan_.calls[call];
    const std::uint32_t before = store_.count_queued(call, store_.entity_of(spec.domain, local));
    queues_[call].ready.push(
        local, ReadyQueue::level(before, std::max<std::uint32_t>(1, spec.options.batch)));
}

void Scheduler::dispatch() {
    if (halted_) return;
    // Grains suppressed at dequeue can make a Call already passed READY (a reduce with
    // `on_failure skip` runs over suppressed members): pass again while an idle Call has work.
    for (bool again = true; again && !halted_;) {
        dispatch_pass();
        again = false;
        for (const CallId c : dispatch_order_) {
            again = again || (queues_[c].inflight == 0 && may_dispatch(c, fed_no_more(c)));
        }
    }
}

// Up to kPipelineDepth batches per actor, so an actor finds its next batch without a round trip
// through the driver; Calls with a timeout keep one (the clock starts at submit). At the tail
// (nothing upstream can feed the Call) no batch waits behind another: the last Grains go to
// actors as they free up, in shrinking shares.
std::uint32_t Scheduler::depth(CallId c, bool tail) const {
    const CallOptions& opt = plan_.calls[c].options;
    return opt.timeout.count() > 0 ? 1 : tail ? tail_depth(plan_.calls[c].kind) : kPipelineDepth;
}

// Whether `c` may send a batch now, its queues and its slots considered (the pool's, if any).
bool Scheduler::may_dispatch(CallId c, bool tail) const {
    const CallQueues& q = queues_[c];
    const CallOptions& opt = plan_.calls[c].options;
    if (q.inflight >= opt.actors * depth(c, tail) || !q.has_work()) return false;
    if (pool_of_[c] != kNoPool) {  // and a slot of its pool's
        const PoolQueues& pool = pools_[pool_of_[c]];
        if (pool.inflight >= opt.actors * pool.depth) return false;
    }
    // A partial batch waits for when the Call is otherwise idle.
    return !(q.immediate.empty() && q.ready.size() < opt.batch && q.deferred.empty() &&
             q.inflight > 0 && !tail);
}

// Builds and submits one batch of `c` (false: every popped Grain was suppressed at dequeue).
bool Scheduler::send_batch(CallId c, bool tail) {
    BatchJob* job = build_job(c, tail);
    if (!job) return false;
    const CallOptions& opt = plan_.calls[c].options;
    if (opt.timeout.count() > 0) {
        job->deadline = Clock::now() + opt.timeout;
        timed_.push_back(job);
    }
    ++queues_[c].inflight;
    if (pool_of_[c] != kNoPool) ++pools_[pool_of_[c]].inflight;
    ++live_jobs_;
    job->running = true;
    job->measure_cpu = options_.keep_batches && options_.measure_cpu;
    if (job->kind == CallKind::Expand) streaming_.push_back(job);
    note_submit(*job);
    executor_.submit(*job);
    return true;
}

void Scheduler::dispatch_pass() {
    for (CallId c : dispatch_order_) {
        if (pool_of_[c] != kNoPool) {
            // A shared pool is served where its most downstream Call comes in the order.
            if (pools_[pool_of_[c]].calls.back() == c) dispatch_pool(pool_of_[c]);
            continue;
        }
        const bool tail = fed_no_more(c);
        while (may_dispatch(c, tail)) send_batch(c, tail);
    }
}

// The pool's actors take its Calls' batches in turn (docs/runtime.md "Shared pools"): each
// batch goes to the next Call after the last one served that may send one, so no Call of the
// pool starves another, and a downstream Call is never stuck behind an upstream flood.
void Scheduler::dispatch_pool(PoolId p) {
    PoolQueues& pool = pools_[p];
    const std::size_t n = pool.calls.size();
    for (;;) {
        bool sent = false;
        for (std::size_t k = 1; k <= n && !sent; ++k) {
            const std::size_t i = (pool.last + k) % n;
            const CallId c = pool.calls[i];
            const bool tail = fed_no_more(c);
            while (may_dispatch(c, tail)) {
                if (send_batch(c, tail)) {
                    pool.last = i;
                    sent = true;
                    break;
                }
            }
        }
        if (!sent) return;
    }
}

BatchJob* Scheduler::build_job(CallId call, bool tail) {
    CallQueues& q = queues_[call];
    const CallSpec& spec = plan_.calls[call];
    BatchJob* job;
    if (free_jobs_.empty()) {
        jobs_.push_back(std::make_unique<BatchJob>());
        job = jobs_.back().get();
    } else {
        job = free_jobs_.back();
        free_jobs_.pop_back();
    }
    std::uint32_t cap = spec.options.batch;
    // The tail: nothing upstream can feed this Call any more. Each actor that frees up takes
    // its share of what is left, so the last batches shrink and the actors finish together,
    // instead of one full batch running while the others idle (docs/runtime.md, priority rule
    // 2). With several actors the share is half of ready / actors ("factoring"): the others
    // still hold batches of unknown length, so the shares halve as the queue drains and the
    // last ones are single Grains, which leaves the actors at most about one Grain apart
    // however uneven the Grains' costs (B4: pages of 0.1-1.5 s each).
    if (tail && q.immediate.empty() && q.deferred.empty()) {
        const std::uint32_t actors = std::max<std::uint32_t>(1, spec.options.actors);
        const std::uint32_t parts = actors * tail_depth(spec.kind) * (actors > 1 ? 2 : 1);
        const auto share = static_cast<std::uint32_t>((q.ready.size() + parts - 1) / parts);
        cap = std::max<std::uint32_t>(1, std::min(cap, share));
    }
    job->call = call;
    job->kind = spec.kind;
    job->num_inputs = static_cast<std::uint32_t>(spec.inputs.size());
    job->num_outputs = spec.kind == CallKind::Map || spec.kind == CallKind::Reduce
                           ? static_cast<std::uint32_t>(spec.outputs.size())
                           : 0;
    job->grains.clear();
    job->generations.clear();
    job->infos.clear();
    job->inputs.clear();
    job->parent_values.clear();
    job->abandoned = false;
    job->flagged_stuck = false;
    job->streamed_failures = 0;
    job->yielder = nullptr;  // an executor that lends actors sets its own
    job->started_ns.store(0, std::memory_order_relaxed);
    job->id = next_job_id_++;

    EntityId batch_parent = kNoEntity;
    bool mixed = false;
    auto take = [&](std::uint32_t local) {
        const EntityId e = store_.entity_of(spec.domain, local);
        if (store_.suppressed(call, e)) {
            store_.seal_without_running(call, local, Outcome::Suppressed,
                                        GrainEvent::SuppressQueued);
            return;
        }
        const GrainCell& g = store_.advance(call, local, GrainEvent::Reserve);
        const EntityId parent = store_.parent(e);
        if (job->grains.empty()) {
            batch_parent = parent;
        } else if (parent != batch_parent) {
            mixed = true;
        }
        job->grains.push_back(local);
        job->generations.push_back(g.generation);
        job->infos.push_back({e, parent, store_.ordinal(e)});
        if (spec.kind == CallKind::Reduce) {
            const ReadyGroup& group = store_.group(call, local);
            job->inputs.push_back(group.group);
            job->parent_values.push_back(group.parent);
            return;
        }
        for (const CallInput& in : spec.inputs) {
            const Value* value = store_.outcome(in.port, local) == Outcome::Present
                                     ? store_.payload(in.port, local)
                                     : nullptr;
            if (value) {
                job->inputs.push_back(*value);
            } else {
                job->inputs.emplace_back();  // a missing optional input
            }
        }
    };

    // A deferred unit waits behind full ready batches, but behind no more than one per actor,
    // so a root being bisected is not starved by a steady stream of new work (rule 7).
    const bool deferred_due =
        !q.deferred.empty() && q.passed_deferred >= std::max<std::uint32_t>(1, spec.options.actors);
    const bool from_ready =
        q.immediate.empty() && !deferred_due && (q.ready.size() >= cap || q.deferred.empty());
    if (!from_ready) {
        if (q.immediate.empty()) q.passed_deferred = 0;
        auto& units = q.immediate.empty() ? q.deferred : q.immediate;
        std::vector<std::uint32_t> unit = std::move(units.front());
        units.pop_front();
        for (std::uint32_t local : unit) take(local);
    } else {
        if (!q.deferred.empty()) ++q.passed_deferred;  // a full batch passes the deferred units
        const bool single = spec.options.batching == Batching::SingleParent;
        while (job->grains.size() < cap && !q.ready.empty()) {
            const std::uint32_t local = q.ready.front();
            if (single && !job->grains.empty() &&
                store_.parent(store_.entity_of(spec.domain, local)) != batch_parent) {
                break;
            }
            q.ready.pop_front();
            take(local);
        }
    }
    drain_.drain();
    if (job->grains.empty()) {
        recycle(job);
        return nullptr;
    }
    job->unwanted.assign(job->size(), 0);
    if (options_.crash_reports) describe_for_crash(*job);
    BatchCounts& counters = counts_[call];
    if (mixed) ++counters.mixed_parent_batches;
    if (!options_.trace_path.empty()) {
        std::vector<EntityId> parents;
        for (const GrainInfo& info : job->infos) parents.push_back(info.parent);
        std::sort(parents.begin(), parents.end());
        job->parents = static_cast<std::uint32_t>(std::unique(parents.begin(), parents.end()) -
                                                  parents.begin());
    } else {
        job->parents = mixed ? 2 : 1;
    }
    ++counters.batches;
    q.dispatched += job->size();
    return job;
}

// What the crash handler says (and journals) should this batch bring the process down: its
// Call, its size and its distinct roots (the first few by name, all by ordinal).
void Scheduler::describe_for_crash(BatchJob& job) const {
    const CallSpec& spec = plan_.calls[job.call];
    job.crash_call = spec.name;
    job.crash_roots.clear();
    for (const GrainInfo& info : job.infos) {
        const std::uint64_t ordinal = store_.root_ordinal(info.entity);
        if (std::find(job.crash_roots.begin(), job.crash_roots.end(), ordinal) ==
            job.crash_roots.end()) {
            job.crash_roots.push_back(ordinal);
        }
    }
    job.crash_note = "call '" + spec.name + "', a batch of " + std::to_string(job.size()) +
                     (job.crash_roots.size() == 1 ? " from root " : " from roots ");
    constexpr std::size_t kNamed = 8;
    for (std::size_t i = 0; i < job.crash_roots.size() && i < kNamed; ++i) {
        if (i) job.crash_note += ", ";
        job.crash_note += store_.root(static_cast<std::uint32_t>(job.crash_roots[i])).result.name;
    }
    if (job.crash_roots.size() > kNamed) {
        job.crash_note += " and " + std::to_string(job.crash_roots.size() - kNamed) + " more";
    }
}

// The journal learns of a batch's roots before the batch can run (journal.h): should the
// process die without a crash line, the roots in flight are known. A root running alone also
// names the Calls its batches are in.
void Scheduler::note_submit(const BatchJob& job) {
    if (!sinks_.journaling()) return;
    std::uint64_t end = 0;
    for (const GrainInfo& info : job.infos) {
        end = std::max<std::uint64_t>(end, store_.root_ordinal(info.entity) + 1);
    }
    sinks_.note_admitted(end);
    if (suspect_) note_running();
}

void Scheduler::note_running() {
    std::vector<std::string> calls;
    for (std::size_t c = 0; c < queues_.size(); ++c) {
        if (queues_[c].inflight > 0) calls.push_back(plan_.calls[c].name);
    }
    if (calls != running_noted_) {
        running_noted_ = std::move(calls);
        sinks_.note_running(running_noted_);
    }
}

void Scheduler::requeue(CallId call, std::vector<std::uint32_t> grains, bool deferred) {
    if (grains.empty()) return;
    for (std::uint32_t local : grains) store_.advance(call, local, GrainEvent::Recover);
    CallQueues& q = queues_[call];
    (deferred ? q.deferred : q.immediate).push_back(std::move(grains));
}

void Scheduler::finished(BatchJob& job) {
    if (job.kind == CallKind::Expand) {
        streaming_.erase(std::remove(streaming_.begin(), streaming_.end(), &job), streaming_.end());
        job.credit.store(BatchJob::kUnlimitedCredit, std::memory_order_relaxed);  // for reuse
        job.paused = false;
    }
    job.running = false;
    --live_jobs_;
    if (job.abandoned) {
        --abandoned_jobs_;
        return;
    }
    --queues_[job.call].inflight;
    if (pool_of_[job.call] != kNoPool) --pools_[pool_of_[job.call]].inflight;
    if (plan_.calls[job.call].options.timeout.count() > 0) {
        timed_.erase(std::remove(timed_.begin(), timed_.end(), &job), timed_.end());
    }
    if (suspect_) note_running();
}

void Scheduler::recycle(BatchJob* job) {
    job->inputs.clear();  // release payload references now
    job->parent_values.clear();
    job->outputs.clear();
    job->children.clear();
    if (job->children.capacity() > (std::size_t{1} << 16) && no_more_streaming()) {
        std::vector<EmittedChild>().swap(job->children);  // see commit.cpp
    }
    job->abandoned = false;
    free_jobs_.push_back(job);
}

void Scheduler::abandon(BatchJob& job) {
    timed_.erase(std::remove(timed_.begin(), timed_.end(), &job), timed_.end());
    job.abandoned = true;  // its late report will be stale (or never come)
    ++abandoned_jobs_;
    --queues_[job.call].inflight;
    if (pool_of_[job.call] != kNoPool) --pools_[pool_of_[job.call]].inflight;
    executor_.abandon(job);
}

std::vector<BatchJob*> Scheduler::expired(Clock::time_point now) const {
    std::vector<BatchJob*> out;
    for (BatchJob* job : timed_) {
        if (now >= job->deadline && !job->paused) {
            out.push_back(job);
        }
    }
    return out;
}

Clock::time_point Scheduler::next_deadline(Clock::time_point until) const {
    for (const BatchJob* job : timed_) {
        if (!job->paused) until = std::min(until, job->deadline);
    }
    return until;
}

void Scheduler::pace_streaming(bool limit, Clock::time_point now) {
    if (streaming_.empty()) return;
    bool consumers = active_jobs() > streaming_.size();
    for (std::size_t c = 0; c < queues_.size() && !consumers; ++c) {
        consumers = plan_.calls[c].kind != CallKind::Expand && queues_[c].has_work();
    }
    if (!limit || !consumers) {
        resume_streaming(now);
        return;
    }
    const std::size_t held = store_.live_bytes() + sinks_.buffered_bytes();
    const std::size_t room =
        held >= options_.max_payload_bytes ? 0 : options_.max_payload_bytes - held;
    grant(static_cast<std::int64_t>(room / streaming_.size()), now);
}

void Scheduler::resume_streaming(Clock::time_point now) { grant(BatchJob::kUnlimitedCredit, now); }

void Scheduler::grant(std::int64_t credit, Clock::time_point now) {
    for (BatchJob* job : streaming_) {
        if (job->abandoned) continue;
        job->credit.store(credit, std::memory_order_release);
        if (credit == 0 && !job->paused) {
            job->paused = true;
            job->paused_at = now;
            ++pauses_;
        } else if (credit > 0 && job->paused) {
            job->paused = false;
            job->deadline += now - job->paused_at;  // the time it waited is not its own
        }
    }
}

bool Scheduler::no_more_streaming() const {
    if (!source_exhausted_ || !streaming_.empty()) return false;
    for (CallId c : dispatch_order_) {
        if (plan_.calls[c].kind == CallKind::Expand && !queues_[c].ready.empty()) return false;
    }
    return true;
}

void Scheduler::settle_report(BatchJob& job) {
    if (!job.running) return;
    job.running = false;
    --live_jobs_;
    if (job.abandoned) --abandoned_jobs_;
}

void Scheduler::hand_over(ReportQueue& reports) {
    for (std::unique_ptr<BatchJob>& job : jobs_) {
        if (!job || !job->running) continue;
        if (job->abandoned) counts_[job->call].stale_at_end += job->size();
        reports.adopt(std::move(job));
    }
    timed_.clear();
    streaming_.clear();
}

double Scheduler::mean_batch_fill(CallId call) const {
    const std::uint64_t batches = counts_[call].batches;
    if (batches == 0) return 0;
    return static_cast<double>(queues_[call].dispatched) /
           (static_cast<double>(batches) * plan_.calls[call].options.batch);
}

}  // namespace rop::runtime::detail
