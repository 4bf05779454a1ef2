// The virtual-time executor and simulate() (simulate.h). One helper thread releases batches:
// it waits until the driver has taken every report and sleeps in ReportQueue::pop_all (so it has
// admitted and dispatched all it would at this moment), then ends the earliest batch, moves the
// virtual clock to its end and pushes its Done. The driver thus sees completions in virtual-time
// order, one at a time, and its own rules decide what runs next. A batch's end moves while it
// runs only when the running batches' CPU time asks for more than SimModel::cores: then their
// CPU parts share the cores (processor sharing), and each end is recomputed at every start and
// end of a batch. An expand's batch streams its children as the real one does: each Grain's
// children come out over its share of the batch (at most kStreamSteps wake-ups a Grain), each
// chunk an Emitted wake-up the driver takes as it takes a real actor's children.
#include "estimate/simulate.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "rop/runtime/executor.h"

namespace rop::runtime::estimate {
namespace {

// How many wake-ups one expand Grain's children come out in, at most: a Grain of up to this
// many children emits each one after its share of the Grain's time, a larger one in this many
// equal chunks (each replay wake-up is a round trip with the driver).
constexpr std::size_t kStreamSteps = 8;

// A chunk of an expand Grain's children, due once the batch has done `at_cost` seconds of its
// cost.
struct Emission {
    double at_cost;
    std::uint32_t grain;
    std::uint32_t first, count;  // the children's ordinals
};

// A batch on a virtual actor: it ends at end_s at its current rate (seconds of its cost per
// virtual second, 1 when the cores are not oversubscribed).
struct Running {
    double end_s;
    double rate;
    double start_s;
    double cost;        // seconds of work at rate 1
    double cpu;         // its Call's cpu_share
    std::uint64_t seq;  // ties: submission order
    BatchJob* job;
    std::vector<Emission> emissions;  // an expand's, in order of at_cost
    std::size_t next = 0;             // the first not yet out
    // When the next emission is due, at the current rate; infinity when none is due before the
    // batch's end (what is due at its end comes out with its Done).
    double next_s() const {
        if (next == emissions.size() || emissions[next].at_cost >= cost - 1e-12)
            return std::numeric_limits<double>::infinity();
        return end_s - (cost - emissions[next].at_cost) / rate;
    }
};

class VirtualExecutor final : public Executor {
  public:
    explicit VirtualExecutor(const SimModel& model) : model_(model) {}
    ~VirtualExecutor() override { stop(); }

    void start(const Plan& plan, ReportQueue& reports) override {
        sets_ = actor_sets(plan);
        reports_ = &reports;
        idle_.clear();
        for (const ActorSet& set : sets_.sets) idle_.push_back(std::max(1u, set.actors));
        waiting_.assign(sets_.sets.size(), {});
        running_.clear();
        busy_.assign(plan.calls.size(), 0);
        batches_.assign(plan.calls.size(), 0);
        grains_.assign(plan.calls.size(), 0);
        emitted_.assign(plan.calls.size(), 0);
        owed_.assign(plan.calls.size(), 0);
        ends_.clear();
        stopping_ = false;
        releaser_ = std::thread([this] { release_loop(); });
    }

    // Driver thread: the batch starts now on an idle actor of its set, or waits for the set's
    // first actor to free up (a thread pool's shared FIFO deque does the same).
    void submit(BatchJob& job) override {
        std::lock_guard<std::mutex> lock(mutex_);
        const std::uint32_t set = sets_.of_call.at(job.call);
        ++batches_[job.call];
        grains_[job.call] += job.size();
        job.actor = set;
        if (idle_.at(set) > 0) {
            --idle_[set];
            begin(job, seq_++);
        } else {
            waiting_.at(set).emplace_back(&job, seq_++);
        }
        wake_.notify_one();
    }

    void abandon(BatchJob&) override {}  // no timeout fires: a batch is out for microseconds
    bool driver_may_poll() const override { return false; }  // nothing comes until it sleeps

    void stop() override {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stopping_ = true;
            wake_.notify_one();
        }
        if (releaser_.joinable()) releaser_.join();
    }

    double now() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return now_;
    }
    double busy_s(CallId c) const { return busy_.at(c); }
    std::uint64_t batches(CallId c) const { return batches_.at(c); }
    std::uint64_t grains(CallId c) const { return grains_.at(c); }
    // Every batch's end in virtual time, in the order they ended (after the run).
    struct End {
        double at_s;
        CallId call;
        std::uint32_t grains;
    };
    const std::vector<End>& ends() const { return ends_; }
    std::uint32_t actors_of(CallId c) const {
        const std::uint32_t set = sets_.of_call.at(c);
        return set == ActorSets::kNoSet ? 0 : sets_.sets[set].actors;
    }

  private:
    const CallCost& cost_of(CallId c) const {
        static const CallCost none;
        return c < model_.calls.size() ? model_.calls[c] : none;
    }

    // Under mutex_: the batch starts at now_, and every running batch's rate is set again. An
    // expand's per-Grain cost scales with each Grain's weight, as its fan-out does (a document
    // of twice the pages takes twice as long to list or render); the model's b is a root of
    // weight 1's, the sample's mean. Its children are counted now and come out over its time:
    // after the batch's fixed part, each Grain's over its own part, one after another.
    void begin(BatchJob& job, std::uint64_t seq) {
        job.clear_results();
        const CallCost& cost = cost_of(job.call);
        double work = static_cast<double>(job.size());
        std::vector<Emission> emissions;
        if (job.kind == CallKind::Expand && job.num_inputs > 0) {
            work = 0;
            for (std::size_t g = 0; g < job.size(); ++g) {
                const double scale = scale_of(job.inputs[g * job.num_inputs]);
                schedule_children(job, g, cost, work, scale, emissions);
                work += scale;
            }
        }
        const double cpu = std::clamp(cost.cpu_share, 0.0, 1.0);
        const double total = cost.batch_s(work);
        running_.push_back({now_ + total, 1.0, now_, total, cpu, seq, &job, std::move(emissions)});
        share_cores();
    }

    // Under mutex_: Grain g's children, the measured mean fan-out times its root's weight,
    // rounded so that the children counted so far follow the running sum (job.emitted holds
    // the count until its Done). `before`: the weight of the batch's Grains ahead of it.
    void schedule_children(BatchJob& job, std::size_t g, const CallCost& cost, double before,
                           double scale, std::vector<Emission>& out) {
        owed_[job.call] += cost.fanout * scale;
        const auto total = static_cast<std::uint64_t>(std::floor(owed_[job.call] + 1e-9));
        const auto n = static_cast<std::uint32_t>(total - emitted_[job.call]);
        emitted_[job.call] = total;
        job.emitted[g] = n;
        const std::size_t steps = std::min<std::size_t>(n, kStreamSteps);
        std::uint32_t first = 0;
        for (std::size_t k = 1; k <= steps; ++k) {
            const auto upto = static_cast<std::uint32_t>(n * k / steps);
            const double at = cost.fixed_s + cost.per_item_s * (before + scale * upto / n);
            out.push_back({at, static_cast<std::uint32_t>(g), first, upto - first});
            first = upto;
        }
    }

    // Under mutex_: the running batches' rates. While their CPU parts ask for at most the
    // model's cores every batch runs at its cost; beyond, each CPU part gets cores / demand of a
    // core, so a batch of CPU share c runs at 1 / ((1 - c) + c x demand / cores). A changed rate
    // moves the batch's end: what is left of it is scaled by old rate / new rate.
    void share_cores() {
        double demand = std::max(0.0, model_.driver_cpu);
        for (const Running& r : running_) demand += r.cpu;
        const double over = model_.cores > 0 && demand > model_.cores ? demand / model_.cores : 1.0;
        for (Running& r : running_) {
            const double rate = 1.0 / ((1.0 - r.cpu) + r.cpu * over);
            if (rate != r.rate) {
                r.end_s = now_ + (r.end_s - now_) * r.rate / rate;
                r.rate = rate;
            }
        }
    }

    void release_loop() {
        for (;;) {
            {
                std::unique_lock<std::mutex> lock(mutex_);
                wake_.wait(lock, [this] { return stopping_ || !running_.empty(); });
                if (stopping_) return;
            }
            // The driver is done with the last batch: it took every report (queued() first: its
            // 0 comes after the driver's waiting flag went down) and sleeps again.
            for (int spins = 0; !(reports_->queued() == 0 && reports_->driver_waiting()); ++spins) {
                if (spins < 64) {
                    std::this_thread::yield();
                } else {
                    std::this_thread::sleep_for(std::chrono::microseconds(20));
                }
                std::lock_guard<std::mutex> lock(mutex_);
                if (stopping_) return;
            }
            BatchJob* job = nullptr;
            {
                std::lock_guard<std::mutex> lock(mutex_);
                if (running_.empty()) continue;
                const auto first = std::min_element(
                    running_.begin(), running_.end(), [](const Running& a, const Running& b) {
                        const double ta = std::min(a.next_s(), a.end_s);
                        const double tb = std::min(b.next_s(), b.end_s);
                        return ta != tb ? ta < tb : a.seq < b.seq;
                    });
                if (first->next_s() < first->end_s) {
                    // A chunk of children comes out: the driver takes it when it wakes.
                    now_ = std::max(now_, first->next_s());
                    emit(*first->job, first->emissions[first->next++]);
                    reports_->push(Report{Report::Kind::Emitted, nullptr, {}, 0, {}});
                    continue;
                }
                Running e = std::move(*first);
                running_.erase(first);
                now_ = std::max(now_, e.end_s);
                job = e.job;
                busy_[job->call] += now_ - e.start_s;
                ends_.push_back({now_, job->call, static_cast<std::uint32_t>(job->size())});
                for (std::size_t i = e.next; i < e.emissions.size(); ++i)
                    emit(*job, e.emissions[i]);
                // Its actor takes the set's next waiting batch, or goes idle.
                const std::uint32_t set = sets_.of_call.at(job->call);
                if (!waiting_[set].empty()) {
                    const auto [next, seq] = waiting_[set].front();
                    waiting_[set].pop_front();
                    begin(*next, seq);
                } else {
                    ++idle_[set];
                    share_cores();
                }
            }
            finish(*job);
            reports_->push(Report{Report::Kind::Done, job, {}, 0, {}});
        }
    }

    // Under mutex_: a chunk of an expand Grain's children, where the driver takes them.
    void emit(BatchJob& job, const Emission& e) {
        const CallCost& cost = cost_of(job.call);
        std::lock_guard<std::mutex> lock(job.children_mutex);
        for (std::uint32_t i = 0; i < e.count; ++i)
            job.children.push_back({e.grain, e.first + i, Value::of(SimItem{cost.bytes, 1.0})});
    }

    static double scale_of(const Value& v) {
        const SimItem* item = v.try_get<SimItem>();
        return item ? item->scale : 1.0;
    }

    // The batch's results, as its UDF would have reported them (no failures); an expand's
    // children are out by now (begin, emit).
    void finish(BatchJob& job) {
        const CallCost& cost = cost_of(job.call);
        const auto t = std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now().time_since_epoch())
                           .count();
        job.start_ns = job.end_ns = t;
        for (std::size_t g = 0; g < job.size(); ++g) {
            const double scale =
                job.num_inputs > 0 ? scale_of(job.inputs[g * job.num_inputs]) : 1.0;
            switch (job.kind) {
                case CallKind::Filter: {
                    // Kept in the measured share exactly: a running quota, no randomness.
                    owed_[job.call] += cost.keep;
                    const bool keep = owed_[job.call] >= 1.0 - 1e-9;
                    if (keep) owed_[job.call] -= 1.0;
                    job.results[g] = keep ? GrainResult::Keep : GrainResult::Drop;
                    break;
                }
                case CallKind::Expand: job.results[g] = GrainResult::Ok; break;
                default:  // map, reduce
                    for (std::size_t o = 0; o < job.num_outputs; ++o) {
                        job.outputs[g * job.num_outputs + o] =
                            Value::of(SimItem{cost.bytes, scale});
                    }
                    job.results[g] = GrainResult::Ok;
            }
        }
    }

    const SimModel& model_;
    ActorSets sets_;
    ReportQueue* reports_ = nullptr;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::vector<Running> running_;
    std::vector<std::uint32_t> idle_;  // per set: actors with no batch
    std::vector<std::deque<std::pair<BatchJob*, std::uint64_t>>> waiting_;  // per set, FIFO
    double now_ = 0;
    std::uint64_t seq_ = 0;
    bool stopping_ = false;
    std::vector<double> busy_;
    std::vector<std::uint64_t> batches_, grains_;
    std::vector<End> ends_;
    // The filters' and expands' running quotas (the filters': release thread only).
    std::vector<double> owed_;
    std::vector<std::uint64_t> emitted_;
    std::thread releaser_;
};

// Roots "#0", "#1"...: their names give back their ordinals; admission stamps their start.
class SyntheticRoots final : public RootSource {
  public:
    SyntheticRoots(const SimModel& model, std::size_t roots, const VirtualExecutor& clock)
        : model_(model), roots_(roots), clock_(clock) {}
    std::optional<Root> next() override {
        if (next_ == roots_) return std::nullopt;
        const double scale = next_ < model_.root_scales.size() ? model_.root_scales[next_] : 1.0;
        admitted_s.push_back(clock_.now());
        Root root{Value::of(SimItem{model_.root_bytes, scale}), "#" + std::to_string(next_)};
        ++next_;
        return root;
    }
    std::optional<std::size_t> size_hint() const override { return roots_; }
    std::vector<double> admitted_s;

  private:
    const SimModel& model_;
    std::size_t roots_;
    const VirtualExecutor& clock_;
    std::size_t next_ = 0;
};

double nearest_rank(std::vector<double> values, double percent) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const auto rank =
        static_cast<std::size_t>(std::ceil(percent / 100.0 * static_cast<double>(values.size())));
    return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

}  // namespace

// The run's share done over virtual time (SimOutcome::progress): each Call's Grains done over
// its total, weighted by its busy time, read after every batch's end; a point at each hundredth.
static std::vector<std::pair<double, double>> progress_curve(
    const std::vector<SimCall>& calls, const std::vector<VirtualExecutor::End>& ends) {
    double weight = 0;
    for (const SimCall& c : calls) {
        if (c.grains > 0) weight += c.busy_s;
    }
    std::vector<std::pair<double, double>> curve = {{0.0, 0.0}};
    if (weight <= 0) return curve;
    std::vector<double> done(calls.size(), 0);
    double share = 0;
    for (const VirtualExecutor::End& e : ends) {
        const SimCall& c = calls.at(e.call);
        if (c.grains == 0) continue;
        const double before = std::min(1.0, done[e.call] / static_cast<double>(c.grains));
        done[e.call] += e.grains;
        const double after = std::min(1.0, done[e.call] / static_cast<double>(c.grains));
        share += c.busy_s * (after - before) / weight;
        // A point each time the share passes the next hundredth (the last one: 1 at the end).
        while (curve.size() <= 100 && share >= static_cast<double>(curve.size()) / 100 - 1e-9) {
            curve.emplace_back(static_cast<double>(curve.size()) / 100, e.at_s);
        }
    }
    return curve;
}

SimOutcome simulate(const Plan& plan, const SimModel& model, std::size_t roots,
                    const RunOptions& options) {
    const auto wall_start = std::chrono::steady_clock::now();
    // Every actor in this process: the virtual executor places nothing elsewhere.
    Plan sim = plan;
    for (CallSpec& c : sim.calls) c.options.isolation = Isolation::Thread;
    for (PoolSpec& p : sim.pools) p.options.isolation = Isolation::Thread;

    VirtualExecutor executor(model);
    SyntheticRoots source(model, roots, executor);
    SimOutcome out;
    out.commit_s.assign(roots, 0);
    out.latency_s.assign(roots, 0);
    RunOptions run_options;
    run_options.max_inflight_roots = options.max_inflight_roots;
    run_options.max_payload_bytes = options.max_payload_bytes;
    run_options.report_ok_roots = false;
    run_options.stuck_factor = 0;
    run_options.on_root_finished = [&](const RootResult& root) {
        const std::size_t ordinal = std::stoul(root.name.substr(1));
        const double t = executor.now();
        out.commit_s.at(ordinal) = t;
        out.latency_s.at(ordinal) = t - source.admitted_s.at(ordinal);
        if (root.status == RootStatus::Failed) ++out.failed_roots;
    };
    const RunReport report = run(sim, source, run_options, executor);
    if (report.aborted) out.failed_roots = roots;
    out.peak_live_bytes = report.peak_live_bytes;
    out.peak_live_items = report.peak_live_items;

    out.makespan_s = executor.now();
    if (!out.commit_s.empty()) {
        out.makespan_s = *std::max_element(out.commit_s.begin(), out.commit_s.end());
        out.first_root_s = *std::min_element(out.commit_s.begin(), out.commit_s.end());
    }
    out.p50_latency_s = nearest_rank(out.latency_s, 50);
    out.p99_latency_s = nearest_rank(out.latency_s, 99);
    for (std::size_t c = 0; c < sim.calls.size(); ++c) {
        const auto id = static_cast<CallId>(c);
        SimCall call{sim.calls[c].name,   executor.actors_of(id), executor.batches(id),
                     executor.grains(id), executor.busy_s(id),    0};
        if (call.actors > 0 && out.makespan_s > 0) {
            call.utilization = call.busy_s / (out.makespan_s * call.actors);
        }
        out.calls.push_back(std::move(call));
    }
    out.progress = progress_curve(out.calls, executor.ends());
    out.wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    return out;
}

}  // namespace rop::runtime::estimate
