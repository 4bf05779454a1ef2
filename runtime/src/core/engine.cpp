// The driver (engine.h): wires the parts together, runs the single-threaded event loop (admit,
// dispatch, block for reports, commit, timeouts, progress) and assembles the RunReport.
#include "engine.h"

#include <algorithm>
#include <csignal>

#include "cache/result_cache.h"
#include "placement/actor_placement.h"

namespace rop::runtime {
namespace detail {

// How long the driver polls for a report before it blocks, while batches are in flight.
constexpr int kDriverSpinUs = 50;

Engine::Engine(const Plan& plan, RootSource& source, const RunOptions& options, Executor& executor,
               ResultCache* cache)
    : plan_(plan),
      cache_(cache),
      options_(options),
      source_(source),
      executor_(executor),
      counters_(plan.calls.size()),
      store_(plan, options, *this),
      sinks_(plan, options, store_),
      scheduler_(plan, options, source, executor, store_, sinks_, *this,
                 cache && cache->answers_roots() ? this : nullptr),
      committer_(options, store_, scheduler_, *this),
      resolver_(store_, scheduler_),
      batch_times_(plan.calls.size()) {
    for (std::size_t i = 0; i < plan.calls.size(); ++i) counters_[i].name = plan.calls[i].name;
}

void Engine::root_complete(const RootState& root) {
    const std::uint32_t ordinal = store_.ordinal(root.entity);
    std::optional<Digest> key;
    if (auto it = root_keys_.find(ordinal); it != root_keys_.end()) {
        key = it->second;
        root_keys_.erase(it);
    }
    // Stored whole only when nothing in it failed or was left out: its answer is its sinks'.
    const bool keep = key && root.result.status != RootStatus::Failed && !root.result.partial;
    ResultCache::RootAnswer answer;
    // Sinks first, then the journal line: a root is journaled, and so skipped by --resume, only
    // once every sink holds its output (a crash in between replays it; restore() undoes it).
    // The line becomes durable with its commit group, after the sinks' sync().
    if (std::optional<std::string> failure = sinks_.write(root, keep ? &answer.sinks : nullptr)) {
        store_.fail_root_at_sink(ordinal, *failure);
    } else if (keep) {
        answer.status = root.result.status;
        answer.grains = root.queued;
        cache_->store_root(*key, answer);
    }
    sinks_.journal(root);
    finish_root(root.result, root.entity);
}

void Engine::finish_root(const RootResult& result, EntityId entity) {
    if (time_to_first_root_s_ < 0) {
        time_to_first_root_s_ = std::chrono::duration<double>(Clock::now() - start_).count();
    }
    if (sinks_.group_full()) sinks_.flush();
    if (options_.observer && entity != kNoEntity) options_.observer->on_root_done(entity);
    if (options_.on_root_finished) options_.on_root_finished(result);
}

bool Engine::answer(std::uint32_t ordinal, RootSource::Root& root) {
    const std::optional<Digest> key = cache_->root_key(root.value);
    if (!key) return false;
    std::optional<ResultCache::RootAnswer> answer = cache_->find_root(*key);
    if (!answer) {
        root_keys_.emplace(ordinal, *key);
        return false;
    }
    RootResult result;
    result.name = std::move(root.name);
    result.status = answer->status;
    if (std::optional<std::string> failure =
            sinks_.write_values(RootKey{ordinal, result.name}, answer->sinks)) {
        result.status = RootStatus::Failed;
        result.reason = std::move(*failure);
        result.attempts = 1;
    }
    sinks_.journal_entry(ordinal, result);
    finish_root(result, kNoEntity);
    store_.add_done_root(std::move(result));
    return true;
}

namespace {
std::string stop_name(int signal) {
    switch (signal) {
        case 0: return "stop requested";
        case SIGINT: return "SIGINT";
        case SIGTERM: return "SIGTERM";
        default: return "signal " + std::to_string(signal);
    }
}
}  // namespace

void Engine::poll_stop() {
    const int n = options_.stop->count();
    if (n == stops_seen_) return;
    stops_seen_ = n;
    if (!stopping_) {
        stopping_ = true;
        stop_reason_ = stop_name(options_.stop->signal());
        stop_deadline_ = Clock::now() + options_.stop_grace;
        scheduler_.stop_admitting();
    }
    if (n >= 2) stop_deadline_ = Clock::now();  // asked twice: now
}

void Engine::note_done(const BatchJob& job) {
    note_batch_time(job);
    for (const auto& [name, n] : job.udf_counters) counters_[job.call].udf_counters[name] += n;
    if (!options_.trace_path.empty() || options_.keep_batches) {
        trace_.push_back({job.call, job.actor, static_cast<std::uint32_t>(job.size()), job.parents,
                          job.start_ns, job.end_ns, job.abandoned, job.cpu_ns, job.wait_ns});
        if (job.measure_cpu && !job.abandoned) {  // (a stale job's Grains may be gone)
            for (const GrainInfo& info : job.infos)
                trace_.back().roots.push_back(store_.root_ordinal(info.entity));
        }
    }
}

// Each count has one writer: the store (what the facts say), the scheduler (batches), the
// committer (replays, the fence), the Engine (stuck batches, the UDFs' own counters).
CallCounters Engine::counters(CallId call) const {
    CallCounters k = counters_[call];
    const OutcomeCounts& facts = store_.counts(call);
    k.grains = facts.grains;
    k.suppressed = facts.suppressed;
    k.dropped = facts.dropped;
    k.failed = facts.failed;
    k.skipped_members = facts.skipped_members;
    const BatchCounts& batches = scheduler_.counts(call);
    k.batches = batches.batches;
    k.mixed_parent_batches = batches.mixed_parent_batches;
    k.mean_batch_fill = scheduler_.mean_batch_fill(call);
    const RecoveryCounts& recovery = committer_.counts(call);
    k.retries = recovery.retries;
    k.retried_items = recovery.retried_items;
    k.infra_retries = recovery.infra_retries;
    k.infra_retried_items = recovery.infra_retried_items;
    k.stale_reports = recovery.stale_reports + batches.stale_at_end;
    k.median_batch_s = median_batch_s(call);
    k.busy_s = static_cast<double>(batch_times_[call].total_ns) / 1e9;
    if (cache_) cache_->add_counts(call, k);
    return k;
}

Progress Engine::progress() const {
    Progress p;
    for (std::size_t c = 0; c < counters_.size(); ++c) {
        p.calls.push_back(counters(static_cast<CallId>(c)));
    }
    p.roots_admitted = store_.next_ordinal();
    p.roots_done = store_.roots_done();
    p.roots_total = source_.size_hint();
    p.roots_resumed = sinks_.resumed_at_open();
    p.elapsed_s = std::chrono::duration<double>(Clock::now() - start_).count();
    p.stuck = stuck_batches();
    p.work = store_.work();
    return p;
}

// The event loop: admit, dispatch, block for reports, commit, timeouts, progress. Returns once
// every root is terminal (or the run aborted) and no batch it still waits for is running.
// Abandoned (timed-out) batches are never waited for; after an abort, batches on healthy actors
// are waited for until abort_deadline_ (RunOptions::stop_grace), then left behind.
void Engine::event_loop() {
    auto next_progress = start_ + options_.progress_interval;
    // Stuck batches are looked for a few times per stuck_min (at least once a second).
    const auto stuck_every = std::clamp<Clock::duration>(
        options_.stuck_min / 4, std::chrono::milliseconds(1), std::chrono::seconds(1));
    const bool watch_stuck = options_.stuck_factor > 0;
    auto next_stuck_check = start_ + stuck_every;
    for (;;) {
        if (options_.stop) poll_stop();
        // Between events nothing holds a finished root's ids: its lineage can go.
        if (store_.release_due()) store_.release_done();
        scheduler_.admit();
        scheduler_.dispatch();
        if (scheduler_.active_jobs() == 0) {
            const std::size_t inflight = store_.inflight_roots();
            if (committer_.aborted() || (scheduler_.source_exhausted() && inflight == 0) ||
                (stopping_ && inflight == 0)) {
                break;
            }
            if (inflight == 0) {  // dispatch() finished the last ones (or none ran): admit
                if (options_.on_progress && Clock::now() >= next_progress) {
                    options_.on_progress(progress());
                    next_progress = Clock::now() + options_.progress_interval;
                }
                continue;
            }
            throw ContractError("bug: run stalled with " + std::to_string(inflight) +
                                " roots in flight and nothing to run");
        }
        const bool aborted = committer_.aborted();
        if (aborted && Clock::now() >= committer_.abort_deadline()) break;  // grace is over
        if (stopping_ && Clock::now() >= stop_deadline_) break;
        auto until = Clock::now() + std::chrono::seconds(1);
        if (options_.on_progress) until = std::min(until, next_progress);
        if (aborted) until = std::min(until, committer_.abort_deadline());
        if (options_.stop) until = std::min(until, Clock::now() + std::chrono::milliseconds(50));
        if (stopping_) until = std::min(until, stop_deadline_);
        until = scheduler_.next_deadline(until);
        if (watch_stuck) until = std::min(until, next_stuck_check);
        until = sinks_.flush_deadline(until);
        if (scheduler_.admit_again()) until = Clock::now();  // roots answered whole wait
        reports_->pop_all(
            inbox_, until, [this] { return committer_.take_streamed(); },
            scheduler_.live_jobs() > 0 && executor_.driver_may_poll() ? kDriverSpinUs : 0);
        for (Report& r : inbox_) {
            if (r.kind == Report::Kind::Done && r.job) note_done(*r.job);
            committer_.on_report(r);
        }
        inbox_.clear();
        committer_.take_streamed();
        scheduler_.pace_streaming(!stopping_ && !committer_.aborted(), Clock::now());
        committer_.check_timeouts();
        sinks_.flush_if_due();
        if (watch_stuck && Clock::now() >= next_stuck_check) {
            check_stuck();
            next_stuck_check = Clock::now() + stuck_every;
        }
        if (options_.on_progress && Clock::now() >= next_progress) {
            options_.on_progress(progress());
            next_progress = Clock::now() + options_.progress_interval;
        }
    }
}

// After an exception: waits, discarding reports, until every batch on a healthy actor has
// returned or `deadline` passes (the reports not yet handled in inbox_ count too).
void Engine::settle(Clock::time_point deadline) {
    scheduler_.resume_streaming(Clock::now());
    for (;;) {
        for (Report& r : inbox_) {
            if (r.kind == Report::Kind::Done && r.job) scheduler_.settle_report(*r.job);
        }
        inbox_.clear();
        if (scheduler_.active_jobs() == 0 || Clock::now() >= deadline) return;
        reports_->pop_all(inbox_, deadline);
    }
}

// Ends the executor's part of the run without ever waiting for a batch still running (a
// stuck, abandoned actor, or one left running after an abort's grace): the executor detaches
// such threads, and every job still out is handed to the report queue, which the executor's
// threads co-own, so a late thread never touches the Engine's memory. Abandoned Grains whose
// report never came count as stale. `left`: reports queued before the close, of jobs that are
// back (still the Engine's); every other late report is dropped by the queue.
void Engine::shut_down(std::vector<Report>& left) {
    scheduler_.resume_streaming(Clock::now());  // a paused thread would never finish
    executor_.stop();
    left = reports_->close();
    std::vector<const BatchJob*> back;
    for (const Report& r : left) {
        if (r.kind == Report::Kind::Done && r.job) {
            r.job->running = false;
            back.push_back(r.job);
        }
    }
    // Emitted reports of a job not back (adopted below, maybe freed at any time by its late
    // Done) are dropped unread: only the pointer value is compared.
    left.erase(std::remove_if(left.begin(), left.end(),
                              [&](const Report& r) {
                                  return r.job &&
                                         std::find(back.begin(), back.end(), r.job) == back.end();
                              }),
               left.end());
    scheduler_.hand_over(*reports_);
}

RunReport Engine::run() {
    start_ = Clock::now();
    const auto start_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(start_.time_since_epoch()).count();
    std::vector<Report> left;
    sinks_.open();  // journal and restore(): before any actor exists
    try {
        executor_.start(plan_, *reports_);
        event_loop();
    } catch (...) {
        settle(Clock::now() + options_.stop_grace);
        shut_down(left);
        try {
            sinks_.sync();  // the roots that finished stay finished
            sinks_.note_ended();
        } catch (...) {  // the first error is the one to report
        }
        throw;
    }
    shut_down(left);
    for (Report& r : left) {  // stale, or (after an abort) results that commit
        if (r.kind == Report::Kind::Done && r.job) note_done(*r.job);
        committer_.on_report(r);
    }
    left.clear();
    sinks_.sync();
    sinks_.note_ended();  // the roots in flight were not killed: see journal.h

    RunReport report;
    report.aborted = committer_.aborted();
    report.abort_reason = committer_.abort_reason();
    report.interrupted = stopping_ && !report.aborted;
    if (report.interrupted) report.interrupt_reason = stop_reason_;
    store_.release_done();
    const std::size_t unfinished = store_.fail_unfinished(
        report.interrupted
            ? "interrupted (" + stop_reason_ + ") before it finished; --resume runs it again"
            : "run aborted: " + report.abort_reason);
    if (report.interrupted) report.unfinished_roots = unfinished;  // not journaled
    report.roots = store_.take_results();
    report.omitted = store_.omitted();
    report.calls = progress().calls;
    report.time_to_first_root_s = std::max(time_to_first_root_s_, 0.0);
    report.peak_inflight_roots = scheduler_.peak_inflight_roots();
    report.peak_live_items = store_.peak_live_items();
    report.peak_live_bytes = store_.peak_live_bytes();
    report.backpressure_pauses = scheduler_.pauses();
    report.entities = store_.entities();
    report.lineage_bytes = store_.lineage_bytes();
    report.wall_s = std::chrono::duration<double>(Clock::now() - start_).count();
    if (!options_.trace_path.empty()) write_trace(options_.trace_path, plan_, trace_, start_ns);
    if (options_.keep_batches) {  // --report-html: the same record, times since the start
        for (TraceEvent& e : trace_) {
            e.start_ns -= start_ns;
            e.end_ns -= start_ns;
        }
        report.batches = std::move(trace_);
    }
    if (options_.on_progress) options_.on_progress(progress());
    return report;
}

}  // namespace detail

RunReport run(const Plan& plan, RootSource& source, const RunOptions& options, Executor& executor) {
    const Plan placed = detail::place_actors(plan, options);
    if (options.cache_dir.empty()) {
        detail::Engine engine(placed, source, options, executor);
        return engine.run();
    }
    detail::ResultCache cache(plan, options);
    const Plan cached = cache.wrap(placed);
    detail::Engine engine(cached, source, options, executor, &cache);
    RunReport report = engine.run();
    report.cache_notes = cache.finish();
    report.cache_roots_answered = cache.roots_answered();
    return report;
}

RunReport run(const Plan& plan, RootSource& source, const RunOptions& options) {
    auto executor = make_executor(options.executor);
    return run(plan, source, options, *executor);
}

}  // namespace rop::runtime
