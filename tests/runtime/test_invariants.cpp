// The seven invariants of SEMANTICS.md, each tested directly, over actor counts and batch caps.
#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;

namespace {

const std::vector<std::pair<std::uint32_t, std::uint32_t>> kShapes = {{1, 1}, {4, 1}, {64, 1},
                                                                      {1, 3}, {3, 2}, {64, 3}};

// Doc -> Page (x children valued 100*x + i); returns {src, pages}.
struct TwoLevel {
    PlanBuilder b;
    DomainId doc, page;
    PortId src, pages;
    explicit TwoLevel(std::uint32_t batch = 8) {
        doc = b.add_domain("Doc");
        page = b.add_domain("Page", doc);
        src = b.source("src");
        pages = b.add_port("pages", page);
        b.add_call(
            {"split",
             CallKind::Expand,
             doc,
             {{src}},
             {pages},
             opts(batch, 1),
             expand_int([](long x) { return x; }, [](long x, long i) { return 100 * x + i; })});
    }
};

}  // namespace

TEST_CASE("invariant 1: a Grain is sealed at most once per generation (stale reports rejected)",
          "[runtime][invariants]") {
    for (std::uint32_t actors : {1u, 2u}) {
        TwoLevel t;
        const PortId out = t.b.add_port("out", t.page);
        std::atomic<int> calls{0};
        auto o = opts(4, actors);
        o.timeout = std::chrono::milliseconds(150);  // generous: the CI machine may be loaded
        t.b.add_call(
            {"slow_once", CallKind::Map, t.page, {{t.pages}}, {out}, o, actor([&calls](Batch& bt) {
                 if (calls.fetch_add(1) == 0) {  // the first batch misses its deadline
                     std::this_thread::sleep_for(std::chrono::milliseconds(600));
                 }
                 for (std::size_t g = 0; g < bt.size(); ++g) {
                     bt.set_output(g, 0, bt.input(g, 0));
                 }
             })});
        const Plan plan = t.b.build();
        VecSource source({3, 2});
        Recorder rec;
        RunOptions options;
        options.observer = &rec;
        const RunReport report = run(plan, source, options);  // a double seal would throw
        CHECK_FALSE(rec.duplicate);
        CHECK(rec.of(out) == std::multiset<std::string>{"300", "301", "302", "200", "201"});
        CHECK(report.calls[1].stale_reports >= 1);  // the late gen-0 report was fenced off
        CHECK(report.calls[1].infra_retries >= 1);
        for (const RootResult& r : report.roots) CHECK(r.status == RootStatus::Ok);
    }
}

TEST_CASE("invariant 2: every Item gets exactly one terminal outcome", "[runtime][invariants]") {
    for (auto [batch, actors] : kShapes) {
        CAPTURE(batch, actors);
        TwoLevel t(batch);
        const PortId a = t.b.add_port("a", t.page);
        const PortId kept = t.b.add_port("kept", t.page);
        const PortId grouped = t.b.add_port("grouped", t.doc);
        t.b.add_call({"a",
                      CallKind::Map,
                      t.page,
                      {{t.pages}},
                      {a},
                      opts(batch, actors),
                      actor([](Batch& bt) {
                          for (std::size_t g = 0; g < bt.size(); ++g) {
                              const long x = bt.input(g, 0).get<long>();
                              if (x % 7 == 3) {
                                  bt.fail_record(g, "bad");
                              } else {
                                  bt.set_output(g, 0, Value::of<long>(x));
                              }
                          }
                      })});
        t.b.add_call({"k",
                      CallKind::Filter,
                      t.page,
                      {{a}},
                      {kept},
                      opts(batch, actors),
                      keep_int([](long x) { return x % 2 == 0; })});
        t.b.add_call({"g", CallKind::Reduce, t.doc, {{kept}}, {grouped}, opts(batch, actors), {}});
        const Plan plan = t.b.build();
        VecSource source({5, 0, 9, 2});
        Recorder rec;
        RunOptions options;
        options.observer = &rec;
        run(plan, source, options);
        CHECK_FALSE(rec.duplicate);
        // 4 src + 16 pages + 16 a + 16 kept + 4 grouped, each once.
        CHECK(rec.seen.size() == 4 + 16 * 3 + 4);
    }
}

TEST_CASE("invariant 3: a failed multi-output Grain publishes nothing", "[runtime][invariants]") {
    for (bool thrown : {false, true}) {
        for (auto [batch, actors] : kShapes) {
            CAPTURE(thrown, batch, actors);
            TwoLevel t;
            const PortId lo = t.b.add_port("lo", t.page);
            const PortId hi = t.b.add_port("hi", t.page);
            t.b.add_call({"two",
                          CallKind::Map,
                          t.page,
                          {{t.pages}},
                          {lo, hi},
                          opts(batch, actors),
                          actor([thrown](Batch& bt) {
                              for (std::size_t g = 0; g < bt.size(); ++g) {
                                  const long x = bt.input(g, 0).get<long>();
                                  bt.set_output(g, 0, Value::of<long>(x));  // written first...
                                  if (x % 3 == 1) {                         // ...then fails
                                      if (thrown) throw RecordFailure("nope", g);
                                      bt.fail_record(g, "nope");
                                      continue;
                                  }
                                  bt.set_output(g, 1, Value::of<long>(-x));
                              }
                          })});
            const Plan plan = t.b.build();
            VecSource source({4, 3});
            Recorder rec;
            RunOptions options;
            options.observer = &rec;
            run(plan, source, options);
            CHECK_FALSE(rec.duplicate);
            // 400..403, 300..302: x%3==1 for 400, 403, 301.
            CHECK(rec.of(lo) == std::multiset<std::string>{"FAILED", "401", "402", "FAILED", "300",
                                                           "FAILED", "302"});
            CHECK(rec.of(hi) == std::multiset<std::string>{"FAILED", "-401", "-402", "FAILED",
                                                           "-300", "FAILED", "-302"});
        }
    }
}

TEST_CASE("invariant 4: a barrier never touches another parent or another Call",
          "[runtime][invariants]") {
    for (auto [batch, actors] : kShapes) {
        CAPTURE(batch, actors);
        TwoLevel t;
        const PortId a = t.b.add_port("a", t.page);
        const PortId other = t.b.add_port("other", t.page);
        t.b.add_call({"a",
                      CallKind::Map,
                      t.page,
                      {{t.pages}},
                      {a},
                      opts(batch, actors),
                      actor([](Batch& bt) {
                          for (std::size_t g = 0; g < bt.size(); ++g) {
                              const long x = bt.input(g, 0).get<long>();
                              if (x == 502) {
                                  bt.fail_group(g, "page 2 of doc 5 is poison");
                              } else {
                                  bt.set_output(g, 0, Value::of<long>(x));
                              }
                          }
                      })});
        t.b.add_call({"other",
                      CallKind::Map,
                      t.page,
                      {{t.pages}},
                      {other},
                      opts(batch, actors),
                      map_int([](long x) { return x; })});
        const Plan plan = t.b.build();
        VecSource source({5, 6});
        Recorder rec;
        RunOptions options;
        options.observer = &rec;
        const RunReport report = run(plan, source, options);
        CHECK_FALSE(rec.duplicate);
        const auto a_items = rec.of(a);
        CHECK(a_items.count("FAILED") == 1);
        for (long i = 0; i < 6; ++i) CHECK(a_items.count(std::to_string(600 + i)) == 1);
        std::size_t doc5 = 0;
        for (long i = 0; i < 5; ++i) doc5 += a_items.count(std::to_string(500 + i));
        CHECK(doc5 + a_items.count("SUPPRESSED") == 4);  // committed before, or suppressed
        CHECK(rec.of(other).size() == 11);
        CHECK(rec.of(other).count("SUPPRESSED") == 0);
        CHECK(report.roots[0].status == RootStatus::Failed);
        CHECK(report.roots[0].reason == "page 2 of doc 5 is poison");
        CHECK(report.roots[1].status == RootStatus::Ok);
    }
}

TEST_CASE("invariant 5: in-flight work is not revoked, its commit is fenced",
          "[runtime][invariants]") {
    // Batch 1, two actors: the sibling 201 is in flight when 200's GroupFailure commits; it
    // finishes its work (not revoked) but its result is discarded at commit (SUPPRESSED).
    TwoLevel t;
    const PortId a = t.b.add_port("a", t.page);
    std::atomic<bool> barrier_seen{false};
    std::atomic<bool> sibling_ran{false};
    std::atomic<bool> sibling_started{false};
    t.b.add_call({"a", CallKind::Map, t.page, {{t.pages}}, {a}, opts(1, 2), actor([&](Batch& bt) {
                      const long x = bt.input(0, 0).get<long>();
                      if (x == 200) {
                          // Fails once the sibling is in flight (a loaded machine may otherwise
                          // commit the barrier before the sibling was ever dispatched).
                          for (int i = 0; i < 400 && !sibling_started.load(); ++i) {
                              std::this_thread::sleep_for(std::chrono::milliseconds(5));
                          }
                          bt.fail_group(0, "poison");
                          return;
                      }
                      sibling_started = true;
                      for (int i = 0; i < 400 && !barrier_seen.load(); ++i) {
                          std::this_thread::sleep_for(std::chrono::milliseconds(5));
                      }
                      sibling_ran = true;
                      bt.set_output(0, 0, Value::of<long>(x));
                  })});
    const Plan plan = t.b.build();
    struct Watch : ItemObserver {
        Recorder rec;
        PortId port = 0;
        std::atomic<bool>* flag = nullptr;
        void on_item(PortId p, EntityId e, Outcome o, const Value& v) override {
            rec.on_item(p, e, o, v);
            if (p == port && o == Outcome::Failed) *flag = true;
        }
    } watch;
    watch.port = a;
    watch.flag = &barrier_seen;
    VecSource source({2});
    RunOptions options;
    options.observer = &watch;
    const RunReport report = run(plan, source, options);
    CHECK(sibling_ran.load());
    CHECK(barrier_seen.load());
    CHECK(watch.rec.of(a) == std::multiset<std::string>{"FAILED", "SUPPRESSED"});
    CHECK(report.calls[1].suppressed == 1);
}

TEST_CASE("invariant 6: empty expansions and nested expand/reduce terminate",
          "[runtime][invariants]") {
    for (auto [batch, actors] : kShapes) {
        CAPTURE(batch, actors);
        PlanBuilder b;
        const DomainId d0 = b.add_domain("Doc");
        const DomainId d1 = b.add_domain("Page", d0);
        const DomainId d2 = b.add_domain("Region", d1);
        const PortId src = b.source("src");
        const PortId gate = b.add_port("gate", d0);
        const PortId p1 = b.add_port("pages", d1);
        const PortId p2 = b.add_port("regions", d2);
        const PortId g1 = b.add_port("g1", d1);
        const PortId g0 = b.add_port("g0", d0);
        const auto o = opts(batch, actors);
        b.add_call({"gate", CallKind::Filter, d0, {{src}}, {gate}, o, keep_int([](long x) {
                        return x != 9;
                    })});  // 9: Expansion DROPPED
        b.add_call(
            {"pages",
             CallKind::Expand,
             d0,
             {{gate}},
             {p1},
             o,
             expand_int([](long x) { return x == 9 ? 1 : x; }, [](long, long) { return 0; })});
        b.add_call({"regions",
                    CallKind::Expand,
                    d1,
                    {{p1}},
                    {p2},
                    o,
                    expand_int([](long) { return 0; }, [](long, long) { return 0; })});
        b.add_call({"g1", CallKind::Reduce, d1, {{p2}}, {g1}, o, {}});
        b.add_call({"g0", CallKind::Reduce, d0, {{g1}}, {g0}, o, {}});
        const Plan plan = b.build();
        VecSource source({0, 0, 2, 9});
        Recorder rec;
        RunOptions options;
        options.observer = &rec;
        const RunReport report = run(plan, source, options);
        CHECK(rec.done.size() == 4);
        CHECK(rec.of(g1) == std::multiset<std::string>{"[]", "[]"});  // two empty groups
        CHECK(rec.of(g0).count("DROPPED") == 1);
        CHECK(rec.of(g0).count("[]") == 2);
        CHECK(rec.of(g0).count("[0:[],1:[]]") == 1);
        CHECK(report.roots[3].status == RootStatus::Dropped);
    }
}

TEST_CASE("invariant 7: healthy siblings commit when another sibling is isolated",
          "[runtime][invariants]") {
    for (auto [batch, actors] : kShapes) {
        CAPTURE(batch, actors);
        TwoLevel t;
        const PortId out = t.b.add_port("out", t.page);
        auto o = opts(batch, actors);
        o.recovery = Recovery::IsolateTail;
        std::atomic<int> runs{0};
        t.b.add_call(
            {"ocr", CallKind::Map, t.page, {{t.pages}}, {out}, o, actor([&runs](Batch& bt) {
                 for (std::size_t g = 0; g < bt.size(); ++g) {
                     ++runs;
                     if (bt.input(g, 0).get<long>() == 903) {
                         throw std::runtime_error("segfault-ish in the model");
                     }
                     bt.set_output(g, 0, bt.input(g, 0));
                 }
             })});
        const Plan plan = t.b.build();
        VecSource source({9, 8});
        Recorder rec;
        RunOptions options;
        options.observer = &rec;
        const RunReport report = run(plan, source, options);
        const auto items = rec.of(out);
        CHECK(items.count("FAILED") == 1);
        CHECK(items.size() == 17);
        CHECK(items.count("SUPPRESSED") == 0);
        CHECK(report.roots[0].status == RootStatus::Failed);
        CHECK(report.roots[0].reason.find("segfault-ish") != std::string::npos);
        CHECK(report.roots[1].status == RootStatus::Ok);
        CHECK(runs.load() <= 17 * 8);  // bounded work
    }
}
