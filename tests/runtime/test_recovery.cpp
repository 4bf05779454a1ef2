// Recovery policies (abort, retry_batch, retry_tail, isolate_tail), typed failures thrown
// mid-batch, infra failures and timeouts with stale late reports, and contract errors.
#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;

namespace {

// Fails (opaque) the first `n` times it sees each value in `bad`, else passes the value on.
struct Flaky {
    std::set<long> bad;
    int n;
    std::mutex mu;
    std::map<long, int> seen;
    void operator()(Batch& bt) {
        for (std::size_t g = 0; g < bt.size(); ++g) {
            const long x = bt.input(g, 0).get<long>();
            bool fail = false;
            {
                std::lock_guard<std::mutex> lock(mu);
                fail = bad.count(x) && seen[x]++ < n;
            }
            if (fail) throw std::runtime_error("flaky " + std::to_string(x));
            bt.set_output(g, 0, bt.input(g, 0));
        }
    }
};

RunReport run_one(const OneMap& m, std::vector<long> roots, Recorder& rec) {
    VecSource source(std::move(roots));
    RunOptions options;
    options.observer = &rec;
    return run(m.plan, source, options);
}

}  // namespace

TEST_CASE("abort: an opaque error aborts the run, every root still reported",
          "[runtime][recovery]") {
    CallOptions o = opts(4, 1);
    o.recovery = Recovery::Abort;  // asked for: the default isolates
    OneMap m(o, [](Batch& bt) {
        // Any batch holding a page of root 1 throws, whatever else shares it.
        for (std::size_t g = 0; g < bt.size(); ++g) {
            if (bt.input(g, 0).get<long>() / 100 == 3) throw std::runtime_error("model crashed");
        }
        for (std::size_t g = 0; g < bt.size(); ++g) bt.set_output(g, 0, bt.input(g, 0));
    });
    Recorder rec;
    const RunReport report = run_one(m, {2, 3, 4}, rec);
    CHECK(report.aborted);
    CHECK_THAT(report.abort_reason, ContainsSubstring("'m'") && ContainsSubstring("model crashed"));
    REQUIRE(report.roots.size() >= 2);
    CHECK(report.roots[1].status == RootStatus::Failed);
    CHECK_THAT(report.roots[1].reason, ContainsSubstring("model crashed"));
}

TEST_CASE("retry_batch: transient errors are replayed; persistent ones fail the Grain",
          "[runtime][recovery]") {
    for (std::uint32_t batch : {1u, 4u}) {
        CAPTURE(batch);
        auto o = opts(batch, 2);
        o.recovery = Recovery::RetryBatch;
        o.retries = 2;
        auto transient = std::make_shared<Flaky>();
        transient->bad = {301};
        transient->n = 2;
        OneMap ok(o, [transient](Batch& bt) { (*transient)(bt); });
        Recorder rec;
        RunReport report = run_one(ok, {3, 2}, rec);
        CHECK(rec.of(ok.out).count("301") == 1);
        CHECK(report.calls[1].retries >= 2);
        CHECK(report.roots[0].status == RootStatus::Ok);

        auto persistent = std::make_shared<Flaky>();
        persistent->bad = {301};
        persistent->n = 1000;
        OneMap bad(o, [persistent](Batch& bt) { (*persistent)(bt); });
        Recorder rec2;
        report = run_one(bad, {3, 2}, rec2);
        CHECK(report.roots[0].status == RootStatus::Failed);
        CHECK_THAT(report.roots[0].reason, StartsWith("udf error: flaky 301"));
        // 1 + retries attempts, then (batch 4) up to log2(4) bisection rounds before 301 is
        // alone: the siblings that shared its batches never share its fate.
        CHECK(report.roots[0].attempts >= 3);
        CHECK(report.roots[0].attempts <= (batch == 1 ? 3u : 5u));
        CHECK(report.roots[1].status == RootStatus::Ok);
        CHECK(rec2.of(bad.out).count("FAILED") == 1);
    }
}

TEST_CASE("retry_tail: Grains finished before the error commit once; the tail is replayed",
          "[runtime][recovery]") {
    auto o = opts(8, 1);
    o.recovery = Recovery::RetryTail;
    o.retries = 1;
    std::mutex mu;
    std::map<long, int> runs;
    std::atomic<bool> thrown{false};
    OneMap m(o, [&](Batch& bt) {
        for (std::size_t g = 0; g < bt.size(); ++g) {
            const long x = bt.input(g, 0).get<long>();
            {
                std::lock_guard<std::mutex> lock(mu);
                ++runs[x];
            }
            if (x == 503 && !thrown.exchange(true)) throw std::runtime_error("once");
            bt.set_output(g, 0, bt.input(g, 0));
        }
    });
    Recorder rec;
    const RunReport report = run_one(m, {5}, rec);
    CHECK(rec.of(m.out).size() == 5);
    CHECK(rec.of(m.out).count("FAILED") == 0);
    for (long i = 0; i < 3; ++i) CHECK(runs[500 + i] == 1);  // the head committed
    CHECK(runs[503] == 2);
    CHECK(runs[504] == 1);  // never reached by the failing attempt
    CHECK(report.roots[0].status == RootStatus::Ok);
}

TEST_CASE("isolate_tail: bisection isolates every poisoned Grain with bounded work",
          "[runtime][recovery]") {
    for (std::uint32_t batch : {2u, 8u, 64u}) {
        CAPTURE(batch);
        auto o = opts(batch, 1);
        o.recovery = Recovery::IsolateTail;
        std::atomic<int> runs{0};
        OneMap m(o, [&runs](Batch& bt) {
            for (std::size_t g = 0; g < bt.size(); ++g) {
                ++runs;
                const long x = bt.input(g, 0).get<long>();
                if (x % 100 == 7 || x == 1213) throw std::runtime_error("poison");
                bt.set_output(g, 0, bt.input(g, 0));
            }
        });
        Recorder rec;
        const RunReport report = run_one(m, {20, 3, 12, 9}, rec);
        const auto items = rec.of(m.out);
        CHECK(items.size() == 44);
        CHECK(items.count("FAILED") == 3);  // 2007, 907, 1207 ... and 1213
        CHECK(report.roots[0].status == RootStatus::Failed);
        CHECK(report.roots[1].status == RootStatus::Ok);
        CHECK(runs.load() <= 44 * 10);
    }
}

TEST_CASE("a typed failure thrown mid-batch fails one Grain and replays the unfinished rest",
          "[runtime][recovery]") {
    OneMap m(opts(8, 1), [](Batch& bt) {
        for (std::size_t g = 0; g < bt.size(); ++g) {
            if (bt.input(g, 0).get<long>() == 602) throw RecordFailure("bad page", g);
            bt.set_output(g, 0, bt.input(g, 0));
        }
    });
    Recorder rec;
    const RunReport report = run_one(m, {6}, rec);
    CHECK(rec.of(m.out) == std::multiset<std::string>{"600", "601", "FAILED", "603", "604", "605"});
    CHECK(report.roots[0].reason == "bad page");
}

TEST_CASE("GroupFailure on a root-Domain Grain fails only that root", "[runtime][recovery]") {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const PortId src = b.source("src");
    const PortId out = b.add_port("out", doc);
    b.add_call({"m", CallKind::Map, doc, {{src}}, {out}, opts(4, 1), actor([](Batch& bt) {
                    for (std::size_t g = 0; g < bt.size(); ++g) {
                        if (bt.input(g, 0).get<long>() == 2) {
                            bt.fail_group(g, "doc 2");
                        } else {
                            bt.set_output(g, 0, bt.input(g, 0));
                        }
                    }
                })});
    const Plan plan = b.build();
    VecSource source({1, 2, 3, 4});
    const RunReport report = run(plan, source, {});
    CHECK(report.roots[0].status == RootStatus::Ok);
    CHECK(report.roots[1].status == RootStatus::Failed);
    CHECK(report.roots[2].status == RootStatus::Ok);
    CHECK(report.roots[3].status == RootStatus::Ok);
}

TEST_CASE("infra failures replay on a fresh actor, then fail with an infra reason",
          "[runtime][recovery]") {
    for (int failures : {1, 5}) {
        CAPTURE(failures);
        std::atomic<int> constructed{0};
        std::atomic<int> left{failures};
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const PortId src = b.source("src");
        const PortId out = b.add_port("out", doc);
        auto o = opts(4, 1);
        o.infra_retries = 2;
        b.add_call({"gpu", CallKind::Map, doc, {{src}}, {out}, o, [&]() -> std::unique_ptr<Actor> {
                        ++constructed;
                        return std::make_unique<FnActor>([&](Batch& bt) {
                            if (left.fetch_sub(1) > 0) throw InfraFailure("device lost");
                            for (std::size_t g = 0; g < bt.size(); ++g) {
                                bt.set_output(g, 0, bt.input(g, 0));
                            }
                        });
                    }});
        const Plan plan = b.build();
        VecSource source({1, 2});
        const RunReport report = run(plan, source, {});
        if (failures == 1) {
            CHECK(report.roots[0].status == RootStatus::Ok);
            CHECK(constructed.load() == 2);  // a fresh actor for the replay
            CHECK(report.calls[0].infra_retries >= 1);
        } else {
            CHECK(report.roots[0].status == RootStatus::Failed);
            CHECK_THAT(report.roots[0].reason, StartsWith("infra: device lost"));
            // 1 + infra_retries attempts, one more if the two docs shared the batch and were
            // bisected (this fake fails every batch, so both then fail alone).
            CHECK(report.roots[0].attempts >= 3);
            CHECK(report.roots[0].attempts <= 4);
            CHECK_FALSE(report.aborted);
        }
    }
}

TEST_CASE("timeouts: a stuck actor is abandoned, its late report is stale", "[runtime][recovery]") {
    for (bool always : {false, true}) {
        CAPTURE(always);
        std::atomic<int> batches{0};
        auto o = opts(4, 1);
        o.timeout = std::chrono::milliseconds(100);  // generous: the CI machine may be loaded
        o.infra_retries = always ? 1 : 3;
        OneMap m(o, [&, always](Batch& bt) {
            if (always || batches.fetch_add(1) == 0) {
                std::this_thread::sleep_for(std::chrono::milliseconds(400));
            }
            for (std::size_t g = 0; g < bt.size(); ++g) bt.set_output(g, 0, bt.input(g, 0));
        });
        Recorder rec;
        const RunReport report = run_one(m, {2}, rec);
        CHECK_FALSE(rec.duplicate);
        CHECK(report.calls[1].stale_reports >= (always ? 2u : 1u));  // late attempts fenced off
        if (always) {
            CHECK(report.roots[0].status == RootStatus::Failed);
            CHECK_THAT(report.roots[0].reason, StartsWith("infra: timeout"));
            CHECK(rec.of(m.out) == std::multiset<std::string>{"FAILED", "FAILED"});
        } else {
            CHECK(report.roots[0].status == RootStatus::Ok);
            CHECK(rec.of(m.out) == std::multiset<std::string>{"200", "201"});
        }
    }
}

TEST_CASE("contract errors fail fast with a message naming the Call", "[runtime][recovery]") {
    const std::vector<std::pair<BatchFn, std::string>> cases = {
        {[](Batch&) {}, "no result"},
        {[](Batch& bt) { bt.set_output(0, 3, Value::of<long>(1)); }, "has 1 outputs"},
        {[](Batch& bt) { bt.set_output(0, 0, Value::of<long>(bt.input(0, 0).get<int>())); },
         "Value::get<int>"},
        {[](Batch& bt) { bt.set_keep(0, true); }, "not a filter"},
    };
    for (const auto& [fn, text] : cases) {
        CAPTURE(text);
        OneMap m(opts(2, 1), fn);
        VecSource source({2});
        CHECK_THROWS_WITH(run(m.plan, source, {}),
                          ContainsSubstring("call 'm'") && ContainsSubstring(text));
    }
}
