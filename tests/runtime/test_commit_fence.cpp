// The commit fence seen from the Executor seam: a report from an older attempt that reaches the
// driver after the replay was dispatched -- as an out-of-process executor may deliver it, by a
// path the driver cannot tell from a fresh one -- is ignored and counted as stale. The driver's
// own bookkeeping (the abandoned flag) is not what stops it; the generation fence is.
#include <catch2/catch_test_macros.hpp>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "rop/runtime/executor.h"
#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;

namespace {

// Runs every job at once on one worker thread, except the first job of Call `held_call`: that
// one is held until the driver abandons it (its timeout), and is then answered -- by an actor
// that writes `stale_value` -- right before the replay, so the stale Done and the replay's Done
// arrive in that order while the replay's Grains are in flight.
class LateReportExecutor final : public Executor {
  public:
    LateReportExecutor(CallId held_call, long stale_value)
        : held_call_(held_call), stale_value_(stale_value) {}
    ~LateReportExecutor() override { stop(); }

    void start(const Plan& plan, ReportQueue& reports) override {
        plan_ = &plan;
        reports_ = &reports;
        thread_ = std::thread([this] { loop(); });
    }
    void submit(BatchJob& job) override {
        std::lock_guard<std::mutex> lock(mu_);
        if (job.call == held_call_ && !held_ && !answered_stale_) {
            held_ = &job;
        } else {
            pending_.push_back(&job);
        }
        cv_.notify_one();
    }
    void abandon(BatchJob& job) override {
        std::lock_guard<std::mutex> lock(mu_);
        if (&job == held_) abandoned_ = true;
        cv_.notify_one();
    }
    void stop() override {
        {
            std::lock_guard<std::mutex> lock(mu_);
            stopping_ = true;
        }
        cv_.notify_one();
        if (thread_.joinable()) thread_.join();
    }
    bool answered_stale() const { return answered_stale_; }

  private:
    void loop() {
        std::unique_ptr<Actor> stale_actor = actor([this](Batch& b) {
            for (std::size_t g = 0; g < b.size(); ++g) {
                b.set_output(g, 0, Value::of<long>(stale_value_));
            }
        })();
        std::vector<std::unique_ptr<Actor>> actors(plan_->calls.size());
        std::unique_lock<std::mutex> lock(mu_);
        for (;;) {
            cv_.wait(lock, [&] { return stopping_ || !pending_.empty(); });
            if (pending_.empty()) return;
            BatchJob* job = pending_.front();
            pending_.pop_front();
            BatchJob* stale = nullptr;
            if (job->call == held_call_ && held_ && abandoned_) {  // the replay: stale Done first
                stale = held_;
                held_ = nullptr;
                answered_stale_ = true;
            }
            lock.unlock();
            if (stale) execute_job(stale_actor.get(), *stale, *reports_);
            auto& a = actors[job->call];
            if (!a) a = plan_->calls[job->call].factory();
            execute_job(a.get(), *job, *reports_);
            lock.lock();
        }
    }

    const CallId held_call_;
    const long stale_value_;
    const Plan* plan_ = nullptr;
    ReportQueue* reports_ = nullptr;
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<BatchJob*> pending_;
    BatchJob* held_ = nullptr;
    bool abandoned_ = false;
    bool answered_stale_ = false;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace

TEST_CASE("commit fence: an older attempt's report arriving during the replay is stale",
          "[runtime][fence]") {
    for (std::uint32_t batch : {1u, 3u, 8u}) {
        CAPTURE(batch);
        auto o = opts(batch, 1);
        o.timeout = std::chrono::milliseconds(30);
        o.infra_retries = 2;
        OneMap m(o, [](Batch& bt) {
            for (std::size_t g = 0; g < bt.size(); ++g) {
                bt.set_output(g, 0, Value::of<long>(bt.input(g, 0).get<long>() + 1));
            }
        });
        LateReportExecutor executor(/*held_call=*/1, /*stale_value=*/-666);
        Recorder rec;
        VecSource source({3});
        RunOptions options;
        options.observer = &rec;
        const RunReport report = run(m.plan, source, options, executor);
        REQUIRE(executor.answered_stale());
        CHECK_FALSE(rec.duplicate);
        CHECK(report.roots[0].status == RootStatus::Ok);
        // Only the replay's values are facts; the stale attempt's -666 never is.
        CHECK(rec.of(m.out) == std::multiset<std::string>{"301", "302", "303"});
        CHECK(report.calls[1].stale_reports >= 1);
        CHECK(report.calls[1].infra_retries >= 1);
    }
}
