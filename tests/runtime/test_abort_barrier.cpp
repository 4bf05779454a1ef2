// recovery abort and GroupFailure barriers (issue: "abort aborts the run for work a GroupFailure
// already doomed"). SEMANTICS.md: a GroupFailure's barrier suppresses the not-yet-committed
// siblings in its Call -- in flight ones at commit -- under every policy. An ordinary error from
// a sibling the barrier already doomed is not a reason to abort the run, nor to blame anyone.
#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <thread>

#include "gated_pages.h"

using namespace rop::runtime;
using namespace rop::runtime::test;
using namespace std::chrono_literals;

namespace {

RunReport run_roots(const Plan& plan, std::vector<long> roots, ItemObserver& observer) {
    VecSource source(std::move(roots));
    RunOptions options;
    options.observer = &observer;
    return run(plan, source, options);
}

}  // namespace

TEST_CASE("abort: a doomed sibling's error on another actor is suppressed, the run goes on",
          "[runtime][recovery][abort]") {
    // X = root 0 (pages 200, 201), Y = root 1 (pages 300..302). 200 throws a GroupFailure;
    // 201, running on the other actor, throws an ordinary error once the barrier is in.
    std::atomic<bool> barrier_in{false};
    CallOptions o = opts(1, 2);
    o.recovery = Recovery::Abort;
    GatedPages p(o, [&](Batch& bt) {
        const long x = bt.input(0, 0).get<long>();
        if (x == 200) throw GroupFailure("page 0 is poison");
        if (x == 201) {
            for (int i = 0; i < 2000 && !barrier_in.load(); ++i) std::this_thread::sleep_for(1ms);
            throw std::runtime_error("model server returned 500");
        }
        bt.set_output(0, 0, Value::of<long>(x));
    });
    struct Watch : ItemObserver {
        Recorder rec;
        PortId port = 0;
        std::atomic<bool>* flag = nullptr;
        void on_item(PortId q, EntityId e, Outcome o, const Value& v) override {
            rec.on_item(q, e, o, v);
            if (q == port && o == Outcome::Failed) *flag = true;
        }
    } watch;
    watch.port = p.out;
    watch.flag = &barrier_in;
    const RunReport report = run_roots(p.plan, {2, 3}, watch);
    CHECK_FALSE(report.aborted);
    CHECK(report.roots[0].status == RootStatus::Failed);
    CHECK(report.roots[0].reason == "page 0 is poison");
    CHECK(report.roots[1].status == RootStatus::Ok);
    CHECK(watch.rec.of(p.out) ==
          std::multiset<std::string>{"FAILED", "SUPPRESSED", "300", "301", "302"});
    CHECK(report.calls[p.m].failed == 1);
    CHECK(report.calls[p.m].suppressed == 1);
}

TEST_CASE("abort: a GroupFailure and a sibling's error in one batch keep the GroupFailure's reason",
          "[runtime][recovery][abort]") {
    for (bool group_first : {true, false}) {
        CAPTURE(group_first);
        CallOptions o = opts(8, 1);
        o.recovery = Recovery::Abort;
        o.batching = Batching::SingleParent;
        std::atomic<int> together{0};
        GatedPages p(o, [&](Batch& bt) {
            if (bt.size() == 3 && bt.input(0, 0).get<long>() == 300) ++together;
            // The GroupFailure is marked through the per-item API (on the first or the last
            // page); then, in page order, page 301 throws before it has a result.
            const long poison = group_first ? 300 : 302;
            for (std::size_t g = 0; g < bt.size(); ++g) {
                if (bt.input(g, 0).get<long>() == poison) bt.fail_group(g, "page is poison");
            }
            for (std::size_t g = 0; g < bt.size(); ++g) {
                const long x = bt.input(g, 0).get<long>();
                if (x == poison) continue;
                if (x == 301) throw std::runtime_error("model server returned 500");
                bt.set_output(g, 0, Value::of<long>(x));
            }
        });
        Recorder rec;
        const RunReport report = run_roots(p.plan, {1, 3, 2}, rec);
        REQUIRE(together.load() == 1);  // the schedule this test is about
        CHECK_FALSE(report.aborted);
        CHECK(report.roots[0].status == RootStatus::Ok);
        CHECK(report.roots[1].status == RootStatus::Failed);
        CHECK(report.roots[1].reason == "page is poison");
        CHECK(report.roots[2].status == RootStatus::Ok);
    }
}

TEST_CASE("abort: an error no barrier explains still aborts, naming the Call",
          "[runtime][recovery][abort]") {
    CallOptions o = opts(8, 1);
    o.recovery = Recovery::Abort;
    o.batching = Batching::SingleParent;
    GatedPages p(o, [](Batch& bt) {
        for (std::size_t g = 0; g < bt.size(); ++g) {
            if (bt.input(g, 0).get<long>() == 301) throw std::runtime_error("disk full");
            bt.set_output(g, 0, bt.input(g, 0));
        }
    });
    Recorder rec;
    const RunReport report = run_roots(p.plan, {3}, rec);
    CHECK(report.aborted);
    CHECK(report.abort_reason == "call 'm': disk full");
    CHECK(report.roots[0].status == RootStatus::Failed);
    CHECK(report.roots[0].reason == "udf error (abort): disk full");
}
