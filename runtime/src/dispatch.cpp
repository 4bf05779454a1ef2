// Admission of roots and dispatch of batches. Priority rules (docs/runtime.md):
//  - Calls are offered idle actors downstream first (reverse topological order), so work that
//    finishes roots drains before work that widens the frontier;
//  - new roots are admitted only while fewer than max_inflight_roots are in flight and the live
//    payload bytes stay under max_payload_bytes (at least one root is always admitted);
//  - inside a Call: immediate retries, then a full batch from the ready FIFO, then deferred
//    recovery, then a partial ready batch, which only goes to a Call with no batch in flight.
#include <algorithm>

#include "engine.h"

namespace rop::runtime::detail {

constexpr std::uint32_t kPipelineDepth = 2;

void Engine::admit() {
    while (!source_exhausted_ && !report_.aborted &&
           (inflight_roots_ == 0 || (inflight_roots_ < options_.max_inflight_roots &&
                                     live_bytes_ < options_.max_payload_bytes))) {
        std::optional<RootSource::Root> next = source_.next();
        if (!next) {
            source_exhausted_ = true;
            break;
        }
        const auto ordinal = static_cast<std::uint32_t>(roots_.size());
        if (!journaled_.empty() && skip_journaled(ordinal, next->name)) continue;
        roots_.emplace_back();
        roots_.back().admitted = Clock::now();
        roots_.back().result.name = std::move(next->name);
        ++inflight_roots_;
        report_.peak_inflight_roots = std::max(report_.peak_inflight_roots, inflight_roots_);
        const EntityId id = create_entity(0, kNoEntity, ordinal, kNoEntity);
        roots_[ordinal].entity = id;
        publish(plan_.source_port, local_[id], Outcome::Present, std::move(next->value));
        drain();
        if (!roots_[ordinal].done && roots_[ordinal].pending == 0) root_done(roots_[ordinal]);
    }
}

void Engine::dispatch() {
    if (report_.aborted) return;
    // Grains suppressed at dequeue can make a Call already passed READY (a reduce with
    // `on_failure skip` runs over suppressed members): pass again while an idle Call has work.
    for (bool again = true; again && !report_.aborted;) {
        dispatch_pass();
        again = false;
        for (const CallState& cs : calls_) {
            again = again || (cs.inflight == 0 && (!cs.ready.empty() || !cs.immediate.empty() ||
                                                   !cs.deferred.empty()));
        }
    }
}

void Engine::dispatch_pass() {
    for (CallId c : dispatch_order_) {
        CallState& cs = calls_[c];
        // Up to kPipelineDepth batches per actor, so an actor finds its next batch without a
        // round trip through the driver; Calls with a timeout keep one (the clock starts at submit).
        const std::uint32_t depth = cs.spec->options.timeout.count() > 0 ? 1 : kPipelineDepth;
        const std::uint32_t actors = cs.spec->options.actors * depth;
        while (cs.inflight < actors && (!cs.ready.empty() || !cs.immediate.empty() ||
                                        !cs.deferred.empty())) {
            if (cs.immediate.empty() && cs.ready.size() < cs.spec->options.batch &&
                cs.deferred.empty() && cs.inflight > 0) {
                break;  // keep a partial batch for when the pool is otherwise idle
            }
            BatchJob* job = build_job(c);
            if (!job) continue;  // every popped Grain was suppressed at dequeue
            if (cs.spec->options.timeout.count() > 0) {
                job->deadline = Clock::now() + cs.spec->options.timeout;
                timed_.push_back(job);
            }
            ++cs.inflight;
            ++live_jobs_;
            job->running = true;
            if (cs.spec->kind == CallKind::Expand) streaming_.push_back(job);
            executor_.submit(*job);
        }
    }
}

BatchJob* Engine::build_job(CallId call) {
    CallState& cs = calls_[call];
    const CallSpec& spec = *cs.spec;
    BatchJob* job;
    if (free_jobs_.empty()) {
        jobs_.push_back(std::make_unique<BatchJob>());
        job = jobs_.back().get();
    } else {
        job = free_jobs_.back();
        free_jobs_.pop_back();
    }
    const std::uint32_t cap = spec.options.batch;
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
    job->started_ns.store(0, std::memory_order_relaxed);
    job->id = next_job_id_++;

    EntityId batch_parent = kNoEntity;
    bool mixed = false;
    auto take = [&](std::uint32_t local) {
        const EntityId e = entity_of(spec.domain, local);
        if (doomed_[e] || barred(call, e)) {
            seal_without_running(call, local, Outcome::Suppressed, GrainEvent::SuppressQueued);
            return;
        }
        GrainCell& g = cs.grains[local];
        g.phase = *grain_transition(g.phase, GrainEvent::Reserve);
        if (job->grains.empty()) {
            batch_parent = parent_[e];
        } else if (parent_[e] != batch_parent) {
            mixed = true;
        }
        job->grains.push_back(local);
        job->generations.push_back(g.generation);
        job->infos.push_back({e, parent_[e], ordinal_[e]});
        if (spec.kind == CallKind::Reduce) {
            const ReadyGroup& group = cs.groups[local];
            job->inputs.push_back(group.group);
            job->parent_values.push_back(group.parent);
            return;
        }
        for (const CallInput& in : spec.inputs) {
            const PortState& ps = ports_[in.port];
            const std::uint32_t slot = ps.slot[local];
            if (ps.outcome[local] == Outcome::Present && slot != kNoSlot) {
                job->inputs.push_back(payloads_[slot].value);
            } else {
                job->inputs.emplace_back();  // a missing optional input
            }
        }
    };

    const bool from_ready =
        cs.immediate.empty() && (cs.ready.size() >= cap || cs.deferred.empty());
    if (!from_ready) {
        std::deque<RecoveryUnit>& units = cs.immediate.empty() ? cs.deferred : cs.immediate;
        RecoveryUnit unit = std::move(units.front());
        units.pop_front();
        for (std::uint32_t local : unit.grains) take(local);
    } else {
        const bool single = spec.options.batching == Batching::SingleParent;
        while (job->grains.size() < cap && !cs.ready.empty()) {
            const std::uint32_t local = cs.ready.front();
            if (single && !job->grains.empty() &&
                parent_[entity_of(spec.domain, local)] != batch_parent) {
                break;
            }
            cs.ready.pop_front();
            take(local);
        }
    }
    drain();
    if (job->grains.empty()) {
        recycle(job);
        return nullptr;
    }
    if (mixed) ++cs.counters.mixed_parent_batches;
    if (!options_.trace_path.empty()) {
        std::vector<EntityId> parents;
        for (const GrainInfo& info : job->infos) parents.push_back(info.parent);
        std::sort(parents.begin(), parents.end());
        job->parents = static_cast<std::uint32_t>(
            std::unique(parents.begin(), parents.end()) - parents.begin());
    } else {
        job->parents = mixed ? 2 : 1;
    }
    ++cs.counters.batches;
    cs.dispatched += job->size();
    return job;
}

void Engine::recycle(BatchJob* job) {
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

}  // namespace rop::runtime::detail
