// The virtual-time run of --estimate (src/estimate/simulate.h) against schedules worked out by
// hand: the real driver's rules decide what runs, the model only says how long it takes.
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <utility>

#include "estimate/simulate.h"
#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;
using namespace rop::runtime::estimate;
using Catch::Approx;

namespace {

// A UDF that must never run: the simulation runs none.
ActorFactory never() {
    return actor([](Batch&) { FAIL("a UDF ran in a simulation"); });
}

// One map "m" over the roots, with the given options.
Plan one_map(CallOptions options) {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const PortId src = b.source("src");
    const PortId out = b.add_port("out", doc);
    b.add_call({"m", CallKind::Map, doc, {{src}}, {out}, std::move(options), never()});
    return b.build();
}

// Documents split into pages (with `split`'s options: one actor, a root a batch unless said),
// a map over the pages with `ocr`'s options, and the pages regrouped per document (one actor,
// a root a batch).
Plan split_ocr_join(CallOptions ocr, CallOptions split = opts(1, 1)) {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const DomainId page = b.add_domain("Page", doc);
    const PortId src = b.source("src");
    const PortId pages = b.add_port("pages", page);
    const PortId texts = b.add_port("texts", page);
    const PortId docs = b.add_port("docs", doc);
    b.add_call({"split", CallKind::Expand, doc, {{src}}, {pages}, std::move(split), never()});
    b.add_call({"ocr", CallKind::Map, page, {{pages}}, {texts}, std::move(ocr), never()});
    b.add_call({"join", CallKind::Reduce, doc, {{texts}}, {docs}, opts(1, 1), never()});
    return b.build();
}

}  // namespace

TEST_CASE("estimate simulate: one map on one actor in batches of 4", "[estimate]") {
    const Plan plan = one_map(opts(4, 1));
    SimModel model;
    model.calls = {CallCost{1.0, 0.5}};  // a + b n: 3 s for 4 roots, 2 s for 2
    const SimOutcome sim = simulate(plan, model, 10);
    // 10 roots at t=0: batches of 4, 4, 2 back to back on the one actor.
    CHECK(sim.failed_roots == 0);
    CHECK(sim.makespan_s == Approx(8.0));
    CHECK(sim.first_root_s == Approx(3.0));
    for (std::size_t r = 0; r < 10; ++r)
        CHECK(sim.commit_s[r] == Approx(r < 4 ? 3.0 : r < 8 ? 6.0 : 8.0));
    CHECK(sim.p50_latency_s == Approx(6.0));
    CHECK(sim.p99_latency_s == Approx(8.0));
    REQUIRE(sim.calls.size() == 1);
    CHECK(sim.calls[0].batches == 3);
    CHECK(sim.calls[0].grains == 10);
    CHECK(sim.calls[0].busy_s == Approx(8.0));
    CHECK(sim.calls[0].utilization == Approx(1.0));
    // The share done over time: 4 of 10 Grains at 3 s, 8 at 6 s, all at 8 s; a point at each
    // hundredth, each at the end of the batch that reached it.
    REQUIRE(sim.progress.size() == 101);
    CHECK(sim.progress[0] == std::pair{0.0, 0.0});
    CHECK(sim.progress[40].first == Approx(0.4));
    CHECK(sim.progress[40].second == Approx(3.0));
    CHECK(sim.progress[41].second == Approx(6.0));
    CHECK(sim.progress[80].second == Approx(6.0));
    CHECK(sim.progress[81].second == Approx(8.0));
    CHECK(sim.progress[100].second == Approx(8.0));
    // The payload in flight at the worst, as the real Engine counts it over items of the model's
    // 64 bytes: the 10 roots admitted at once (and outputs not yet released), or 2 at a time.
    CHECK(sim.peak_live_items >= 10);
    CHECK(sim.peak_live_items <= 14);
    CHECK(sim.peak_live_bytes == sim.peak_live_items * 64);
    RunOptions two;
    two.max_inflight_roots = 2;
    const SimOutcome narrow = simulate(plan, model, 10, two);
    CHECK(narrow.peak_live_items >= 2);
    CHECK(narrow.peak_live_items <= 4);
    CHECK(narrow.peak_live_bytes == narrow.peak_live_items * 64);
}

// Two roots expand to 6 pages each (1 s per root on one actor, a page streamed each sixth of
// it, as a real render streams them); the pages go through a map of batch 4 on 2 actors (2 s a
// batch, whatever its size) and regroup per root (0.5 s). By hand, with the scheduler's rules
// (docs/runtime.md "Scheduling"), t in sixths of a second:
//   t=1  root 0's p0: the map has no batch in flight, so a partial batch goes: [p0] on A [1,13).
//   t=2-4 p1-p3 wait (a partial batch waits while the map has one in flight).
//   t=5  p4: a full batch, root 0's p1-p4 on B [5,17).
//   t=6  root 0's p5 (with its Done); root 1's render starts and streams p0-p2 at t=7-9: at 9
//        another full batch (root 0's p5, root 1's p0-p2) goes to the executor, and waits for
//        an actor (a pool's shared FIFO): A at 13 [13,25).
//   t=12 root 1's render ends (p3-p5 ready): the map's tail. Each actor that frees up takes
//        ceil(ready / (2 x 2 actors)): B at 17 -> root 1 p3 [17,29); A at 25 -> p4 [25,37);
//        B at 29 -> p5 [29,41).
//   Root 0 regroups at 25 [25,28), root 1 at 41 [41,44): 6 map batches, 12 s busy of 2 x 44/6.
// Had the render emitted its pages at its end (t=6), root 0 would commit at 7.5 s, not 28/6.
TEST_CASE("estimate simulate: expand then map then reduce with a regroup on 2 actors",
          "[estimate]") {
    const Plan plan = split_ocr_join(opts(4, 2));
    SimModel model;
    model.calls = {CallCost{0, 1.0, 1, 6}, CallCost{2.0, 0}, CallCost{0.5, 0}};
    const SimOutcome sim = simulate(plan, model, 2);
    CHECK(sim.failed_roots == 0);
    CHECK(sim.commit_s[0] == Approx(28.0 / 6));
    CHECK(sim.commit_s[1] == Approx(44.0 / 6));
    CHECK(sim.makespan_s == Approx(44.0 / 6));
    CHECK(sim.first_root_s == Approx(28.0 / 6));
    CHECK(sim.calls[0].busy_s == Approx(2.0));
    CHECK(sim.calls[1].batches == 6);
    CHECK(sim.calls[1].grains == 12);
    CHECK(sim.calls[1].busy_s == Approx(12.0));
    CHECK(sim.calls[1].utilization == Approx(12.0 / (2 * 44.0 / 6)));
    CHECK(sim.calls[2].busy_s == Approx(1.0));
}

// A streamed child comes out when its share of the batch's work is done, at the batch's
// current rate: two roots expand on 2 actors (2 s each, all CPU, 2 pages) on 1 core, so each
// runs at half speed and its first page comes out at 2 s, the second with its end at 4 s. The
// pages' map (10 s, waiting, batch 1, 2 actors) takes both first pages at 2 s [2,12), both
// second pages at 12 s [12,22), and both roots commit at 22 s (21 s had the pages come out at
// the batch's cost, not its shared rate; 24 s had they come out at its end).
TEST_CASE("estimate simulate: an expand streams its children at its shared rate", "[estimate]") {
    const Plan plan = split_ocr_join(opts(1, 2), opts(1, 2));
    SimModel model;
    CallCost split{0, 2.0, 1, 2};
    split.cpu_share = 1;
    model.calls = {split, CallCost{10.0, 0}, CallCost{0, 0}};
    model.cores = 1;
    const SimOutcome sim = simulate(plan, model, 2);
    CHECK(sim.failed_roots == 0);
    CHECK(sim.commit_s == std::vector<double>{22, 22});
    CHECK(sim.calls[0].busy_s == Approx(8.0));  // two batches of 4 s
    CHECK(sim.calls[1].batches == 4);
    CHECK(sim.calls[1].busy_s == Approx(40.0));
}

// A straggler: root 2 weighs 10 (20 pages, the others 2). The expand takes no time; the map
// does 2 pages a batch in 1 s on one actor, the reduce takes no time. Batches go least served
// root first: roots 0 and 1 [0,1) [1,2), then root 2's first 2 pages [2,3), roots 3 and 4
// [3,4) [4,5), then root 2's other 18 pages to 14 s.
TEST_CASE("estimate simulate: a straggler root commits last and sets the p99", "[estimate]") {
    const Plan plan = split_ocr_join(opts(2, 1));
    SimModel model;
    model.calls = {CallCost{0, 0, 1, 2}, CallCost{1.0, 0}, CallCost{0, 0}};
    model.root_scales = {1, 1, 10, 1, 1};
    const SimOutcome sim = simulate(plan, model, 5);
    CHECK(sim.failed_roots == 0);
    CHECK(sim.commit_s == std::vector<double>{1, 2, 14, 4, 5});
    CHECK(sim.first_root_s == Approx(1.0));
    CHECK(sim.makespan_s == Approx(14.0));
    CHECK(sim.p50_latency_s == Approx(4.0));
    CHECK(sim.p99_latency_s == Approx(14.0));
    CHECK(sim.calls[1].grains == 28);
    CHECK(sim.calls[1].busy_s == Approx(14.0));
}

// An expand's cost per Grain scales with its root's weight, as its fan-out does: 1 s for a root
// of weight 1, so roots of weights 1, 3 and 2 take [0,1), [1,4) and [4,6) on its one actor
// (the pages' map and the regroup take no time), and commit at 1, 4 and 6 s.
TEST_CASE("estimate simulate: a heavier root's expand takes longer", "[estimate]") {
    const Plan plan = split_ocr_join(opts(4, 1));
    SimModel model;
    model.calls = {CallCost{0, 1.0, 1, 2}, CallCost{0, 0}, CallCost{0, 0}};
    model.root_scales = {1, 3, 2};
    const SimOutcome sim = simulate(plan, model, 3);
    CHECK(sim.failed_roots == 0);
    CHECK(sim.commit_s == std::vector<double>{1, 4, 6});
    CHECK(sim.calls[0].busy_s == Approx(6.0));
    CHECK(sim.calls[1].grains == 12);  // 2 pages a weight
}

TEST_CASE("estimate simulate: the same model gives the same times every run", "[estimate]") {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const DomainId page = b.add_domain("Page", doc);
    const PortId src = b.source("src");
    const PortId pages = b.add_port("pages", page);
    const PortId kept = b.add_port("kept", page);
    const PortId docs = b.add_port("docs", doc);
    b.add_call({"split", CallKind::Expand, doc, {{src}}, {pages}, opts(2, 2), never()});
    b.add_call({"keep", CallKind::Filter, page, {{pages}}, {kept}, opts(8, 3), never()});
    b.add_call({"join", CallKind::Reduce, doc, {{kept}}, {docs}, opts(4, 2), never()});
    const Plan plan = b.build();
    SimModel model;
    model.calls = {CallCost{0.1, 0.3, 1, 7.5}, CallCost{0.2, 0.05, 0.6}, CallCost{0.01, 0.02}};
    RunOptions limits;
    limits.max_inflight_roots = 8;
    const SimOutcome first = simulate(plan, model, 200, limits);
    const SimOutcome second = simulate(plan, model, 200, limits);
    CHECK(first.failed_roots == 0);
    CHECK(first.commit_s == second.commit_s);
    CHECK(first.calls[0].grains == 200);
    CHECK(first.calls[1].grains == 1500);  // 7.5 children a root, exactly
    CHECK(first.makespan_s > 0);
}

// Processor sharing (SimModel::cores): two maps of one root run side by side, "short" 1 s and
// "long" 3 s, both all CPU, on 1 core. Together they ask for 2 cores: each runs at half speed,
// so short ends at 2 s with long 1 s done; long then has the core to itself and ends at 4 s.
// The root commits at 4 s: the 4 CPU-seconds over 1 core. A map that waits (CPU share 0) asks
// for no core; without a core count nothing is shared.
TEST_CASE("estimate simulate: running batches share the stated cores by their CPU share",
          "[estimate]") {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const PortId src = b.source("src");
    const PortId a = b.add_port("a", doc);
    const PortId c = b.add_port("c", doc);
    b.add_call({"short", CallKind::Map, doc, {{src}}, {a}, opts(1, 1), never()});
    b.add_call({"long", CallKind::Map, doc, {{src}}, {c}, opts(1, 1), never()});
    const Plan plan = b.build();
    struct Case {
        double cores, short_cpu, long_cpu;
        double short_busy, long_busy, makespan;
    };
    const Case cases[] = {
        {1, 1.0, 1.0, 2.0, 4.0, 4.0},  // both compute: 4 CPU-s on 1 core
        {1, 1.0, 0.0, 1.0, 3.0, 3.0},  // long waits: short has the core
        {1, 0.5, 0.5, 1.0, 3.0, 3.0},  // 1 core asked for: no one slows
        {2, 1.0, 1.0, 1.0, 3.0, 3.0},  // 2 cores for 2
        {0, 1.0, 1.0, 1.0, 3.0, 3.0},  // no core count: nothing shared
        // 1.5 cores asked for, 1 given: each runs at 1 / (0.25 + 0.75 x 1.5) = 1 / 1.375, so
        // short ends at 1.375 s with long 1 s done; long alone asks for 0.75 of the core and
        // runs at its cost: 1.375 + 2 = 3.375 s.
        {1, 0.75, 0.75, 1.375, 3.375, 3.375},
    };
    for (const Case& k : cases) {
        CAPTURE(k.cores, k.short_cpu, k.long_cpu);
        SimModel model;
        model.calls = {CallCost{1.0, 0}, CallCost{3.0, 0}};
        model.calls[0].cpu_share = k.short_cpu;
        model.calls[1].cpu_share = k.long_cpu;
        model.cores = k.cores;
        const SimOutcome sim = simulate(plan, model, 1);
        CHECK(sim.failed_roots == 0);
        CHECK(sim.calls[0].busy_s == Approx(k.short_busy));
        CHECK(sim.calls[1].busy_s == Approx(k.long_busy));
        CHECK(sim.makespan_s == Approx(k.makespan));
    }
}

// The driver keeps a share of a core busy all along (SimModel::driver_cpu): two all-CPU batches
// of 1 s on 2 cores with the driver at a whole core ask for 3, so each gets 2/3 of a core and
// ends at 1.5 s; with the driver at half a core, 2.5 asked for: 1.25 s; with none, 1 s.
TEST_CASE("estimate simulate: the driver's CPU takes its share of the cores", "[estimate]") {
    const Plan plan = one_map(opts(1, 2));
    for (const auto& [driver, makespan] : {std::pair{1.0, 1.5}, {0.5, 1.25}, {0.0, 1.0}}) {
        CAPTURE(driver);
        SimModel model;
        model.calls = {CallCost{1.0, 0}};
        model.calls[0].cpu_share = 1.0;
        model.cores = 2;
        model.driver_cpu = driver;
        const SimOutcome sim = simulate(plan, model, 2);
        CHECK(sim.failed_roots == 0);
        CHECK(sim.makespan_s == Approx(makespan));
    }
}

// One all-CPU map on 4 actors and 2 cores, 6 roots of 1 s each: 4 start at once at half speed
// and end at 2 s; the last 2 then have a core each and end at 3 s, the 6 CPU-seconds over 2
// cores. More actors than cores gain nothing; a map that only waits gains all of it.
TEST_CASE("estimate simulate: more actors than cores gain only what the Call waits", "[estimate]") {
    const Plan plan = one_map(opts(1, 4));
    SimModel model;
    model.calls = {CallCost{1.0, 0}};
    model.calls[0].cpu_share = 1.0;
    model.cores = 2;
    const SimOutcome cpu = simulate(plan, model, 6);
    CHECK(cpu.failed_roots == 0);
    for (std::size_t r = 0; r < 6; ++r) CHECK(cpu.commit_s[r] == Approx(r < 4 ? 2.0 : 3.0));
    CHECK(cpu.makespan_s == Approx(3.0));
    CHECK(cpu.calls[0].busy_s == Approx(10.0));  // 4 x 2 s + 2 x 1 s, as the actors saw it
    CHECK(cpu.calls[0].utilization == Approx(10.0 / 12.0));
    model.calls[0].cpu_share = 0;
    const SimOutcome waits = simulate(plan, model, 6);
    CHECK(waits.makespan_s == Approx(2.0));
    CHECK(waits.calls[0].busy_s == Approx(6.0));
}
