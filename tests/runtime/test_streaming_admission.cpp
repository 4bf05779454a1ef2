// Streaming expand (children schedulable before the expand reports; replays; failure after
// emitting), admission control (max_inflight_roots, payload budget) and progress callbacks.
#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;

namespace {

struct Streaming {
    Plan plan;
    PortId pages = 0, out = 0, grouped = 0;
    Streaming(BatchFn expand, BatchFn map, CallOptions expand_opts = opts(1, 1)) {
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        const PortId src = b.source("src");
        pages = b.add_port("pages", page);
        out = b.add_port("out", page);
        grouped = b.add_port("grouped", doc);
        b.add_call({"render",
                    CallKind::Expand,
                    doc,
                    {{src}},
                    {pages},
                    expand_opts,
                    actor(std::move(expand))});
        b.add_call(
            {"ocr", CallKind::Map, page, {{pages}}, {out}, opts(1, 1), actor(std::move(map))});
        b.add_call({"join", CallKind::Reduce, doc, {{out}}, {grouped}, opts(1, 1), {}});
        plan = b.build();
    }
};

BatchFn pass() {
    return [](Batch& bt) {
        for (std::size_t g = 0; g < bt.size(); ++g) bt.set_output(g, 0, bt.input(g, 0));
    };
}

}  // namespace

TEST_CASE("streaming expand: children run before the expand Grain reports",
          "[runtime][streaming]") {
    std::atomic<bool> first_child_mapped{false};
    std::atomic<bool> mapped_while_expanding{false};
    std::atomic<bool> expanding{false};
    Streaming s(
        [&](Batch& bt) {
            expanding = true;
            bt.emit_child(0, Value::of<long>(0));
            for (int i = 0; i < 400 && !first_child_mapped; ++i) {
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            }
            bt.emit_child(0, Value::of<long>(1));
            expanding = false;
        },
        [&](Batch& bt) {
            if (expanding) mapped_while_expanding = true;
            first_child_mapped = true;
            pass()(bt);
        });
    VecSource source({1});
    Recorder rec;
    RunOptions options;
    options.observer = &rec;
    run(s.plan, source, options);
    CHECK(mapped_while_expanding.load());
    CHECK(rec.of(s.grouped) == std::multiset<std::string>{"[0:0,1:1]"});
}

TEST_CASE("streaming expand replay: re-emitted ordinals are no-ops", "[runtime][streaming]") {
    auto o = opts(2, 1);
    o.recovery = Recovery::RetryBatch;
    o.retries = 1;
    std::atomic<int> attempts{0};
    Streaming s(
        [&](Batch& bt) {
            const bool first = attempts.fetch_add(1) == 0;
            for (std::size_t g = 0; g < bt.size(); ++g) {
                const long x = bt.input(g, 0).get<long>();
                for (long i = 0; i < x; ++i) {
                    bt.emit_child(g, Value::of<long>(10 * x + i));
                    if (first && i == 1) throw std::runtime_error("renderer hiccup");
                }
            }
        },
        pass(), o);
    VecSource source({3, 4});
    Recorder rec;
    RunOptions options;
    options.observer = &rec;
    const RunReport report = run(s.plan, source, options);
    CHECK_FALSE(rec.duplicate);
    CHECK(rec.of(s.grouped) ==
          std::multiset<std::string>{"[0:30,1:31,2:32]", "[0:40,1:41,2:42,3:43]"});
    CHECK(report.calls[0].retries >= 1);
}

TEST_CASE("streaming expand failing after emitting: Expansion FAILED, children suppressed",
          "[runtime][streaming]") {
    std::atomic<bool> child_seen{false};
    Streaming s(
        [&](Batch& bt) {
            for (std::size_t g = 0; g < bt.size(); ++g) {
                const long x = bt.input(g, 0).get<long>();
                for (long i = 0; i < 3; ++i) bt.emit_child(g, Value::of<long>(10 * x + i));
                if (x == 5) {
                    for (int i = 0; i < 200 && !child_seen; ++i) {
                        std::this_thread::sleep_for(std::chrono::milliseconds(2));
                    }
                    bt.fail_record(g, "corrupt page table");
                }
            }
        },
        [&](Batch& bt) {
            child_seen = true;
            pass()(bt);
        });
    VecSource source({5, 6});
    Recorder rec;
    RunOptions options;
    options.observer = &rec;
    const RunReport report = run(s.plan, source, options);
    CHECK_FALSE(rec.duplicate);
    CHECK(rec.of(s.grouped) == std::multiset<std::string>{"SUPPRESSED", "[0:60,1:61,2:62]"});
    // The failed Expansion's children: committed before the failure, or SUPPRESSED after.
    std::size_t doc5 = 0;
    for (const auto& item : rec.of(s.out)) {
        if (item == "SUPPRESSED" || item.rfind("5", 0) == 0) ++doc5;
    }
    CHECK(doc5 == 3);
    CHECK(report.roots[0].status == RootStatus::Failed);
    CHECK(report.roots[0].failed_call == "render");
    CHECK(report.roots[1].status == RootStatus::Ok);
}

TEST_CASE("admission: max_inflight_roots bounds the roots in flight", "[runtime][admission]") {
    for (std::size_t limit : {1u, 3u, 8u}) {
        CAPTURE(limit);
        struct Count : ItemObserver {
            PortId src = 0;
            long live = 0, peak = 0;
            void on_item(PortId p, EntityId, Outcome, const Value&) override {
                if (p == src) peak = std::max(peak, ++live);
            }
            void on_root_done(EntityId) override { --live; }
        } count;
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        count.src = b.source("src");
        const PortId pages = b.add_port("pages", page);
        const PortId out = b.add_port("out", page);
        b.add_call({"split",
                    CallKind::Expand,
                    doc,
                    {{count.src}},
                    {pages},
                    opts(4, 1),
                    expand_int([](long x) { return x; }, [](long, long i) { return i; })});
        b.add_call({"m", CallKind::Map, page, {{pages}}, {out}, opts(16, 2), actor(pass())});
        const Plan plan = b.build();
        VecSource source(std::vector<long>(40, 5));
        RunOptions options;
        options.observer = &count;
        options.max_inflight_roots = limit;
        const RunReport report = run(plan, source, options);
        CHECK(report.peak_inflight_roots <= limit);
        CHECK(static_cast<std::size_t>(count.peak) <= limit);
        CHECK(report.roots.size() == 40);
    }
}

TEST_CASE("admission: the payload-bytes budget holds new roots back", "[runtime][admission]") {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const PortId src = b.source("src");
    const PortId out = b.add_port("out", doc);
    b.add_call({"m", CallKind::Map, doc, {{src}}, {out}, opts(4, 1), actor([](Batch& bt) {
                    for (std::size_t g = 0; g < bt.size(); ++g) {
                        bt.set_output(g, 0, Value::of<std::string>(std::string(1000, 'x')));
                    }
                })});
    const Plan plan = b.build();
    class Big final : public RootSource {
      public:
        std::optional<Root> next() override {
            if (n_ == 20) return std::nullopt;
            ++n_;
            return Root{Value::of<std::string>(std::string(10000, 'p')), {}};
        }

      private:
        int n_ = 0;
    } source;
    RunOptions options;
    options.max_payload_bytes = 25000;  // two roots' payloads at most before admission stops
    const RunReport report = run(plan, source, options);
    CHECK(report.peak_inflight_roots <= 3);
    CHECK(report.roots.size() == 20);
}

TEST_CASE("progress callbacks arrive periodically and at the end", "[runtime][admission]") {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const PortId src = b.source("src");
    const PortId out = b.add_port("out", doc);
    b.add_call({"slow", CallKind::Map, doc, {{src}}, {out}, opts(1, 1), actor([](Batch& bt) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(10));
                    bt.set_output(0, 0, bt.input(0, 0));
                })});
    const Plan plan = b.build();
    VecSource source({1, 2, 3, 4, 5, 6});
    std::vector<Progress> seen;
    RunOptions options;
    options.progress_interval = std::chrono::milliseconds(15);
    options.on_progress = [&](const Progress& p) { seen.push_back(p); };
    run(plan, source, options);
    REQUIRE(seen.size() >= 2);
    CHECK(seen.back().roots_done == 6);
    CHECK(seen.back().roots_total == std::optional<std::size_t>(6));
    CHECK(seen.back().calls.at(0).grains == 6);
}

TEST_CASE("admission: a root finished at dequeue (siblings suppressed) does not stall the run",
          "[runtime][admission]") {
    // One root at a time; a GroupFailure on the first child makes dispatch() seal every queued
    // sibling SUPPRESSED, which finishes the root with nothing in flight: the next root must
    // still be admitted.
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const DomainId page = b.add_domain("Page", doc);
    const PortId src = b.source("src");
    const PortId pages = b.add_port("pages", page);
    const PortId out = b.add_port("out", page);
    b.add_call({"split",
                CallKind::Expand,
                doc,
                {{src}},
                {pages},
                opts(1, 1),
                expand_int([](long) { return 5; }, [](long, long i) { return i; })});
    b.add_call({"m", CallKind::Map, page, {{pages}}, {out}, opts(1, 1), actor([](Batch& bt) {
                    if (bt.input(0, 0).get<long>() == 0) {
                        bt.fail_group(0, "first page");
                    } else {
                        bt.set_output(0, 0, bt.input(0, 0));
                    }
                })});
    const Plan plan = b.build();
    VecSource source({1, 2, 3});
    RunOptions options;
    options.max_inflight_roots = 1;
    const RunReport report = run(plan, source, options);
    REQUIRE(report.roots.size() == 3);
    for (const RootResult& r : report.roots) CHECK(r.status == RootStatus::Failed);
    CHECK(report.calls[1].suppressed >= 1);
}
