// The driver: builds the Engine's tables from the Plan, runs the single-threaded event loop
// (admit, dispatch, block for reports, commit, timeouts, progress) and assembles the RunReport.
#include <algorithm>

#include "engine.h"

namespace rop::runtime {
namespace detail {

// How long the driver polls for a report before it blocks, while batches are in flight.
constexpr int kDriverSpinUs = 50;

Engine::Engine(const Plan& plan, RootSource& source, const RunOptions& options,
               Executor& executor)
    : plan_(plan), source_(source), options_(options), executor_(executor) {
    const std::size_t nd = plan.domains.size();
    domain_members_.resize(nd);
    domain_calls_.resize(nd);
    domain_ports_.resize(nd);
    domain_reducers_.resize(nd);
    expansion_of_domain_.assign(nd, -1);
    ports_.resize(plan.ports.size());
    for (std::size_t p = 0; p < plan.ports.size(); ++p) {
        ports_[p].domain = plan.ports[p].domain;
        domain_ports_[plan.ports[p].domain].push_back(static_cast<PortId>(p));
    }
    calls_.resize(plan.calls.size());
    for (std::size_t i = 0; i < plan.calls.size(); ++i) {
        const auto c = static_cast<CallId>(i);
        const CallSpec& spec = plan.calls[i];
        CallState& cs = calls_[i];
        cs.spec = &spec;
        cs.counters.name = spec.name;
        for (const CallInput& in : spec.inputs) cs.modes.push_back(in.mode);
        domain_calls_[spec.domain].push_back(c);
        cs.inline_call = spec.kind == CallKind::Broadcast ||
                         (spec.kind == CallKind::Reduce && !spec.factory);
        switch (spec.kind) {
            case CallKind::Map:
            case CallKind::Filter:
            case CallKind::Expand:
                for (std::size_t k = 0; k < spec.inputs.size(); ++k) {
                    ports_[spec.inputs[k].port].direct.push_back({c, static_cast<std::uint32_t>(k)});
                    ++ports_[spec.inputs[k].port].refs;
                }
                break;
            case CallKind::Reduce: {
                const PortId in = spec.inputs[0].port;
                ports_[in].reducers.push_back(c);
                ++ports_[in].refs;
                domain_reducers_[plan.ports[in].domain].push_back(c);
                break;
            }
            case CallKind::Broadcast:
                ports_[spec.inputs[0].port].broadcasters.push_back(c);
                break;
        }
        if (spec.kind == CallKind::Expand) {
            ExpansionTable table;
            table.call = c;
            table.child_domain = plan.ports[spec.outputs[0]].domain;
            cs.expansion = static_cast<int>(expansions_.size());
            expansion_of_domain_[table.child_domain] = cs.expansion;
            expansions_.push_back(std::move(table));
        }
    }
    for (std::size_t i = 0; i < plan.calls.size(); ++i) {
        const CallSpec& spec = plan.calls[i];
        if (spec.kind != CallKind::Reduce) continue;
        const int x = expansion_of_domain_[plan.ports[spec.inputs[0].port].domain];
        if (x < 0) throw ContractError("run: reduce '" + spec.name + "' has no expand");
        calls_[i].expansion = x;
        expansions_[static_cast<std::size_t>(x)].reducers.push_back(static_cast<CallId>(i));
        // A reduce with a UDF sees the parent's value (Batch::parent): the paired expand's
        // first input Item is held for it until the reduce resolves.
        const CallSpec& expand = plan.calls[expansions_[static_cast<std::size_t>(x)].call];
        if (!calls_[i].inline_call && !expand.inputs.empty()) {
            calls_[i].parent_port = expand.inputs[0].port;
            calls_[i].has_parent_port = true;
            ++ports_[expand.inputs[0].port].refs;
        }
    }
    if (!options.sinks.empty() || !options.root_sinks.empty()) {
        for (const SinkBinding& sink : options.sinks) {
            if (sink.port >= ports_.size()) throw ContractError("run: sink on an unknown port");
            ports_[sink.port].result = true;
            ports_[sink.port].sinks.push_back(&sink);
        }
        for (std::size_t i = 0; i < options.root_sinks.size(); ++i) {
            const RootSinkBinding& sink = options.root_sinks[i];
            if (sink.port >= ports_.size()) throw ContractError("run: sink on an unknown port");
            if (!sink.write_root) throw ContractError("run: root sink without write_root");
            ports_[sink.port].result = true;
            ports_[sink.port].root_sinks.push_back(static_cast<std::uint32_t>(i));
        }
    } else {
        for (PortState& ps : ports_) {
            ps.result = ps.direct.empty() && ps.reducers.empty() && ps.broadcasters.empty();
        }
    }
    for (std::size_t i = plan.calls.size(); i-- > 0;) {
        if (!calls_[i].inline_call) dispatch_order_.push_back(static_cast<CallId>(i));
    }
    if (auto hint = source.size_hint()) roots_.reserve(*hint);
}

namespace {
template <class T>
std::size_t bytes_of(const std::vector<T>& v) {
    return v.capacity() * sizeof(T);
}
}  // namespace

// Bytes held by the lineage tables (capacity, not size: what the process really holds).
std::size_t Engine::lineage_bytes() const {
    std::size_t total = bytes_of(domain_) + bytes_of(parent_) + bytes_of(ordinal_) +
                        bytes_of(root_) + bytes_of(local_) + bytes_of(doomed_) + bytes_of(roots_);
    for (const auto& members : domain_members_) total += bytes_of(members);
    for (const PortState& ps : ports_) total += bytes_of(ps.outcome) + bytes_of(ps.slot);
    for (const CallState& cs : calls_) {
        total += bytes_of(cs.grains) + bytes_of(cs.members_pending);
    }
    for (const ExpansionTable& x : expansions_) {
        total += bytes_of(x.state) + bytes_of(x.children);
        for (const auto& kids : x.children) total += bytes_of(kids);
    }
    return total;
}

Progress Engine::progress() const {
    Progress p;
    for (const CallState& cs : calls_) {
        p.calls.push_back(cs.counters);
        if (cs.counters.batches > 0) {
            p.calls.back().mean_batch_fill =
                static_cast<double>(cs.dispatched) /
                (static_cast<double>(cs.counters.batches) * cs.spec->options.batch);
        }
    }
    p.roots_admitted = roots_.size();
    p.roots_done = roots_done_;
    p.roots_total = source_.size_hint();
    p.elapsed_s = std::chrono::duration<double>(Clock::now() - start_).count();
    p.stuck = stuck_batches();
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
        admit();
        dispatch();
        const std::size_t active = live_jobs_ - abandoned_jobs_;
        if (active == 0) {
            if (report_.aborted || (source_exhausted_ && inflight_roots_ == 0)) break;
            if (inflight_roots_ == 0) continue;  // dispatch() finished the last ones: admit
            throw ContractError("bug: run stalled with " + std::to_string(inflight_roots_) +
                                " roots in flight and nothing to run");
        }
        if (report_.aborted && Clock::now() >= abort_deadline_) break;  // grace is over
        auto until = Clock::now() + std::chrono::seconds(1);
        if (options_.on_progress) until = std::min(until, next_progress);
        if (report_.aborted) until = std::min(until, abort_deadline_);
        for (const BatchJob* job : timed_) until = std::min(until, job->deadline);
        if (watch_stuck) until = std::min(until, next_stuck_check);
        reports_->pop_all(inbox_, until, [this] { return take_streamed(); },
                          live_jobs_ > 0 ? kDriverSpinUs : 0);
        for (Report& r : inbox_) {
            if (r.kind == Report::Kind::Done && r.job) note_batch_time(*r.job);
            on_report(r);
        }
        inbox_.clear();
        take_streamed();
        check_timeouts();
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
    for (;;) {
        for (Report& r : inbox_) {
            if (r.kind != Report::Kind::Done || !r.job || !r.job->running) continue;
            r.job->running = false;
            --live_jobs_;
            if (r.job->abandoned) --abandoned_jobs_;
        }
        inbox_.clear();
        if (live_jobs_ == abandoned_jobs_ || Clock::now() >= deadline) return;
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
                                  return r.job && std::find(back.begin(), back.end(), r.job) ==
                                                      back.end();
                              }),
               left.end());
    for (std::unique_ptr<BatchJob>& job : jobs_) {
        if (!job || !job->running) continue;
        if (job->abandoned) calls_[job->call].counters.stale_reports += job->size();
        reports_->adopt(std::move(job));
    }
    timed_.clear();
    streaming_.clear();
}

RunReport Engine::run() {
    start_ = Clock::now();
    const auto start_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              start_.time_since_epoch()).count();
    std::vector<Report> left;
    open_root_sinks();  // journal and restore(): before any actor exists
    try {
        executor_.start(plan_, *reports_);
        event_loop();
    } catch (...) {
        settle(Clock::now() + options_.stop_grace);
        shut_down(left);
        throw;
    }
    shut_down(left);
    for (Report& r : left) on_report(r);  // stale, or (after an abort) results that commit
    left.clear();

    for (RootState& root : roots_) {
        if (!root.done && root.result.status != RootStatus::Failed) {
            root.result.status = RootStatus::Failed;
            root.result.reason = "run aborted: " + report_.abort_reason;
        }
        report_.roots.push_back(std::move(root.result));
    }
    report_.calls = progress().calls;
    report_.entities = domain_.size();
    report_.lineage_bytes = lineage_bytes();
    report_.wall_s = std::chrono::duration<double>(Clock::now() - start_).count();
    if (!options_.trace_path.empty()) write_trace(options_.trace_path, plan_, trace_, start_ns);
    if (options_.on_progress) options_.on_progress(progress());
    return std::move(report_);
}

}  // namespace detail

RunReport run(const Plan& plan, RootSource& source, const RunOptions& options,
              Executor& executor) {
    detail::Engine engine(plan, source, options, executor);
    return engine.run();
}

RunReport run(const Plan& plan, RootSource& source, const RunOptions& options) {
    auto executor = make_thread_executor();
    return run(plan, source, options, *executor);
}

}  // namespace rop::runtime
