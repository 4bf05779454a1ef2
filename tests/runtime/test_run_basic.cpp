// End-to-end runs of small plans on the thread executor, looping over batch caps and actor
// counts: every primitive, optional inputs, multi-output Calls, nesting, root outcomes, sinks.
#include <catch2/catch_test_macros.hpp>

#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;

namespace {
const std::vector<std::pair<std::uint32_t, std::uint32_t>> kShapes = {{1, 1}, {3, 1}, {64, 1},
                                                                      {1, 3}, {4, 2}, {64, 3}};
}

TEST_CASE("expand -> map -> filter -> reduce, every batch cap and actor count", "[runtime]") {
    for (auto [batch, actors] : kShapes) {
        CAPTURE(batch, actors);
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        const PortId src = b.source("src");
        const PortId pages = b.add_port("pages", page);
        const PortId doubled = b.add_port("doubled", page);
        const PortId kept = b.add_port("kept", page);
        const PortId grouped = b.add_port("grouped", doc);
        const PortId total = b.add_port("total", doc);
        const auto o = opts(batch, actors);
        b.add_call(
            {"split",
             CallKind::Expand,
             doc,
             {{src}},
             {pages},
             o,
             expand_int([](long x) { return x / 10; }, [](long x, long i) { return x + i; })});
        b.add_call({"double", CallKind::Map, page, {{pages}}, {doubled}, o, map_int([](long x) {
                        return 2 * x;
                    })});
        b.add_call({"keep", CallKind::Filter, page, {{doubled}}, {kept}, o, keep_int([](long x) {
                        return x % 4 == 0;
                    })});
        b.add_call({"collect", CallKind::Reduce, doc, {{kept}}, {grouped}, o, {}});
        b.add_call({"sum", CallKind::Reduce, doc, {{kept}}, {total}, o, sum_group()});
        const Plan plan = b.build();
        VecSource source({10, 20, 5, 30});
        Recorder rec;
        RunOptions options;
        options.observer = &rec;
        const RunReport report = run(plan, source, options);
        CHECK_FALSE(rec.duplicate);
        CHECK(rec.of(grouped) ==
              std::multiset<std::string>{"[0:20]", "[0:40]", "[]", "[0:60,2:64]"});
        CHECK(rec.of(total) == std::multiset<std::string>{"20", "40", "0", "124"});
        CHECK(rec.of(kept).count("DROPPED") == 2);
        REQUIRE(report.roots.size() == 4);
        for (const RootResult& r : report.roots) CHECK(r.status == RootStatus::Ok);
        CHECK(report.roots[2].name == "root2");
        CHECK(rec.done.size() == 4);
    }
}

TEST_CASE("broadcast, optional inputs and multi-output Calls", "[runtime]") {
    for (auto [batch, actors] : kShapes) {
        CAPTURE(batch, actors);
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        const PortId src = b.source("src");
        const PortId pages = b.add_port("pages", page);
        const PortId title = b.add_port("title", doc);
        const PortId hint = b.add_port("hint", page);
        const PortId odd = b.add_port("odd", page);
        const PortId lo = b.add_port("lo", page);
        const PortId hi = b.add_port("hi", page);
        const PortId fixed = b.add_port("fixed", page);
        const auto o = opts(batch, actors);
        b.add_call({"split",
                    CallKind::Expand,
                    doc,
                    {{src}},
                    {pages},
                    o,
                    expand_int([](long) { return 3; }, [](long x, long i) { return x + i; })});
        b.add_call({"title", CallKind::Map, doc, {{src}}, {title}, o, map_int([](long x) {
                        return 1000 * x;
                    })});
        b.add_call({"hint", CallKind::Broadcast, page, {{title}}, {hint}, o, {}});
        b.add_call({"odd", CallKind::Filter, page, {{pages}}, {odd}, o, keep_int([](long x) {
                        return x % 2 == 1;
                    })});
        b.add_call({"split2", CallKind::Map, page, {{pages}}, {lo, hi}, o, actor([](Batch& bt) {
                        for (std::size_t g = 0; g < bt.size(); ++g) {
                            const long x = bt.input(g, 0).get<long>();
                            bt.set_output(g, 0, Value::of<long>(x % 10));
                            bt.set_output(g, 1, Value::of<long>(x / 10));
                        }
                    })});
        b.add_call({"fix",
                    CallKind::Map,
                    page,
                    {{hint}, {odd, InputMode::Optional}, {hi}},
                    {fixed},
                    o,
                    actor([](Batch& bt) {
                        for (std::size_t g = 0; g < bt.size(); ++g) {
                            const Value& maybe = bt.input(g, 1);
                            const long v = bt.input(g, 0).get<long>() +
                                           (maybe ? maybe.get<long>() : -1) +
                                           100 * bt.input(g, 2).get<long>();
                            bt.set_output(g, 0, Value::of<long>(v));
                        }
                    })});
        const Plan plan = b.build();
        VecSource source({10, 21});
        Recorder rec;
        RunOptions options;
        options.observer = &rec;
        const RunReport report = run(plan, source, options);
        CHECK_FALSE(rec.duplicate);
        CHECK(rec.of(hint) ==
              std::multiset<std::string>{"10000", "10000", "10000", "21000", "21000", "21000"});
        // root 10: pages 10,11,12 -> odd only 11; root 21: 21,22,23 -> 21, 23.
        CHECK(rec.of(fixed) ==
              std::multiset<std::string>{"10099", "10111", "10099", "21221", "21199", "21223"});
        CHECK(rec.of(lo) == std::multiset<std::string>{"0", "1", "2", "1", "2", "3"});
        CHECK(report.calls.size() == 6);
    }
}

TEST_CASE("nested expand/reduce three levels deep, with empty expansions", "[runtime]") {
    for (auto [batch, actors] : kShapes) {
        CAPTURE(batch, actors);
        PlanBuilder b;
        const DomainId d0 = b.add_domain("Doc");
        const DomainId d1 = b.add_domain("Page", d0);
        const DomainId d2 = b.add_domain("Region", d1);
        const PortId src = b.source("src");
        const PortId p1 = b.add_port("pages", d1);
        const PortId p2 = b.add_port("regions", d2);
        const PortId r1 = b.add_port("page_sum", d1);
        const PortId r0 = b.add_port("doc_sum", d0);
        const auto o = opts(batch, actors);
        // x pages, page i has i regions (page 0: an empty expansion).
        b.add_call({"pages",
                    CallKind::Expand,
                    d0,
                    {{src}},
                    {p1},
                    o,
                    expand_int([](long x) { return x; }, [](long, long i) { return i; })});
        b.add_call({"regions",
                    CallKind::Expand,
                    d1,
                    {{p1}},
                    {p2},
                    o,
                    expand_int([](long x) { return x; }, [](long, long i) { return i + 1; })});
        b.add_call({"page_sum", CallKind::Reduce, d1, {{p2}}, {r1}, o, sum_group()});
        b.add_call({"doc_sum", CallKind::Reduce, d0, {{r1}}, {r0}, o, sum_group()});
        const Plan plan = b.build();
        VecSource source({0, 1, 4, 7});
        Recorder rec;
        RunOptions options;
        options.observer = &rec;
        const RunReport report = run(plan, source, options);
        // page i sums 1..i = i(i+1)/2; doc x sums that over i < x.
        CHECK(rec.of(r0) == std::multiset<std::string>{"0", "0", "10", "56"});
        for (const RootResult& r : report.roots) CHECK(r.status == RootStatus::Ok);
    }
}

TEST_CASE("root outcomes: Ok, Dropped (no PRESENT result), Failed(call, reason)", "[runtime]") {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const PortId src = b.source("src");
    const PortId kept = b.add_port("kept", doc);
    const PortId out = b.add_port("out", doc);
    b.add_call({"keep", CallKind::Filter, doc, {{src}}, {kept}, opts(4, 1), keep_int([](long x) {
                    return x != 2;
                })});
    b.add_call({"work", CallKind::Map, doc, {{kept}}, {out}, opts(4, 1), actor([](Batch& bt) {
                    for (std::size_t g = 0; g < bt.size(); ++g) {
                        const long x = bt.input(g, 0).get<long>();
                        if (x == 3) {
                            bt.fail_record(g, "three is bad");
                        } else {
                            bt.set_output(g, 0, Value::of<long>(x));
                        }
                    }
                })});
    const Plan plan = b.build();
    std::vector<long> seen;
    RunOptions options;
    options.sinks.push_back(
        {out, [&](EntityId, const Value& v) { seen.push_back(v.get<long>()); }});
    VecSource source({1, 2, 3});
    const RunReport report = run(plan, source, options);
    REQUIRE(report.roots.size() == 3);
    CHECK(report.roots[0].status == RootStatus::Ok);
    CHECK(report.roots[1].status == RootStatus::Dropped);
    CHECK(report.roots[2].status == RootStatus::Failed);
    CHECK(report.roots[2].failed_call == "work");
    CHECK(report.roots[2].reason == "three is bad");
    CHECK(report.roots[2].attempts == 1);
    CHECK(seen == std::vector<long>{1});
}

TEST_CASE("single_parent batching never mixes parents; any_parent does", "[runtime]") {
    for (Batching mode : {Batching::SingleParent, Batching::AnyParent}) {
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        const PortId src = b.source("src");
        const PortId pages = b.add_port("pages", page);
        const PortId out = b.add_port("out", page);
        bool mixed_seen = false;
        auto o = opts(16, 1);
        o.batching = mode;
        b.add_call({"split",
                    CallKind::Expand,
                    doc,
                    {{src}},
                    {pages},
                    opts(8, 1),
                    expand_int([](long x) { return x; }, [](long, long i) { return i; })});
        b.add_call({"m", CallKind::Map, page, {{pages}}, {out}, o, actor([&mixed_seen](Batch& bt) {
                        for (std::size_t g = 0; g < bt.size(); ++g) {
                            if (bt.info(g).parent != bt.info(0).parent) mixed_seen = true;
                            bt.set_output(g, 0, bt.input(g, 0));
                        }
                    })});
        const Plan plan = b.build();
        VecSource source({3, 5, 2, 7, 1, 4});
        const RunReport report = run(plan, source, {});
        if (mode == Batching::SingleParent) {
            CHECK_FALSE(mixed_seen);
            CHECK(report.calls[1].mixed_parent_batches == 0);
        } else {
            CHECK(report.calls[1].mixed_parent_batches > 0);
        }
    }
}

TEST_CASE("a plan with no Calls finishes every root Ok", "[runtime]") {
    PlanBuilder b;
    b.add_domain("Doc");
    b.source("src");
    const Plan plan = b.build();
    VecSource source({1, 2});
    const RunReport report = run(plan, source, {});
    REQUIRE(report.roots.size() == 2);
    CHECK(report.roots[1].status == RootStatus::Ok);
}
