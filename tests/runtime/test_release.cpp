// Finished roots release their lineage (LineageStore::release_done): the tables follow the
// roots in flight, not the run; results stay in source order; a report may count ok roots
// instead of listing them; a late report for a released Grain is fenced, never read.
#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;

namespace {

// Pages valued 100x+i; a page whose value ends in 37 fails its root.
void pass_or_fail_37(Batch& bt) {
    for (std::size_t g = 0; g < bt.size(); ++g) {
        const long v = bt.input(g, 0).get<long>();
        if (v % 100 == 37) {
            bt.fail_record(g, "page " + std::to_string(v));
        } else {
            bt.set_output(g, 0, bt.input(g, 0));
        }
    }
}

RunReport run_roots(const OneMap& m, std::size_t roots, long pages, RunOptions options = {}) {
    VecSource source(std::vector<long>(roots, pages));
    options.max_inflight_roots = 8;
    return run(m.plan, source, options);
}

// A Recorder that also counts the roots done, for a UDF (on its actor thread) to wait on.
class CountingObserver final : public ItemObserver {
  public:
    void on_item(PortId port, EntityId entity, Outcome outcome, const Value& value) override {
        rec.on_item(port, entity, outcome, value);
    }
    void on_root_done(EntityId root) override {
        rec.on_root_done(root);
        done.fetch_add(1);
    }
    Recorder rec;
    std::atomic<std::size_t> done{0};
};

}  // namespace

TEST_CASE("release: the lineage tables follow the roots in flight, not the run",
          "[runtime][release]") {
    OneMap m(opts(16, 1), [](Batch& bt) {
        for (std::size_t g = 0; g < bt.size(); ++g) bt.set_output(g, 0, bt.input(g, 0));
    });
    const RunReport small = run_roots(m, 1000, 10);
    const RunReport large = run_roots(m, 20000, 10);
    CHECK(small.entities == 1000u * 11u);
    CHECK(large.entities == 20000u * 11u);
    REQUIRE(large.roots.size() == 20000u);
    for (const RootResult& r : large.roots) REQUIRE(r.status == RootStatus::Ok);
    // Held for the whole run, 20x the roots would hold 20x the tables; released, the largest
    // tables of the long run stay within a small factor of the short run's (a window of the
    // roots in flight plus the compaction slack, 64 KiB per table at least).
    CAPTURE(small.lineage_bytes, large.lineage_bytes);
    CHECK(large.lineage_bytes < 3 * small.lineage_bytes);
}

TEST_CASE("release: big roots under one root in flight keep the tables flat",
          "[runtime][release]") {
    // 5,000 pages a root, one root in flight: the tables (every child list's capacity included)
    // must not grow with the number of roots. Two rules hold them: a released expansion gives
    // its child list back at once (an empty list assigned keeps its capacity until the table is
    // compacted: 2,730 rows), and release follows the rows held, not only every 64 roots.
    OneMap m(opts(64, 1), [](Batch& bt) {
        for (std::size_t g = 0; g < bt.size(); ++g) bt.set_output(g, 0, bt.input(g, 0));
    });
    RunOptions options;
    options.report_ok_roots = false;
    options.executor = "inline";
    auto run_big = [&](std::size_t roots) {
        VecSource source(std::vector<long>(roots, 5000));
        RunOptions o = options;
        o.max_inflight_roots = 1;
        return run(m.plan, source, o);
    };
    const RunReport few = run_big(40);  // 200,000 pages: past the first few releases
    const RunReport many = run_big(400);
    REQUIRE(many.omitted.ok == 400u);
    CAPTURE(few.lineage_bytes, many.lineage_bytes);
    CHECK(many.lineage_bytes <= few.lineage_bytes + few.lineage_bytes / 10);
}

TEST_CASE("release: results stay in source order with failures among released roots",
          "[runtime][release]") {
    OneMap m(opts(16, 2), pass_or_fail_37);
    // Root r has r % 50 pages: page 37 exists (and fails) for r % 50 >= 38.
    std::vector<long> values;
    for (long r = 0; r < 3000; ++r) values.push_back(r % 50);
    VecSource source(values);
    RunOptions options;
    options.max_inflight_roots = 4;
    const RunReport report = run(m.plan, source, options);
    REQUIRE(report.roots.size() == values.size());
    for (std::size_t r = 0; r < values.size(); ++r) {
        CAPTURE(r);
        REQUIRE(report.roots[r].name == "root" + std::to_string(r));
        const long pages = values[r];
        if (pages >= 38) {
            REQUIRE(report.roots[r].status == RootStatus::Failed);
            REQUIRE(report.roots[r].reason == "page " + std::to_string(100 * pages + 37));
        } else {
            REQUIRE(report.roots[r].status == (pages == 0 ? RootStatus::Dropped : RootStatus::Ok));
        }
    }
}

TEST_CASE("release: with report_ok_roots off the report lists failed roots and counts the rest",
          "[runtime][release]") {
    OneMap m(opts(16, 1), pass_or_fail_37);
    std::vector<long> values;
    for (long r = 0; r < 500; ++r) values.push_back(r % 50);  // as above: 120 fail, 10 drop
    VecSource source(values);
    RunOptions options;
    options.report_ok_roots = false;
    const RunReport report = run(m.plan, source, options);
    REQUIRE(report.roots.size() == 120u);
    for (const RootResult& r : report.roots) CHECK(r.status == RootStatus::Failed);
    CHECK(report.roots.front().name == "root38");
    CHECK(report.roots.back().name == "root499");
    CHECK(report.omitted.ok == 370u);
    CHECK(report.omitted.dropped == 10u);
    CHECK(report.omitted.latency.size() == 380u);
    CHECK(report.total_roots() == 500u);
    const auto json = nlohmann::json::parse(report.to_json());
    CHECK(json["summary"]["roots"] == 500);
    CHECK(json["summary"]["ok"] == 370);
    CHECK(json["summary"]["dropped"] == 10);
    CHECK(json["summary"]["failed"] == 120);
    CHECK(json["roots"].size() == 120u);
    CHECK(json["root_latency_s"]["n"] == 500);
}

TEST_CASE("release: a late report for a released Grain is fenced, not read", "[runtime][release]") {
    // The first batch sleeps past its timeout and is abandoned; its pages run again and their
    // root finishes, and it sleeps on until 2,000 roots are done and released (not for a fixed
    // time: on a loaded machine that may be too few). Its late report names Grains whose rows
    // are gone: only the fence may look at them. (The abandoned pages run again as deferred
    // halves, which priority rule 7 lets through within a few batches; before it they could
    // wait behind the new roots until after the sleeper woke, and mutation 25 survived.)
    std::atomic<int> batches{0};
    CountingObserver observer;
    CallOptions o = opts(4, 3);  // the sleeper's retry never waits behind it
    o.timeout = std::chrono::milliseconds(150);
    o.infra_retries = 3;
    OneMap m(o, [&](Batch& bt) {
        if (batches.fetch_add(1) == 0) {
            const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
            while (observer.done.load() < 2000 && std::chrono::steady_clock::now() < until) {
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        for (std::size_t g = 0; g < bt.size(); ++g) bt.set_output(g, 0, bt.input(g, 0));
    });
    RunOptions options;
    options.observer = &observer;
    // Enough roots that the run outlives the sleeper by far.
    const RunReport report = run_roots(m, 20000, 4, options);
    CHECK(observer.done.load() == 20000u);
    CHECK_FALSE(observer.rec.duplicate);
    REQUIRE(report.roots.size() == 20000u);
    for (const RootResult& r : report.roots) REQUIRE(r.status == RootStatus::Ok);
    // The sleeper, and the batch queued behind it on its actor, came back late.
    CHECK(report.calls[1].stale_reports >= 1u);
    CHECK(report.calls[1].infra_retries >= 1u);
}
