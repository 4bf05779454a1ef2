// The Executor seam: a test executor that runs every Call's batches on one thread in a random
// order (a legal schedule the thread executor rarely produces) must yield the same Items.
#include <catch2/catch_test_macros.hpp>
#include <condition_variable>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "rop/runtime/executor.h"
#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;

namespace {

class ShuffledExecutor final : public Executor {
  public:
    explicit ShuffledExecutor(unsigned seed) : rng_(seed) {}
    ~ShuffledExecutor() override { stop(); }

    void start(const Plan& plan, ReportQueue& reports) override {
        plan_ = &plan;
        reports_ = &reports;
        thread_ = std::thread([this] { loop(); });
    }
    void submit(BatchJob& job) override {
        std::lock_guard<std::mutex> lock(mu_);
        pending_.push_back(&job);
        cv_.notify_one();
    }
    void abandon(BatchJob&) override {}
    void stop() override {
        {
            std::lock_guard<std::mutex> lock(mu_);
            stopping_ = true;
        }
        cv_.notify_one();
        if (thread_.joinable()) thread_.join();
    }

  private:
    void loop() {
        std::map<CallId, std::unique_ptr<Actor>> actors;
        std::unique_lock<std::mutex> lock(mu_);
        for (;;) {
            cv_.wait(lock, [&] { return stopping_ || !pending_.empty(); });
            if (pending_.empty()) return;
            // Let a few batches accumulate, then run a random one.
            lock.unlock();
            std::this_thread::yield();
            lock.lock();
            std::uniform_int_distribution<std::size_t> pick(0, pending_.size() - 1);
            const std::size_t i = pick(rng_);
            BatchJob* job = pending_[i];
            pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
            lock.unlock();
            auto& actor = actors[job->call];
            if (!actor) actor = plan_->calls[job->call].factory();
            if (execute_job(actor.get(), *job, *reports_)) actor.reset();
            lock.lock();
        }
    }

    const Plan* plan_ = nullptr;
    ReportQueue* reports_ = nullptr;
    std::mt19937 rng_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::vector<BatchJob*> pending_;
    bool stopping_ = false;
    std::thread thread_;
};

Plan make_plan(PortId& grouped, PortId& kept) {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const DomainId page = b.add_domain("Page", doc);
    const PortId src = b.source("src");
    const PortId pages = b.add_port("pages", page);
    const PortId doubled = b.add_port("doubled", page);
    kept = b.add_port("kept", page);
    grouped = b.add_port("grouped", doc);
    b.add_call({"split",
                CallKind::Expand,
                doc,
                {{src}},
                {pages},
                opts(3, 2),
                expand_int([](long x) { return x % 7; }, [](long x, long i) { return x + i; })});
    b.add_call(
        {"double", CallKind::Map, page, {{pages}}, {doubled}, opts(5, 3), map_int([](long x) {
             return 2 * x;
         })});
    b.add_call(
        {"keep", CallKind::Filter, page, {{doubled}}, {kept}, opts(4, 2), keep_int([](long x) {
             return x % 3 != 0;
         })});
    b.add_call({"collect", CallKind::Reduce, doc, {{kept}}, {grouped}, opts(2, 1), {}});
    return b.build();
}

}  // namespace

TEST_CASE("a shuffled single-thread executor yields the thread executor's Items",
          "[runtime][executor]") {
    PortId grouped = 0, kept = 0;
    const Plan plan = make_plan(grouped, kept);
    std::vector<long> roots;
    for (long i = 0; i < 30; ++i) roots.push_back(i * 13 + 5);

    VecSource base_source(roots);
    Recorder base;
    RunOptions base_options;
    base_options.observer = &base;
    run(plan, base_source, base_options);

    for (unsigned seed : {1u, 2u, 3u, 4u}) {
        CAPTURE(seed);
        ShuffledExecutor executor(seed);
        VecSource source(roots);
        Recorder rec;
        RunOptions options;
        options.observer = &rec;
        options.max_inflight_roots = 1 + seed * 3;
        const RunReport report = run(plan, source, options, executor);
        CHECK_FALSE(rec.duplicate);
        CHECK(rec.of(grouped) == base.of(grouped));
        CHECK(rec.of(kept) == base.of(kept));
        CHECK(report.roots.size() == roots.size());
    }
}
