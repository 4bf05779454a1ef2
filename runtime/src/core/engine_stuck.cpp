// Stuck batches: a batch that has run far longer than its Call's median batch time is flagged
// (RunOptions::on_stuck, once per batch) and listed in the progress while it runs, so a UDF
// that hangs in a Call without a timeout is seen instead of an ETA of a few seconds.
#include <algorithm>

#include "engine.h"

namespace rop::runtime {

bool batch_stuck(double running_s, double median_s, double stuck_factor,
                 std::chrono::milliseconds stuck_min) {
    if (stuck_factor <= 0) return false;
    const double min_s = std::chrono::duration<double>(stuck_min).count();
    return running_s > min_s && running_s > stuck_factor * median_s;
}

namespace detail {

namespace {

std::int64_t now_ns(Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

}  // namespace

void Engine::note_batch_time(const BatchJob& job) {
    if (job.abandoned || job.end_ns <= job.start_ns) return;
    BatchTimes& t = batch_times_[job.call];
    const std::int64_t ns = job.end_ns - job.start_ns;
    t.total_ns += ns;
    if (t.ns.size() < kMedianWindow) {
        t.ns.push_back(ns);
    } else {
        t.ns[t.next] = ns;
        t.next = (t.next + 1) % kMedianWindow;
    }
}

double Engine::median_batch_s(CallId call) const {
    const std::vector<std::int64_t>& ns = batch_times_[call].ns;
    if (ns.empty()) return 0;
    std::vector<std::int64_t> sorted = ns;  // at most kMedianWindow
    const auto mid = sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2);
    std::nth_element(sorted.begin(), mid, sorted.end());
    return static_cast<double>(*mid) / 1e9;
}

StuckBatch Engine::describe_stuck(const BatchJob& job, Clock::time_point now) const {
    const CallSpec& spec = plan_.calls[job.call];
    StuckBatch s;
    s.call = job.call;
    s.call_name = spec.name;
    s.grains = job.size();
    for (const GrainInfo& info : job.infos) {
        if (store_.released_entity(info.entity)) continue;  // its root finished without it
        const std::string& name = store_.root_of(info.entity).result.name;
        if (std::find(s.roots.begin(), s.roots.end(), name) == s.roots.end()) {
            s.roots.push_back(name);
        }
    }
    const std::int64_t started = job.started_ns.load(std::memory_order_relaxed);
    s.running_s = static_cast<double>(now_ns(now) - started) / 1e9;
    s.median_s = median_batch_s(job.call);
    s.timeout = spec.options.timeout;
    return s;
}

// Flags batches that became stuck since the last check. A batch queued behind another on its
// actor has not started (started_ns 0) and is never flagged; nor is an abandoned one.
void Engine::check_stuck() {
    if (options_.stuck_factor <= 0) return;
    const auto now = Clock::now();
    const std::int64_t now_at = now_ns(now);
    const double min_s = std::chrono::duration<double>(options_.stuck_min).count();
    for (const std::unique_ptr<BatchJob>& job : scheduler_.jobs()) {
        if (!job || !job->running || job->abandoned || job->flagged_stuck) continue;
        if (job->paused) continue;  // waiting on purpose (backpressure)
        const std::int64_t started = job->started_ns.load(std::memory_order_relaxed);
        if (started == 0) continue;
        // A streaming expand that still emits children is making progress: its time counts
        // from its last child (a PDF streaming 400 pages for a minute is not stuck).
        const std::int64_t since =
            std::max(started, job->progress_ns.load(std::memory_order_relaxed));
        const double running_s = static_cast<double>(now_at - since) / 1e9;
        if (running_s <= min_s) continue;  // the common case: no median needed
        if (!batch_stuck(running_s, median_batch_s(job->call), options_.stuck_factor,
                         options_.stuck_min)) {
            continue;
        }
        job->flagged_stuck = true;
        ++counters_[job->call].stuck_batches;
        if (options_.on_stuck) options_.on_stuck(describe_stuck(*job, now));
    }
}

std::vector<StuckBatch> Engine::stuck_batches() const {
    std::vector<StuckBatch> out;
    const auto now = Clock::now();
    for (const std::unique_ptr<BatchJob>& job : scheduler_.jobs()) {
        if (job && job->running && !job->abandoned && job->flagged_stuck) {
            out.push_back(describe_stuck(*job, now));
        }
    }
    return out;
}

}  // namespace detail
}  // namespace rop::runtime
