// Per-item outcomes in batch UDFs (issue 12, docs/udfs.md "Failing one item of a batch"): a
// batch UDF returns one rop::ItemResult per item, and the generated actor (rop::gen::Grains, as
// in a generated pipeline) fails only the items whose result is a failure: no replay, the rest
// of the batch publishes, under every recovery policy and executor. A batch UDF that returns the
// wrong number of results broke the contract: the run stops at once, nothing is bisected.
#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <memory>
#include <vector>

#include "rop/runtime/generated.h"
#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;
using Catch::Matchers::ContainsSubstring;

namespace {

const CallCounters& counters(const RunReport& report, const std::string& name) {
    for (const CallCounters& c : report.calls) {
        if (c.name == name) return c;
    }
    FAIL("no call " << name);
    return report.calls.front();
}

// What ropc generates for a batch map over std::span<const long> whose UDF is `udf`: gather,
// call, check the count, publish each ItemResult (docs/udfs.md, codegen_templates/batch_actor).
template <class Udf>
BatchFn generated_batch_map(Udf udf) {
    return [udf](Batch& batch) {
        const rop::gen::Grains grains(batch);
        const std::vector<long> input_0 = grains.gather<long>(0);
        auto results = udf(std::span<const long>(input_0));
        grains.check_size(results, "test::udf");
        for (std::size_t i = 0; i < grains.size(); ++i) {
            if (!grains[i].failed(results[i])) grains[i].out<long>(0, std::move(*results[i]));
        }
    };
}

}  // namespace

TEST_CASE("an ItemResult failure fails its item alone: no replay, under every policy",
          "[item_result]") {
    for (const char* executor : {"threads", "inline"}) {
        for (Recovery recovery :
             {Recovery::Abort, Recovery::RetryBatch, Recovery::RetryTail, Recovery::IsolateTail}) {
            for (auto [batch, actors] : {std::pair{4u, 1u}, {16u, 1u}, {64u, 2u}}) {
                CAPTURE(executor, static_cast<int>(recovery), batch, actors);
                auto calls = std::make_shared<std::atomic<int>>(0);
                CallOptions o = opts(batch, actors);
                o.recovery = recovery;
                OneMap m(o, generated_batch_map([calls](std::span<const long> pages) {
                             ++*calls;
                             std::vector<rop::ItemResult<long>> out;
                             for (long page : pages) {
                                 if (page == 401) {
                                     out.emplace_back(rop::fail_item("bad page 401"));
                                 } else if (page == 502) {
                                     out.emplace_back(rop::fail_group("bad document 5"));
                                 } else {
                                     out.emplace_back(page * 10);
                                 }
                             }
                             return out;
                         }));
                VecSource source({3, 4, 5, 2});
                RunOptions options;
                options.executor = executor;
                Recorder recorder;
                options.observer = &recorder;
                const RunReport report = run(m.plan, source, options);
                CHECK_FALSE(report.aborted);
                REQUIRE(report.roots.size() == 4);
                CHECK(report.roots[0].status == RootStatus::Ok);
                CHECK(report.roots[1].status == RootStatus::Failed);
                CHECK(report.roots[1].failed_call == "m");
                CHECK(report.roots[1].reason == "bad page 401");
                CHECK(report.roots[2].status == RootStatus::Failed);
                CHECK(report.roots[2].reason == "bad document 5");
                CHECK(report.roots[3].status == RootStatus::Ok);
                const CallCounters& c = counters(report, "m");
                CHECK(c.failed == 2);
                CHECK(c.retries == 0);  // nothing was replayed to find the culprits
                CHECK(c.grains <= 14);  // 3+4+5+2 pages, each run at most once (suppressed: 0)
                // The good pages of the failing roots' batch-mates were published, times 10.
                CHECK(recorder.of(m.out).count("2010") == 1);
                CHECK(recorder.of(m.out).count("4000") == 1);
            }
        }
    }
}

TEST_CASE("a batch filter's ItemResult<bool> keeps, drops or fails each item", "[item_result]") {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const PortId src = b.source("src");
    const PortId out = b.add_port("out", doc);
    b.add_call({"f", CallKind::Filter, doc, {{src}}, {out}, opts(8, 1), actor([](Batch& batch) {
                    const rop::gen::Grains grains(batch);
                    std::vector<rop::ItemResult<bool>> results;
                    for (long v : grains.gather<long>(0)) {
                        if (v == 3) {
                            results.emplace_back(rop::fail_item("three is bad"));
                        } else {
                            results.emplace_back(v % 2 == 0);
                        }
                    }
                    grains.check_size(results, "test::keep_even");
                    for (std::size_t i = 0; i < grains.size(); ++i) {
                        if (!grains[i].failed(results[i])) grains[i].keep(*results[i]);
                    }
                })});
    const Plan plan = b.build();
    VecSource source({0, 1, 2, 3, 4});
    RunOptions options;
    options.executor = "inline";
    Recorder recorder;
    options.observer = &recorder;
    const RunReport report = run(plan, source, options);
    REQUIRE(report.roots.size() == 5);
    CHECK(report.roots[3].status == RootStatus::Failed);
    CHECK(report.roots[3].reason == "three is bad");
    CHECK(report.roots[1].status == RootStatus::Dropped);
    for (std::size_t r : {0u, 2u, 4u}) CHECK(report.roots[r].status == RootStatus::Ok);
    CHECK(recorder.of(out).count("0") == 1);
    CHECK(recorder.of(out).count("DROPPED") == 1);  // 1
    CHECK(recorder.of(out).count("FAILED") == 1);   // 3
    CHECK(counters(report, "f").retries == 0);
}

TEST_CASE("a batch UDF returning the wrong number of results stops the run at once",
          "[item_result]") {
    for (const char* executor : {"threads", "inline"}) {
        for (Recovery recovery : {Recovery::RetryBatch, Recovery::IsolateTail}) {
            CAPTURE(executor, static_cast<int>(recovery));
            auto calls = std::make_shared<std::atomic<int>>(0);
            CallOptions o = opts(16, 1);
            o.recovery = recovery;
            o.retries = 3;
            OneMap m(o, generated_batch_map([calls](std::span<const long> pages) {
                         ++*calls;
                         std::vector<rop::ItemResult<long>> out(pages.begin(), pages.end());
                         if (pages.size() > 1) out.pop_back();  // one short
                         return out;
                     }));
            VecSource source({6});
            RunOptions options;
            options.executor = executor;
            // (The first batch holds the pages streamed so far: all 6, or fewer.)
            CHECK_THROWS_WITH(run(m.plan, source, options),
                              ContainsSubstring("call 'm': batch UDF test::udf returned ") &&
                                  ContainsSubstring(" results for "));
            // Not retried, not bisected: at most the batch queued behind the first one ran.
            CHECK(*calls <= 2);
        }
    }
}
