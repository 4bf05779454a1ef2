// Stuck actors: a UDF that blocks past its Call's timeout, or never returns, must not hang
// run(); the abandoned thread, whenever it finishes (or never), touches only memory that stays
// alive. An aborted run waits at most RunOptions::stop_grace for a slow batch on a healthy
// actor. Run these under ASan and TSan: the late threads outlive the Plan, Engine and executor.
//
// UDF state is shared with the test through std::shared_ptr or globals, never by reference to
// the test's frame: a detached actor thread owns its Actor (and so the UDF's captures).
//
// No clock decides a result: a "stuck" UDF waits on a Gate the test opens only after run() has
// returned, so a run() that waited for it would see the UDF finish first (and, if it waited
// forever, hit the Gate's hang guard); a test ends when the late thread has let go of the UDF's
// captures (wait_sole_owner), not after a sleep.
#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <thread>

#include "gate.h"
#include "rop/runtime/executor.h"
#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;
using namespace std::chrono_literals;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

void plus_one(Batch& b) {
    for (std::size_t g = 0; g < b.size(); ++g) {
        b.set_output(g, 0, Value::of<long>(b.input(g, 0).get<long>() + 1));
    }
}

// A UDF that never returns: it waits for g_release, which only the atexit handler sets, at the
// very end of the test process (so that the process exits with no actor still inside a UDF).
std::atomic<bool> g_release{false};
std::atomic<int> g_stuck{0};  // UDF calls blocked right now
// The stuck UDF's captures: gone once its thread has pushed into the closed queue and returned.
std::weak_ptr<std::atomic<bool>> g_stuck_captures;

void release_stuck_udfs() {
    g_release.store(true);
    const auto until = Clock::now() + kHangGuard;
    while (!g_stuck_captures.expired() && Clock::now() < until) std::this_thread::sleep_for(1ms);
}

}  // namespace

TEST_CASE("a UDF stuck past its timeout does not hang run(); its late thread is harmless",
          "[runtime][recovery][stuck]") {
    auto o = opts(4, 1);
    o.timeout = 100ms;
    o.infra_retries = 2;
    const std::vector<long> roots = {3, 5, 2};

    std::multiset<std::string> expected;  // the same run without the stuck attempt
    {
        OneMap p(o, plus_one);
        Recorder rec;
        VecSource source(roots);
        RunOptions options;
        options.observer = &rec;
        const RunReport report = run(p.plan, source, options);
        for (const RootResult& r : report.roots) CHECK(r.status == RootStatus::Ok);
        expected = rec.of(p.out);
        REQUIRE(expected.size() == 10);
    }

    struct State {
        std::atomic<int> calls{0};
        Gate release;  // opened once run() has returned
        std::atomic<bool> late_done{false};
    };
    auto state = std::make_shared<State>();
    {
        OneMap p(o, [state](Batch& b) {
            if (state->calls.fetch_add(1) == 0) {  // the first attempt only: until run() returns
                state->release.wait();
                plus_one(b);  // writes into its job, now owned by the closed report queue
                state->late_done.store(true);
                return;
            }
            plus_one(b);
        });
        Recorder rec;
        VecSource source(roots);
        RunOptions options;
        options.observer = &rec;
        const RunReport report = run(p.plan, source, options);
        CHECK_FALSE(state->late_done.load());  // run() did not wait for the stuck attempt
        CHECK_FALSE(report.aborted);
        REQUIRE(report.roots.size() == roots.size());
        for (const RootResult& r : report.roots) CHECK(r.status == RootStatus::Ok);
        CHECK(rec.of(p.out) == expected);
        CHECK_FALSE(rec.duplicate);
        CHECK(report.calls[1].infra_retries >= 1);
        // The abandoned attempt is fenced off even though its report never came.
        CHECK(report.calls[1].stale_reports >= 1);
    }
    // The Plan, the Engine and the executor are gone. The late thread finishes its batch,
    // pushes its Done into the closed queue (which frees the job) and exits, freeing its pool.
    state->release.open();
    CHECK(wait_sole_owner(state));
    CHECK(state->late_done.load());
}

TEST_CASE("a UDF that never returns: run() returns and the Grains are replayed",
          "[runtime][recovery][stuck]") {
    static const bool registered = std::atexit(release_stuck_udfs) == 0;
    REQUIRE(registered);
    auto o = opts(2, 1);
    o.timeout = 100ms;
    o.infra_retries = 2;
    auto first = std::make_shared<std::atomic<bool>>(false);
    g_stuck_captures = first;
    OneMap p(o, [first](Batch& b) {
        if (!first->exchange(true)) {
            ++g_stuck;
            while (!g_release.load()) std::this_thread::sleep_for(1ms);  // "forever"
            --g_stuck;
        }
        plus_one(b);
    });
    Recorder rec;
    VecSource source({4, 1});
    RunOptions options;
    options.observer = &rec;
    const RunReport report = run(p.plan, source, options);
    CHECK(g_stuck.load() == 1);  // still inside the UDF: run() did not wait for it
    CHECK_FALSE(report.aborted);
    REQUIRE(report.roots.size() == 2);
    CHECK(report.roots[0].status == RootStatus::Ok);
    CHECK(report.roots[1].status == RootStatus::Ok);
    CHECK(rec.of(p.out) == std::multiset<std::string>{"401", "402", "403", "404", "101"});
    CHECK(report.calls[1].stale_reports >= 1);
}

namespace {

// Two root-Domain maps over the same source: "boom" aborts the run on x == 1, "slow" runs
// `slow` (one Grain per batch).
struct AbortAndSlow {
    Plan plan;
    PortId slow_out = 0;
    explicit AbortAndSlow(BatchFn slow) {
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const PortId src = b.source("src");
        slow_out = b.add_port("slow_out", doc);
        const PortId boom_out = b.add_port("boom_out", doc);
        b.add_call(
            {"slow", CallKind::Map, doc, {{src}}, {slow_out}, opts(1, 1), actor(std::move(slow))});
        CallOptions abort_on_error = opts(1, 1);
        abort_on_error.recovery = Recovery::Abort;  // not the default (isolate_tail)
        b.add_call(
            {"boom", CallKind::Map, doc, {{src}}, {boom_out}, abort_on_error, actor([](Batch& bt) {
                 if (bt.input(0, 0).get<long>() == 1) throw std::runtime_error("boom");
                 bt.set_output(0, 0, bt.input(0, 0));
             })});
        plan = b.build();
    }
};

}  // namespace

TEST_CASE("abort: a slow batch is waited for at most stop_grace, then left behind",
          "[runtime][recovery][stuck]") {
    struct Slow {
        Gate gate;  // opened once run() has returned
        std::atomic<bool> finished{false};
    };
    auto slow = std::make_shared<Slow>();
    {
        AbortAndSlow p([slow](Batch& b) {
            slow->gate.wait();
            b.set_output(0, 0, b.input(0, 0));
            slow->finished.store(true);
        });
        VecSource source({1, 2});
        RunOptions options;
        options.stop_grace = 300ms;
        const auto t0 = Clock::now();
        const RunReport report = run(p.plan, source, options);
        CHECK(seconds_since(t0) >= 0.25);    // it did wait for the healthy actor ...
        CHECK_FALSE(slow->finished.load());  // ... but not for the batch
        CHECK(report.aborted);
        CHECK_THAT(report.abort_reason, ContainsSubstring("'boom'"));
        REQUIRE(report.roots.size() == 2);
        CHECK(report.roots[0].status == RootStatus::Failed);
        CHECK(report.roots[1].status == RootStatus::Failed);
        CHECK_THAT(report.roots[1].reason, StartsWith("run aborted: call 'boom'"));
    }
    slow->gate.open();  // the detached actor finishes into the closed queue
    CHECK(wait_sole_owner(slow));
    CHECK(slow->finished.load());
}

TEST_CASE("abort: a batch that finishes within stop_grace still commits",
          "[runtime][recovery][stuck]") {
    // The slow batch returns only once the driver has taken in boom's failure (a progress
    // snapshot counts it), so it is in flight when the run aborts. The grace is far longer than
    // the test: run() returns because the batch came back, not because the grace ran out (were
    // it to wait out the grace, the test would hang).
    auto aborted = std::make_shared<Gate>();
    AbortAndSlow p([aborted](Batch& b) {
        aborted->wait();
        b.set_output(0, 0, b.input(0, 0));
    });
    Recorder rec;
    VecSource source({1});
    RunOptions options;
    options.observer = &rec;
    options.stop_grace = std::chrono::hours(1);
    options.progress_interval = 1ms;
    options.on_progress = [aborted](const Progress& progress) {
        if (progress.calls.at(1).failed > 0) aborted->open();  // 'boom'
    };
    const RunReport report = run(p.plan, source, options);
    CHECK(report.aborted);
    CHECK(rec.of(p.slow_out) == std::multiset<std::string>{"1"});
    CHECK(report.roots[0].status == RootStatus::Failed);
}

TEST_CASE("a contract error does not wait for a stuck, abandoned actor",
          "[runtime][recovery][stuck]") {
    struct Stuck {
        std::atomic<bool> first{false};
        Gate gate;  // opened once run() has thrown
        std::atomic<bool> late{false};
    };
    auto stuck = std::make_shared<Stuck>();
    auto o = opts(1, 1);
    o.timeout = 100ms;
    {
        // Page 100x+i: the first attempt blocks until run() has thrown; page 201 breaks the ABI
        // (no output).
        OneMap p(o, [stuck](Batch& b) {
            if (!stuck->first.exchange(true)) {
                stuck->gate.wait();
                plus_one(b);
                stuck->late.store(true);
                return;
            }
            if (b.input(0, 0).get<long>() == 201) return;
            plus_one(b);
        });
        VecSource source({1, 2});
        CHECK_THROWS_WITH(run(p.plan, source, {}), ContainsSubstring("no result"));
        CHECK_FALSE(stuck->late.load());  // run() did not wait for the stuck attempt
    }
    stuck->gate.open();
    CHECK(wait_sole_owner(stuck));
    CHECK(stuck->late.load());
}

TEST_CASE("ReportQueue custody: after close, a late Done frees its adopted job",
          "[runtime][stuck]") {
    auto queue = std::make_shared<ReportQueue>();
    REQUIRE(queue->shared_from_this() == queue);
    auto owned = std::make_unique<BatchJob>();
    BatchJob* out = owned.get();
    BatchJob back;  // its Done arrives before the close: returned to the driver
    queue->push(Report{Report::Kind::Done, &back, {}, 0, {}});
    std::vector<Report> left = queue->close();
    REQUIRE(left.size() == 1);
    CHECK(left[0].job == &back);
    queue->adopt(std::move(owned));
    CHECK(queue->adopted() == 1);
    queue->push(Report{Report::Kind::Emitted, nullptr, {}, 0, {}});  // dropped
    queue->push(Report{Report::Kind::Done, &back, {}, 0, {}});       // not adopted: dropped
    CHECK(queue->adopted() == 1);
    std::thread late([queue, out] {  // a detached actor's last touch: its Done
        queue->push(Report{Report::Kind::Done, out, {}, 0, {}});
    });
    late.join();
    CHECK(queue->adopted() == 0);  // freed (ASan would flag a leak or a double free)
    std::vector<Report> none;
    queue->pop_all(none, Clock::now());
    CHECK(none.empty());
}
