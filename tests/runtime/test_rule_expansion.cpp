// Children are facts only of an expand that may still succeed (SEMANTICS.md, "Identities":
// children only from a successful expand; "Commit": a success that hits a barrier is discarded
// before any child is created), and a Grain knows where its entity sits (parent, zero-based
// ordinal). The inline executor makes the order of events exact: a batch's streamed reports and
// its children reach the driver after the batch, in the order they were made.
#include <catch2/catch_test_macros.hpp>
#include <set>
#include <string>

#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;

namespace {

// Doc(x) -> x pages (100x + i) -> "regions": expand each page into 2 regions (10p + i) with
// `regions` -> map "m" copies each region.
struct PagesRegions {
    Plan plan;
    PortId regions = 0, out = 0;
    PagesRegions(CallOptions o, BatchFn regions_fn) {
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        const DomainId region = b.add_domain("Region", page);
        const PortId src = b.source("src");
        const PortId pages = b.add_port("pages", page);
        regions = b.add_port("regions", region);
        out = b.add_port("out", region);
        b.add_call(
            {"split",
             CallKind::Expand,
             doc,
             {{src}},
             {pages},
             opts(8, 1),
             expand_int([](long x) { return x; }, [](long x, long i) { return 100 * x + i; })});
        b.add_call({"regions",
                    CallKind::Expand,
                    page,
                    {{pages}},
                    {regions},
                    o,
                    actor(std::move(regions_fn))});
        b.add_call({"m", CallKind::Map, region, {{regions}}, {out}, opts(4, 1), map_int([](long x) {
                        return x;
                    })});
        plan = b.build();
    }
};

void emit_two(Batch& b, std::size_t g) {
    const long page = b.input(g, 0).get<long>();
    for (long i = 0; i < 2; ++i) b.emit_child(g, Value::of<long>(10 * page + i));
}

}  // namespace

TEST_CASE("an expand that fails after emitting: its children's work is suppressed",
          "[runtime][rule][expansion-facts]") {
    // Page 400 emits its two regions, then fails. Inline, its children reach the driver with
    // the failure: the failed Expansion makes them doomed before any of their work runs.
    PagesRegions p(opts(4, 1), [](Batch& b) {
        for (std::size_t g = 0; g < b.size(); ++g) {
            emit_two(b, g);
            if (b.input(g, 0).get<long>() == 400) b.fail_record(g, "corrupt page");
        }
    });
    VecSource source({4, 2});
    Recorder rec;
    RunOptions options;
    options.executor = "inline";
    options.observer = &rec;
    const RunReport report = run(p.plan, source, options);
    CHECK_FALSE(rec.duplicate);
    REQUIRE(report.roots.size() == 2);
    CHECK(report.roots[0].status == RootStatus::Failed);
    CHECK(report.roots[0].reason == "corrupt page");
    CHECK(report.roots[1].status == RootStatus::Ok);
    // The failed page's regions exist (they were streamed) but their work never ran.
    CHECK(rec.of(p.out) == std::multiset<std::string>{"SUPPRESSED", "SUPPRESSED", "4010", "4011",
                                                      "4020", "4021", "4030", "4031", "2000",
                                                      "2001", "2010", "2011"});
}

TEST_CASE("a barred expand Grain's streamed children are never created",
          "[runtime][rule][expansion-facts]") {
    // Pages 400..403 share a batch; 400 reports a GroupFailure (streamed, before its siblings
    // run), then 401..403 emit their regions and succeed. Their barrier is up when those
    // children reach the driver: not one of them becomes an entity. Root 1 is another parent.
    PagesRegions p(opts(4, 1), [](Batch& b) {
        for (std::size_t g = 0; g < b.size(); ++g) {
            if (b.input(g, 0).get<long>() == 400) {
                b.fail_group(g, "bad scan");
            } else {
                emit_two(b, g);
            }
        }
    });
    VecSource source({4, 2});
    Recorder rec;
    RunOptions options;
    options.executor = "inline";
    options.observer = &rec;
    const RunReport report = run(p.plan, source, options);
    CHECK_FALSE(rec.duplicate);
    REQUIRE(report.roots.size() == 2);
    CHECK(report.roots[0].status == RootStatus::Failed);
    CHECK(report.roots[0].reason == "bad scan");
    CHECK(report.roots[1].status == RootStatus::Ok);
    CHECK(rec.of(p.regions) == std::multiset<std::string>{"2000", "2001", "2010", "2011"});
    CHECK(rec.of(p.out) == std::multiset<std::string>{"2000", "2001", "2010", "2011"});
}

TEST_CASE("a Grain knows its entity's parent and zero-based ordinal",
          "[runtime][rule][expansion-facts]") {
    // What each regions Grain sees of its page: the page's parent (a root entity, the same for
    // one document's pages) and its ordinal among that document's pages.
    std::vector<std::pair<long, GrainInfo>> seen;  // (page, info), on the driver thread
    PagesRegions p(opts(4, 1), [&seen](Batch& b) {
        for (std::size_t g = 0; g < b.size(); ++g) {
            seen.emplace_back(b.input(g, 0).get<long>(), b.info(g));
            emit_two(b, g);
        }
    });
    VecSource source({3, 2});
    RunOptions options;
    options.executor = "inline";
    const RunReport report = run(p.plan, source, options);
    REQUIRE(seen.size() == 5);
    std::set<EntityId> parents;
    for (const auto& [page, info] : seen) {
        CAPTURE(page);
        CHECK(info.ordinal == static_cast<std::uint32_t>(page % 100));  // page 100x + i: i
        CHECK(info.parent != kNoEntity);
        parents.insert(info.parent);
    }
    CHECK(parents.size() == 2);  // one per document
    for (const auto& [page, info] : seen) {
        for (const auto& [other, other_info] : seen) {
            if (page / 100 == other / 100) CHECK(info.parent == other_info.parent);
        }
    }
}
