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
    CHECK(report.roots[1].reason == "infra: timeout after 1000 ms (actor abandoned)");
    CHECK(report.roots[2].status == RootStatus::Ok);
    CHECK(counters(report, "m").failed == 1);
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
