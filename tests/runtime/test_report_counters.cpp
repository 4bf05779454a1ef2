// Counters and report numbers that tell the truth: retries count replayed batches (not the
// Grains in them), a filter counts a failed input as `suppressed` like a map does, `dropped`
// per Call, and root latency percentiles that are honest for small samples.
#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <stdexcept>

#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;

namespace {

// Roots 0..47 straight into one map Call "m" in the root Domain: all 48 are admitted before
// the first dispatch, so the batches are exactly [0..cap-1], [cap..2cap-1], ...
struct RootMap {
    Plan plan;
    RootMap(CallOptions o, BatchFn fn) {
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const PortId src = b.source("src");
        const PortId out = b.add_port("out", doc);
        b.add_call({"m", CallKind::Map, doc, {{src}}, {out}, o, actor(std::move(fn))});
        plan = b.build();
    }
};

std::vector<long> zero_to_47() {
    std::vector<long> v(48);
    std::iota(v.begin(), v.end(), 0L);
    return v;
}

}  // namespace

TEST_CASE("retries count replayed batches; retried_items count their Grains",
          "[runtime][report][counters]") {
    struct Case {
        Recovery recovery;
        std::uint32_t cap;
        std::uint64_t items;  // Grains replayed once root 10 fails in its batch
    };
    // Root 10's batch: [10] at cap 1, [7..13] at cap 7, [0..47] at cap 48. retry_batch replays
    // the batch, retry_tail and isolate_tail (first replay) the tail from 10 on.
    const std::vector<Case> cases = {
        {Recovery::RetryBatch, 1, 1},    {Recovery::RetryBatch, 7, 7},
        {Recovery::RetryBatch, 48, 48},  {Recovery::RetryTail, 1, 1},
        {Recovery::RetryTail, 7, 4},     {Recovery::RetryTail, 48, 38},
        {Recovery::IsolateTail, 1, 1},   {Recovery::IsolateTail, 7, 4},
        {Recovery::IsolateTail, 48, 38},
    };
    for (const Case& c : cases) {
        CAPTURE(static_cast<int>(c.recovery), c.cap);
        auto o = opts(c.cap, 1);
        o.recovery = c.recovery;
        o.retries = 1;
        auto failed = std::make_shared<std::atomic<bool>>(false);
        RootMap p(o, [failed](Batch& b) {
            for (std::size_t g = 0; g < b.size(); ++g) {
                if (b.input(g, 0).get<long>() == 10 && !failed->exchange(true)) {
                    throw std::runtime_error("transient");  // once
                }
                b.set_output(g, 0, b.input(g, 0));
            }
        });
        VecSource source(zero_to_47());
        const RunReport report = run(p.plan, source);
        for (const RootResult& r : report.roots) CHECK(r.status == RootStatus::Ok);
        CHECK(report.calls[0].retries == 1);  // one replay, whatever the batch cap
        CHECK(report.calls[0].retried_items == c.items);
        const auto j = nlohmann::json::parse(report.to_json());
        CHECK(j["calls"][0]["retries"] == 1);
        CHECK(j["calls"][0]["retried_items"] == c.items);
    }
}

TEST_CASE("infra_retries count replayed batches; infra_retried_items their Grains",
          "[runtime][report][counters]") {
    for (std::uint32_t cap : {1u, 7u, 48u}) {
        CAPTURE(cap);
        auto failed = std::make_shared<std::atomic<bool>>(false);
        RootMap p(opts(cap, 1), [failed](Batch& b) {
            for (std::size_t g = 0; g < b.size(); ++g) {
                if (b.input(g, 0).get<long>() == 10 && !failed->exchange(true)) {
                    throw InfraFailure("actor lost");
                }
                b.set_output(g, 0, b.input(g, 0));
            }
        });
        VecSource source(zero_to_47());
        const RunReport report = run(p.plan, source);
        for (const RootResult& r : report.roots) CHECK(r.status == RootStatus::Ok);
        CHECK(report.calls[0].infra_retries == 1);
        CHECK(report.calls[0].infra_retried_items == cap);  // the whole batch is replayed
    }
}

TEST_CASE("a filter counts a failed input as suppressed, like a map; dropped per Call",
          "[runtime][report][counters]") {
    // Doc(x) -> pages 100x+i -> m (fails page 301) -> f = filter(even) and g = map, both on m's
    // output -> h = map on f's output.
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const DomainId page = b.add_domain("Page", doc);
    const PortId src = b.source("src");
    const PortId pages = b.add_port("pages", page);
    const PortId mo = b.add_port("mo", page);
    const PortId fo = b.add_port("fo", page);
    const PortId go = b.add_port("go", page);
    const PortId ho = b.add_port("ho", page);
    b.add_call({"split",
                CallKind::Expand,
                doc,
                {{src}},
                {pages},
                opts(4, 1),
                expand_int([](long x) { return x; }, [](long x, long i) { return 100 * x + i; })});
    b.add_call({"m", CallKind::Map, page, {{pages}}, {mo}, opts(4, 1), actor([](Batch& bt) {
                    for (std::size_t g = 0; g < bt.size(); ++g) {
                        if (bt.input(g, 0).get<long>() == 301) {
                            bt.fail_record(g, "bad page");
                        } else {
                            bt.set_output(g, 0, bt.input(g, 0));
                        }
                    }
                })});
    b.add_call({"f", CallKind::Filter, page, {{mo}}, {fo}, opts(4, 1), keep_int([](long x) {
                    return x % 2 == 0;
                })});
    const ActorFactory same = map_int([](long x) { return x; });
    b.add_call({"g", CallKind::Map, page, {{mo}}, {go}, opts(4, 1), same});
    b.add_call({"h", CallKind::Map, page, {{fo}}, {ho}, opts(4, 1), same});
    const Plan plan = b.build();
    VecSource source({3, 2});  // pages 300 301 302, 200 201
    const RunReport report = run(plan, source);

    REQUIRE(report.calls.size() == 5);
    const CallCounters& m = report.calls[1];
    const CallCounters& f = report.calls[2];
    const CallCounters& g = report.calls[3];
    const CallCounters& h = report.calls[4];
    CHECK(m.failed == 1);
    CHECK(m.grains == 5);
    // 301's FAILED output reaches f and g the same way: neither runs on it, both count it.
    CHECK(g.suppressed == 1);
    CHECK(f.suppressed == g.suppressed);
    CHECK(f.failed == 0);
    CHECK(f.grains == 4);   // 300 302 200 201: the predicate ran
    CHECK(f.dropped == 1);  // 201
    CHECK(g.dropped == 0);
    CHECK(h.dropped == 1);     // 201 was dropped upstream: h did not run on it
    CHECK(h.suppressed == 1);  // 301
    CHECK(h.grains == 3);
    CHECK(report.roots[0].status == RootStatus::Failed);
    CHECK(report.roots[1].status == RootStatus::Ok);

    const auto j = nlohmann::json::parse(report.to_json());
    CHECK(j["calls"][2]["name"] == "f");
    CHECK(j["calls"][2]["suppressed"] == 1);
    CHECK(j["calls"][2]["dropped"] == 1);
    CHECK(j["calls"][4]["dropped"] == 1);
}

TEST_CASE("root latency percentiles: nearest rank, n beside them, no p99 below 100 roots",
          "[runtime][report]") {
    // Latencies 1..n seconds (in reverse order: the report sorts them).
    auto percentiles = [](std::size_t n) {
        RunReport report;
        for (std::size_t i = n; i >= 1; --i) {
            RootResult r;
            r.name = "r" + std::to_string(i);
            r.latency_s = static_cast<double>(i);
            report.roots.push_back(r);
        }
        RootResult resumed;  // journaled by an earlier run: not part of the sample
        resumed.resumed = true;
        resumed.latency_s = 0;
        report.roots.push_back(resumed);
        return nlohmann::json::parse(report.to_json())["root_latency_s"];
    };
    const auto one = percentiles(1);
    CHECK(one["n"] == 1);
    CHECK(one["p50"] == 1.0);
    CHECK(one["p99"].is_null());
    CHECK(one["max"] == 1.0);

    const auto two = percentiles(2);
    CHECK(two["n"] == 2);
    CHECK(two["p50"] == 1.0);  // the smallest with half the sample at or below it
    CHECK(two["p99"].is_null());
    CHECK(two["max"] == 2.0);

    const auto ten = percentiles(10);
    CHECK(ten["n"] == 10);
    CHECK(ten["p50"] == 5.0);
    CHECK(ten["p99"].is_null());
    CHECK(ten["max"] == 10.0);

    const auto hundred = percentiles(100);
    CHECK(hundred["p99"] == 99.0);

    const auto thousand = percentiles(1000);
    CHECK(thousand["n"] == 1000);
    CHECK(thousand["p50"] == 500.0);
    CHECK(thousand["p99"] == 990.0);
    CHECK(thousand["max"] == 1000.0);

    RunReport none;  // no root ran: no latency block at all
    CHECK_FALSE(nlohmann::json::parse(none.to_json()).contains("root_latency_s"));
}
