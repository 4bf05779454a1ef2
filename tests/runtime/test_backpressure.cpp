// Backpressure on streaming expands (Scheduler::pace_streaming): a document that streams more
// payload than RunOptions::max_payload_bytes waits for its consumers instead of running ahead;
// a paused expand's timeout waits with it; with nothing else to consume (a reduce needs every
// child), the expand goes on; every executor finishes.
#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;

namespace {

constexpr std::size_t kChildBytes = 64 * 1024;
constexpr long kChildren = 400;  // 25 MiB streamed by one root

// `gap`: a pause before each of the first `gapped` children (by default 32, 2 MiB: so that the
// driver surely looks before a 1 MiB budget is spent), none after them.
ActorFactory stream_strings(std::chrono::microseconds gap = std::chrono::microseconds(0),
                            long gapped = 32) {
    return actor([gap, gapped](Batch& b) {
        for (std::size_t g = 0; g < b.size(); ++g) {
            for (long i = 0; i < b.input(g, 0).get<long>(); ++i) {
                if (gap.count() > 0 && i < gapped) std::this_thread::sleep_for(gap);
                b.emit_child(g, Value::of<std::string>(std::string(kChildBytes, 'a' + i % 26)));
            }
        }
    });
}

// Doc(n) -> n strings of 64 KiB (streamed) -> map "m": the string's size, after `sleep`.
struct StreamPlan {
    Plan plan;
    PortId out = 0;
    // The map's first batch sleeps `first`, the others `sleep`.
    StreamPlan(CallOptions split, std::chrono::microseconds sleep,
               std::chrono::microseconds first = std::chrono::microseconds(-1),
               std::chrono::microseconds gap = std::chrono::microseconds(0), long gapped = 32) {
        if (first.count() < 0) first = sleep;
        auto batches = std::make_shared<std::atomic<int>>(0);
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        const PortId src = b.source("src");
        const PortId pages = b.add_port("pages", page);
        out = b.add_port("out", page);
        b.add_call(
            {"split", CallKind::Expand, doc, {{src}}, {pages}, split, stream_strings(gap, gapped)});
        b.add_call({"m",
                    CallKind::Map,
                    page,
                    {{pages}},
                    {out},
                    opts(4, 1),
                    actor([sleep, first, batches](Batch& bt) {
                        std::this_thread::sleep_for(batches->fetch_add(1) == 0 ? first : sleep);
                        for (std::size_t g = 0; g < bt.size(); ++g) {
                            bt.set_output(g, 0,
                                          Value::of<long>(static_cast<long>(
                                              bt.input(g, 0).get<std::string>().size())));
                        }
                    })});
        plan = b.build();
    }
};

}  // namespace

TEST_CASE("backpressure: a streaming expand waits while payloads are over budget",
          "[runtime][backpressure]") {
    // The expand emits a child every 100 us or so, the map takes 2 ms a batch of 4 (4x slower).
    // How far past the budget the expand gets is what it emits while the driver has not yet
    // paused it: at full speed (about 70 children a millisecond here) a loaded machine's driver
    // let 130 children through, so the children are paced to give the driver ten times longer.
    StreamPlan p(opts(1, 1), std::chrono::milliseconds(2), std::chrono::milliseconds(2),
                 std::chrono::microseconds(100), kChildren);
    Recorder rec;
    RunOptions options;
    options.observer = &rec;
    options.max_payload_bytes = 1 << 20;
    VecSource source({kChildren});
    const RunReport report = run(p.plan, source, options);
    REQUIRE(report.roots.size() == 1u);
    CHECK(report.roots[0].status == RootStatus::Ok);
    CHECK(rec.of(p.out).size() == static_cast<std::size_t>(kChildren));
    CHECK(rec.of(p.out).count(std::to_string(kChildBytes)) == static_cast<std::size_t>(kChildren));
    // It paused, unless the consumer kept up by itself (under TSan the expand is the slow one).
    CHECK((report.backpressure_pauses > 0u || report.peak_live_bytes <= options.max_payload_bytes));
    // Without it the expand streams all 25 MiB at once; with it, the budget plus the children
    // emitted before the driver pauses it (a few; the bound allows 8 MiB more, a third of what
    // streams).
    CAPTURE(report.peak_live_bytes);
    CHECK(report.peak_live_bytes <= options.max_payload_bytes + 128 * kChildBytes);
}

TEST_CASE("backpressure: a paused expand's timeout waits with it", "[runtime][backpressure]") {
    CallOptions split = opts(1, 1);
    split.timeout = std::chrono::milliseconds(2000);
    // The consumer's first batch takes 5 s: the expand, over budget after 16 children, stays
    // paused for all of it, more than twice its timeout (the driver looks at least once a
    // second), while its own work takes tens of milliseconds (a few hundred under TSan, over a
    // second on a machine loaded 20 times over: hence a 2 s timeout): its
    // first children a millisecond apart, so that the driver has looked at it long before it
    // spent its budget (on a loaded machine an expand left alone streams all 25 MiB before the
    // driver's first look, and never pauses). Many short pauses would not do: each resume moves
    // the deadline on by the pause.
    StreamPlan p(split, std::chrono::milliseconds(0), std::chrono::milliseconds(5000),
                 std::chrono::milliseconds(1));
    RunOptions options;
    options.max_payload_bytes = 1 << 20;
    VecSource source({kChildren});
    const RunReport report = run(p.plan, source, options);
    REQUIRE(report.roots.size() == 1u);
    CHECK(report.roots[0].status == RootStatus::Ok);
    CHECK(report.calls[0].infra_retries == 0u);
    CHECK(report.calls[0].stale_reports == 0u);
    CHECK(report.backpressure_pauses > 0u);
}

TEST_CASE("backpressure: with only a reduce to consume them, the children stream on",
          "[runtime][backpressure]") {
    for (const char* executor : {"threads", "inline"}) {
        CAPTURE(executor);
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        const PortId src = b.source("src");
        const PortId pages = b.add_port("pages", page);
        const PortId total = b.add_port("total", doc);
        b.add_call(
            {"split", CallKind::Expand, doc, {{src}}, {pages}, opts(1, 1), stream_strings()});
        b.add_call(
            {"sum", CallKind::Reduce, doc, {{pages}}, {total}, opts(1, 1), actor([](Batch& bt) {
                 for (std::size_t g = 0; g < bt.size(); ++g) {
                     long bytes = 0;
                     for (const Value& v : bt.input(g, 0).get<ReduceGroup>().values) {
                         bytes += static_cast<long>(v.get<std::string>().size());
                     }
                     bt.set_output(g, 0, Value::of<long>(bytes));
                 }
             })});
        const Plan plan = b.build();
        Recorder rec;
        RunOptions options;
        options.observer = &rec;
        options.executor = executor;
        options.max_payload_bytes = 1 << 20;  // far less than one document's children
        VecSource source({kChildren, 3});
        const RunReport report = run(plan, source, options);
        REQUIRE(report.roots.size() == 2u);
        CHECK(report.roots[0].status == RootStatus::Ok);
        CHECK(report.roots[1].status == RootStatus::Ok);
        CHECK(rec.of(total) == std::multiset<std::string>{std::to_string(kChildren * kChildBytes),
                                                          std::to_string(3 * kChildBytes)});
    }
}
