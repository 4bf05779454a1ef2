// A failure that names no item never fails the items it was not about (issue 12, SEMANTICS.md:
// no policy fails a root that did nothing wrong): a typed failure thrown from a batch actor
// without an index is bisected down to the item it was about, under every recovery policy and
// executor; a timed-out batch is split and its halves timed on their own; a named index is
// still taken as given. UDF state is shared through std::shared_ptr (detached threads).
#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <memory>
#include <thread>

#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;
using namespace std::chrono_literals;

namespace {

// The batch actor of a batch UDF: computes every result, then publishes them, and throws
// (naming no item) when the batch holds the page valued `bad`.
template <class Failure>
BatchFn throws_for(long bad, std::string reason) {
    return [bad, reason](Batch& batch) {
        for (std::size_t g = 0; g < batch.size(); ++g) {
            if (batch.input(g, 0).get<long>() == bad) throw Failure(reason);
        }
        for (std::size_t g = 0; g < batch.size(); ++g) batch.set_output(g, 0, batch.input(g, 0));
    };
}

const CallCounters& counters(const RunReport& report, const std::string& name) {
    for (const CallCounters& c : report.calls) {
        if (c.name == name) return c;
    }
    FAIL("no call " << name);
    return report.calls.front();
}

}  // namespace

TEST_CASE("a RecordFailure naming no item fails only its item's root, whatever the policy",
          "[unattributed]") {
    for (const char* executor : {"threads", "inline"}) {
        for (Recovery recovery :
             {Recovery::Abort, Recovery::RetryBatch, Recovery::RetryTail, Recovery::IsolateTail}) {
            for (auto [batch, actors] : {std::pair{4u, 1u}, {16u, 1u}, {4u, 3u}, {64u, 2u}}) {
                CAPTURE(executor, static_cast<int>(recovery), batch, actors);
                CallOptions o = opts(batch, actors);
                o.recovery = recovery;
                o.retries = 2;
                OneMap m(o, throws_for<RecordFailure>(401, "bad page 401"));
                VecSource source({3, 4, 5, 2, 6});
                RunOptions options;
                options.executor = executor;
                const RunReport report = run(m.plan, source, options);
                CHECK_FALSE(report.aborted);
                REQUIRE(report.roots.size() == 5);
                for (std::size_t r = 0; r < 5; ++r) {
                    CAPTURE(r);
                    if (r == 1) {
                        CHECK(report.roots[r].status == RootStatus::Failed);
                        CHECK(report.roots[r].failed_call == "m");
                        CHECK(report.roots[r].reason == "bad page 401");
                    } else {
                        CHECK(report.roots[r].status == RootStatus::Ok);
                    }
                }
                CHECK(counters(report, "m").failed == 1);
                CHECK(counters(report, "m").grains == 20);  // 3+4+5+2+6 pages, each once
            }
        }
    }
}

TEST_CASE("a GroupFailure naming no item fails only its item's group", "[unattributed]") {
    for (const char* executor : {"threads", "inline"}) {
        for (std::uint32_t batch : {4u, 16u}) {
            CAPTURE(executor, batch);
            OneMap m(opts(batch, 2), throws_for<GroupFailure>(502, "bad document"));
            VecSource source({3, 4, 5, 2});
            RunOptions options;
            options.executor = executor;
            const RunReport report = run(m.plan, source, options);
            REQUIRE(report.roots.size() == 4);
            CHECK(report.roots[0].status == RootStatus::Ok);
            CHECK(report.roots[1].status == RootStatus::Ok);
            CHECK(report.roots[2].status == RootStatus::Failed);
            CHECK(report.roots[2].reason == "bad document");
            CHECK(report.roots[3].status == RootStatus::Ok);
            CHECK(counters(report, "m").failed == 1);
            CHECK(counters(report, "m").suppressed <= 4);  // only page 502's siblings
        }
    }
}

TEST_CASE("a timed-out batch is split: only the hung item's root fails", "[unattributed]") {
    struct Gate {
        std::atomic<bool> open{false};
    };
    auto gate = std::make_shared<Gate>();
    CallOptions o = opts(8, 2);
    o.timeout = 1000ms;
    o.infra_retries = 0;
    OneMap m(o, [gate](Batch& batch) {
        for (std::size_t g = 0; g < batch.size(); ++g) {
            if (batch.input(g, 0).get<long>() == 401) {
                while (!gate->open) std::this_thread::sleep_for(1ms);
            }
            batch.set_output(g, 0, batch.input(g, 0));
        }
    });
    VecSource source({3, 4, 5});
    const RunReport report = run(m.plan, source, RunOptions{});
    gate->open = true;
    REQUIRE(report.roots.size() == 3);
    CHECK(report.roots[0].status == RootStatus::Ok);
    CHECK(report.roots[1].status == RootStatus::Failed);
    CHECK(report.roots[1].reason ==
          "infra: timeout after 1000 ms (actor abandoned) (after 1 attempt)");
    CHECK(report.roots[2].status == RootStatus::Ok);
    CHECK(counters(report, "m").failed == 1);
}

TEST_CASE("a timed-out batch is split at once: batch-mates are not replayed whole",
          "[unattributed]") {
    // Roots 0..7 go straight to the map: admitted together, they make one batch of 8. The UDF
    // hangs on 5. Split at once, root 0 runs twice (the timed-out batch, then its half); replaying
    // the whole batch while infra_retries (2) lasts would run it four times.
    struct State {
        std::atomic<bool> open{false};
        std::atomic<int> zero_runs{0};
    };
    auto state = std::make_shared<State>();
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const PortId src = b.source("src");
    const PortId out = b.add_port("out", doc);
    CallOptions o = opts(8, 1);
    o.timeout = 1000ms;
    o.infra_retries = 2;
    b.add_call({"m", CallKind::Map, doc, {{src}}, {out}, o, actor([state](Batch& batch) {
                    for (std::size_t g = 0; g < batch.size(); ++g) {
                        const long v = batch.input(g, 0).get<long>();
                        if (v == 0) ++state->zero_runs;
                        if (v == 5) {
                            while (!state->open) std::this_thread::sleep_for(1ms);
                        }
                        batch.set_output(g, 0, batch.input(g, 0));
                    }
                })});
    const Plan plan = b.build();
    VecSource source({0, 1, 2, 3, 4, 5, 6, 7});
    const RunReport report = run(plan, source, RunOptions{});
    state->open = true;
    REQUIRE(report.roots.size() == 8);
    for (std::size_t r = 0; r < 8; ++r) {
        CAPTURE(r);
        CHECK(report.roots[r].status == (r == 5 ? RootStatus::Failed : RootStatus::Ok));
    }
    // Alone, it times out 1 + infra_retries times before it fails.
    CHECK(report.roots[5].reason ==
          "infra: timeout after 1000 ms (actor abandoned) (after 3 attempts)");
    CHECK(state->zero_runs == 2);
}

TEST_CASE("a typed failure that names its item fails that item, without bisection",
          "[unattributed]") {
    OneMap m(opts(16, 1), [](Batch& batch) {
        for (std::size_t g = 0; g < batch.size(); ++g) batch.set_output(g, 0, batch.input(g, 0));
        throw RecordFailure("the third", 2);
    });
    VecSource source({4});
    RunOptions options;
    options.executor = "inline";
    const RunReport report = run(m.plan, source, options);
    REQUIRE(report.roots.size() == 1);
    CHECK(report.roots[0].status == RootStatus::Failed);
    CHECK(report.roots[0].reason == "the third");
    CHECK(counters(report, "m").failed == 1);
    CHECK(counters(report, "m").retries == 0);
}
