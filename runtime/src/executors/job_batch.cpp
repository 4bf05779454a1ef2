// The worker side shared by every executor: the Batch view over a BatchJob, exception
// classification, streaming of emitted children, and the report queue.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <optional>
#include <thread>
#include <vector>

#include "core/crash.h"
#include "core/thread_clock.h"
#include "rop/runtime/executor.h"

namespace rop::runtime {

const Value& Batch::parent(std::size_t /*grain*/) const {
    static const Value empty;
    return empty;
}

namespace {

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// steady_clock's time (CLOCK_MONOTONIC) to the few milliseconds of the kernel's tick: what an
// emitted child marks as its batch's last progress for the stuck check (seconds apart). Reading
// it costs a few nanoseconds; steady_clock::now() for every child cost 15% of B1's run.
std::int64_t coarse_now_ns() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

class JobBatch final : public Batch {
  public:
    JobBatch(BatchJob& job, ReportQueue& reports) : job_(job), reports_(reports) {}

    std::size_t size() const override { return job_.size(); }
    CallId call() const override { return job_.call; }
    GrainInfo info(std::size_t grain) const override {
        check_grain(grain, "info");
        return job_.infos[grain];
    }
    const Value& input(std::size_t grain, std::size_t input) const override {
        check_grain(grain, "input");
        if (input >= job_.num_inputs) {
            throw ContractError("input(" + std::to_string(input) + "): the call has " +
                                std::to_string(job_.num_inputs) + " inputs");
        }
        return job_.inputs[grain * job_.num_inputs + input];
    }
    const Value& parent(std::size_t grain) const override {
        check_grain(grain, "parent");
        if (job_.parent_values.empty()) return Batch::parent(grain);
        return job_.parent_values[grain];
    }
    bool wanted(std::size_t grain) const override {
        check_grain(grain, "wanted");
        return grain >= job_.unwanted.size() || std::atomic_ref<std::uint8_t>(job_.unwanted[grain])
                                                        .load(std::memory_order_relaxed) == 0;
    }
    void set_output(std::size_t grain, std::size_t output, Value value) override {
        check_grain(grain, "set_output");
        if (job_.kind != CallKind::Map && job_.kind != CallKind::Reduce) {
            throw ContractError("set_output: not a map or reduce call (use set_keep/emit_child)");
        }
        if (output >= job_.num_outputs) {
            throw ContractError("set_output(" + std::to_string(output) + "): the call has " +
                                std::to_string(job_.num_outputs) + " outputs");
        }
        if (!value) throw ContractError("set_output: empty value");
        job_.outputs[grain * job_.num_outputs + output] = std::move(value);
    }
    void set_keep(std::size_t grain, bool keep) override {
        check_grain(grain, "set_keep");
        if (job_.kind != CallKind::Filter) throw ContractError("set_keep: not a filter call");
        job_.results[grain] = keep ? GrainResult::Keep : GrainResult::Drop;
    }
    void emit_child(std::size_t grain, Value child) override {
        check_grain(grain, "emit_child");
        if (job_.kind != CallKind::Expand) throw ContractError("emit_child: not an expand call");
        if (job_.results[grain] != GrainResult::None) {
            throw ContractError("emit_child: grain " + std::to_string(grain) +
                                " already finished or failed");
        }
        if (!child) throw ContractError("emit_child: empty value");
        const auto g = static_cast<std::uint32_t>(grain);
        const auto bytes = static_cast<std::int64_t>(child.byte_size());
        bool first;
        {
            std::lock_guard<std::mutex> lock(job_.children_mutex);
            first = job_.children.empty();
            job_.children.push_back({g, job_.emitted[grain]++, std::move(child)});
        }
        job_.progress_ns.store(coarse_now_ns(), std::memory_order_relaxed);  // not stuck
        if (first && reports_.driver_waiting())
            reports_.push(Report{Report::Kind::Emitted, nullptr, {}, 0, {}});
        // Fairness (priority rule 6): every kYieldEvery children, a reentrant actor runs another
        // root's batch queued behind this one, if any, before it goes on.
        if (job_.yielder && ++job_.since_yield >= Yielder::kYieldEvery) {
            job_.since_yield = 0;
            job_.yielder->run_waiting();
        }
        // Backpressure: the child is out; with its credit spent, the next one waits for the
        // driver to grant more (a poll: pauses last milliseconds at least), lending the actor
        // to a queued batch meanwhile where it can.
        if (job_.credit.fetch_sub(bytes, std::memory_order_acq_rel) <= bytes) {
            while (job_.credit.load(std::memory_order_acquire) <= 0) {
                if (!job_.yielder || !job_.yielder->run_waiting()) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                }
            }
        }
    }
    void finish_children(std::size_t grain) override {
        check_grain(grain, "finish_children");
        if (job_.kind != CallKind::Expand) {
            throw ContractError("finish_children: not an expand call");
        }
        if (job_.results[grain] == GrainResult::None) job_.results[grain] = GrainResult::Ok;
    }
    void fail_record(std::size_t grain, std::string reason) override {
        check_grain(grain, "fail_record");
        mark_failed(grain, GrainResult::RecordFailed, std::move(reason));
    }
    void fail_group(std::size_t grain, std::string reason) override {
        check_grain(grain, "fail_group");
        if (job_.results[grain] == GrainResult::GroupFailed) return;  // the first reason stays
        // Streamed (docs/runtime.md, "A GroupFailure is streamed"): the driver raises the
        // barrier now, so that the item's siblings still queued, or later in this very batch,
        // are suppressed instead of run; the batch's Done repeats it for the fence to settle.
        reports_.push(Report{
            Report::Kind::GroupFailed, &job_, {}, static_cast<std::uint32_t>(grain), reason});
        mark_failed(grain, GrainResult::GroupFailed, std::move(reason));
    }

    // After a normal return: every Grain needs a complete result (expand: implicit; a Grain the
    // driver no longer wants may be left without one: it is SUPPRESSED at commit).
    void check_complete() {
        for (std::size_t g = 0; g < job_.size(); ++g) {
            GrainResult& r = job_.results[g];
            if (r != GrainResult::None) continue;
            if (job_.kind == CallKind::Expand) {
                r = GrainResult::Ok;
                continue;
            }
            if (!wanted(g)) {
                r = job_.kind == CallKind::Filter ? GrainResult::Drop : GrainResult::Ok;
                continue;
            }
            if (job_.kind == CallKind::Filter) throw missing(g, "set_keep was not called");
            for (std::size_t o = 0; o < job_.num_outputs; ++o) {
                if (!job_.outputs[g * job_.num_outputs + o]) {
                    throw missing(g, "output " + std::to_string(o) + " was not set");
                }
            }
            r = GrainResult::Ok;
        }
    }
    // After a typed throw: Grains with all outputs set count as done, the rest stay None.
    void keep_complete_outputs() {
        if (job_.kind != CallKind::Map && job_.kind != CallKind::Reduce) return;
        for (std::size_t g = 0; g < job_.size(); ++g) {
            if (job_.results[g] != GrainResult::None) continue;
            bool all = true;
            for (std::size_t o = 0; o < job_.num_outputs; ++o) {
                all = all && job_.outputs[g * job_.num_outputs + o].has_value();
            }
            if (all) job_.results[g] = GrainResult::Ok;
        }
    }
    void fail_thrown(std::size_t index, GrainResult kind, const char* what) {
        if (index == rop::kUnnamed) {
            if (job_.size() == 1) {  // alone in its batch: the item is known
                mark_failed(0, kind, what);
                return;
            }
            job_.error = BatchError::Unattributed;  // the committer bisects the batch
            job_.error_kind = kind;
            job_.error_message = what;
            return;
        }
        if (index >= job_.size()) {
            throw ContractError("a typed failure names grain " + std::to_string(index) +
                                " but the batch has " + std::to_string(job_.size()));
        }
        mark_failed(index, kind, what);
    }
    // One failure per Grain, whatever order the UDF reported them in: a GroupFailure dominates a
    // RecordFailure (it raises the barrier and its reason is the Grain's), and the first reason
    // of the winning kind stays (as in RayOrch).
    void mark_failed(std::size_t grain, GrainResult kind, std::string reason) {
        GrainResult& current = job_.results[grain];
        if (current == GrainResult::GroupFailed) return;
        if (current == GrainResult::RecordFailed) {
            if (kind == GrainResult::RecordFailed) return;
            std::erase_if(job_.reasons, [grain](const auto& r) { return r.first == grain; });
        }
        current = kind;
        job_.reasons.emplace_back(static_cast<std::uint32_t>(grain), std::move(reason));
    }

  private:
    void check_grain(std::size_t grain, const char* what) const {
        if (grain >= job_.size()) {
            throw ContractError(std::string(what) + ": grain " + std::to_string(grain) +
                                " out of range (batch of " + std::to_string(job_.size()) + ")");
        }
    }
    ContractError missing(std::size_t grain, const std::string& detail) const {
        return ContractError("grain " + std::to_string(grain) + " (entity " +
                             std::to_string(job_.infos[grain].entity) +
                             ") has no result: " + detail);
    }

    BatchJob& job_;
    ReportQueue& reports_;
};

// Points a thread-local slot of <rop/udf.h> (rop::current_counter_sink() and the like) at
// `value` for this object's life, then back at what it held before (a batch run nested in
// another, by a lending actor, restores the outer batch's).
template <class T>
class ScopedSlot {
  public:
    ScopedSlot(T*& slot, T* value) : slot_(slot), previous_(slot) { slot_ = value; }
    ~ScopedSlot() { slot_ = previous_; }
    ScopedSlot(const ScopedSlot&) = delete;
    ScopedSlot& operator=(const ScopedSlot&) = delete;

  private:
    T*& slot_;
    T* previous_;
};

// rop::wanted(i) from a batch UDF while its batch runs on this thread: the driver's verdict.
class WantedItems final : public rop::WantedSource {
  public:
    explicit WantedItems(const Batch& batch) : batch_(batch) {}

    bool wanted(std::size_t item) const override {
        return item >= batch_.size() || batch_.wanted(item);
    }

  private:
    const Batch& batch_;
    ScopedSlot<const rop::WantedSource> installed_{rop::current_wanted_source(), this};
};

// rop::fail_group_now from a batch UDF while its batch runs on this thread: Batch::fail_group,
// streamed to the driver at once.
class GroupFailures final : public rop::GroupFailureSink {
  public:
    explicit GroupFailures(Batch& batch) : batch_(batch) {}

    void fail_group(std::size_t item, std::string reason) override {
        batch_.fail_group(item, std::move(reason));  // an item out of range: a ContractError
    }

  private:
    Batch& batch_;
    ScopedSlot<rop::GroupFailureSink> installed_{rop::current_group_failure_sink(), this};
};

// rop::count from the UDF while a batch runs on this thread goes to the batch's counters.
class UdfCounting final : public rop::CounterSink {
  public:
    explicit UdfCounting(BatchJob& job) : job_(job) {}

    void add(std::string_view name, std::uint64_t n) override {
        auto it = job_.udf_counters.find(name);
        if (it == job_.udf_counters.end()) it = job_.udf_counters.emplace(name, 0).first;
        it->second += n;
    }

  private:
    BatchJob& job_;
    ScopedSlot<rop::CounterSink> installed_{rop::current_counter_sink(), this};
};

// rop::expected_children from an expand UDF while its batch runs on this thread: queued for the
// driver with the streamed children, for the Grain being run (the first without a result: the
// generated ExpandActor runs its Grains in order and finishes each before the next).
class ExpectedChildren final : public rop::ExpectedChildrenSink {
  public:
    ExpectedChildren(BatchJob& job, ReportQueue& reports) : job_(job), reports_(reports) {}

    void expect(std::uint64_t children) override {
        std::size_t grain = 0;
        while (grain < job_.size() && job_.results[grain] != GrainResult::None) ++grain;
        if (grain == job_.size()) return;
        {
            std::lock_guard<std::mutex> lock(job_.children_mutex);
            job_.expected_children.emplace_back(static_cast<std::uint32_t>(grain), children);
        }
        if (reports_.driver_waiting())
            reports_.push(Report{Report::Kind::Emitted, nullptr, {}, 0, {}});
    }

  private:
    BatchJob& job_;
    ReportQueue& reports_;
    ScopedSlot<rop::ExpectedChildrenSink> installed_{rop::current_expected_children_sink(), this};
};

}  // namespace

void BatchJob::clear_results() {
    const std::size_t n = size();
    outputs.assign(n * num_outputs, Value());
    results.assign(n, GrainResult::None);
    reasons.clear();
    emitted.assign(n, 0);
    std::lock_guard<std::mutex> lock(children_mutex);
    children.clear();
    expected_children.clear();
    error = BatchError::None;
    error_kind = GrainResult::None;
    error_message.clear();
    udf_counters.clear();
}

bool execute_job(Actor* actor, BatchJob& job, ReportQueue& reports, std::string setup_error) {
    job.clear_results();
    // measure_cpu: the window is read inside out (the wait, the CPU clock, the start ... the
    // end, the CPU clock, the wait), so the /proc reads' own CPU stays out of the batch's.
    std::int64_t wait_at_start = 0, cpu_at_start = -1;
    if (job.measure_cpu) {
        wait_at_start = thread_wait_ns();
        cpu_at_start = thread_cpu_ns();
    }
    job.start_ns = now_ns();
    job.started_ns.store(job.start_ns, std::memory_order_relaxed);
    bool replace_actor = false;
    if (!actor) {
        job.error = BatchError::Setup;
        job.error_message = "actor setup failed: " + setup_error;
        replace_actor = true;
    } else {
        JobBatch batch(job, reports);
        const BatchJob* outer = detail::running_job();  // a batch this one runs nested in
        detail::set_running_job(&job);                  // for the crash handler (crash.h)
        UdfCounting counting(job);
        WantedItems wanted(batch);
        GroupFailures group_failures(batch);
        std::optional<ExpectedChildren> expecting;
        if (job.kind == CallKind::Expand) expecting.emplace(job, reports);
        try {
            try {
                actor->process(batch);
                batch.check_complete();
            } catch (const RecordFailure& f) {
                batch.fail_thrown(f.index(), GrainResult::RecordFailed, f.what());
                batch.keep_complete_outputs();
            } catch (const GroupFailure& f) {
                batch.fail_thrown(f.index(), GrainResult::GroupFailed, f.what());
                batch.keep_complete_outputs();
            }
        } catch (const InfraFailure& e) {
            job.error = BatchError::Infra;
            job.error_message = e.what();
            replace_actor = true;
        } catch (const ContractError& e) {
            job.error = BatchError::Contract;
            job.error_message = e.what();
        } catch (const std::exception& e) {
            job.error = BatchError::Opaque;
            job.error_message = e.what();
            batch.keep_complete_outputs();
        } catch (...) {
            job.error = BatchError::Opaque;
            job.error_message = "unknown exception";
            batch.keep_complete_outputs();
        }
        detail::set_running_job(outer);
    }
    job.end_ns = now_ns();
    if (cpu_at_start >= 0) {
        job.cpu_ns = std::max<std::int64_t>(0, thread_cpu_ns() - cpu_at_start);
        job.wait_ns = std::max<std::int64_t>(0, thread_wait_ns() - wait_at_start);
    }
    Report done;
    done.kind = Report::Kind::Done;
    done.job = &job;
    // The last touch of the job: from here on it belongs to the driver, or, once the run has
    // ended, to the queue, which may free it inside this very push.
    reports.push(std::move(done));
    return replace_actor;
}

void ReportQueue::push(Report report) {
    std::unique_ptr<BatchJob> late;  // an adopted job whose late Done arrived: freed unlocked
    bool wake;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (closed_) {  // the run is over: nobody reads reports any more
            if (report.kind == Report::Kind::Done && report.job) {
                auto it = custody_.find(report.job);
                if (it != custody_.end()) {
                    late = std::move(it->second);
                    custody_.erase(it);
                }
            }
            return;  // `late` (and the report's children) die after the unlock
        }
        queue_.push_back(std::move(report));
        queued_.store(queue_.size(), std::memory_order_release);
        wake = waiting_.load();
    }
    if (wake) ready_.notify_one();
}

std::vector<Report> ReportQueue::close() {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    queued_.store(0, std::memory_order_release);
    std::vector<Report> left;
    left.swap(queue_);
    return left;
}

void ReportQueue::adopt(std::unique_ptr<BatchJob> job) {
    const BatchJob* key = job.get();
    std::lock_guard<std::mutex> lock(mutex_);
    custody_.emplace(key, std::move(job));
}

std::size_t ReportQueue::adopted() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return custody_.size();
}

void ReportQueue::pop_all(std::vector<Report>& out, std::chrono::steady_clock::time_point until,
                          const std::function<bool()>& before_sleep, int spin_us) {
    if (spin_us > 0 && queued_.load(std::memory_order_acquire) == 0) {
        const auto spin_until =
            std::chrono::steady_clock::now() + std::chrono::microseconds(spin_us);
        while (queued_.load(std::memory_order_acquire) == 0 &&
               std::chrono::steady_clock::now() < spin_until) {
            std::this_thread::yield();
        }
    }
    std::unique_lock<std::mutex> lock(mutex_);
    if (queue_.empty()) {
        waiting_.store(true);  // seq_cst: pairs with the producer's load after adding a child
        bool found = false;
        if (before_sleep) {
            lock.unlock();
            found = before_sleep();
            lock.lock();
        }
        if (!found) ready_.wait_until(lock, until, [this] { return !queue_.empty(); });
        waiting_.store(false);
    }
    if (out.empty()) {
        out.swap(queue_);
    } else {
        for (Report& r : queue_) out.push_back(std::move(r));
        queue_.clear();
    }
    queued_.store(0, std::memory_order_release);
}

}  // namespace rop::runtime
