// A reduce Call with several outputs (a reduce UDF returning a std::tuple): every output of a
// group is published, and a group that does not run (a failed member, a failed UDF) leaves every
// output in the same outcome: all or none.
#include <catch2/catch_test_macros.hpp>

#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;

namespace {

const std::vector<std::pair<std::uint32_t, std::uint32_t>> kShapes = {{1, 1}, {3, 1}, {8, 1},
                                                                      {1, 4}, {3, 4}, {8, 4}};

// Doc(x) -> x pages valued 100x+i -> "fail" fails the page valued fail_value ->
// "stats" (reduce, two outputs: sum and count). stats fails a whole group when its sum is 0.
struct TwoOutputReduce {
    Plan plan;
    PortId sum = 0;
    PortId count = 0;
    TwoOutputReduce(CallOptions o, long fail_value) {
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        const PortId src = b.source("src");
        const PortId pages = b.add_port("pages", page);
        const PortId checked = b.add_port("checked", page);
        sum = b.add_port("sum", doc);
        count = b.add_port("count", doc);
        b.add_call(
            {"split",
             CallKind::Expand,
             doc,
             {{src}},
             {pages},
             o,
             expand_int([](long x) { return x; }, [](long x, long i) { return 100 * x + i; })});
        b.add_call({"check",
                    CallKind::Map,
                    page,
                    {{pages}},
                    {checked},
                    o,
                    actor([fail_value](Batch& batch) {
                        for (std::size_t g = 0; g < batch.size(); ++g) {
                            const long v = batch.input(g, 0).get<long>();
                            if (v == fail_value) {
                                batch.fail_record(g, "bad page");
                            } else {
                                batch.set_output(g, 0, Value::of<long>(v));
                            }
                        }
                    })});
        b.add_call(
            {"stats", CallKind::Reduce, doc, {{checked}}, {sum, count}, o, actor([](Batch& batch) {
                 for (std::size_t g = 0; g < batch.size(); ++g) {
                     const auto& group = batch.input(g, 0).get<ReduceGroup>();
                     long s = 0;
                     for (const Value& v : group.values) s += v.get<long>();
                     // One output set, then the failure: neither may be published.
                     batch.set_output(g, 0, Value::of<long>(s));
                     if (s == 0) {
                         batch.fail_record(g, "empty document");
                         continue;
                     }
                     batch.set_output(g, 1,
                                      Value::of<long>(static_cast<long>(group.values.size())));
                 }
             })});
        plan = b.build();
    }
};

}  // namespace

TEST_CASE("a reduce with two outputs publishes both, or neither", "[runtime][reduce]") {
    for (auto [batch, actors] : kShapes) {
        CAPTURE(batch, actors);
        TwoOutputReduce p(opts(batch, actors), 301);  // the second page of doc 3 fails
        VecSource source({2, 3, 0, 4});
        Recorder rec;
        RunOptions options;
        options.observer = &rec;
        const RunReport report = run(p.plan, source, options);
        CHECK_FALSE(rec.duplicate);
        // doc 2: 200+201; doc 4: 400+...+403; doc 3 suppressed by its failed page (both
        // outputs); doc 0 (no pages) failed by the UDF after setting one output (both outputs).
        CHECK(rec.of(p.sum) == std::multiset<std::string>{"401", "1606", "SUPPRESSED", "FAILED"});
        CHECK(rec.of(p.count) == std::multiset<std::string>{"2", "4", "SUPPRESSED", "FAILED"});
        REQUIRE(report.roots.size() == 4);
        CHECK(report.roots[0].status == RootStatus::Ok);
        CHECK(report.roots[1].status == RootStatus::Failed);
        CHECK(report.roots[1].reason == "bad page");
        CHECK(report.roots[2].status == RootStatus::Failed);
        CHECK(report.roots[2].reason == "empty document");
        CHECK(report.roots[3].status == RootStatus::Ok);
    }
}

TEST_CASE("a reduce without a UDF has exactly one output", "[runtime][reduce]") {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const DomainId page = b.add_domain("Page", doc);
    const PortId src = b.source("src");
    const PortId pages = b.add_port("pages", page);
    const PortId a = b.add_port("a", doc);
    const PortId c = b.add_port("c", doc);
    b.add_call({"split",
                CallKind::Expand,
                doc,
                {{src}},
                {pages},
                opts(1, 1),
                expand_int([](long x) { return x; }, [](long, long i) { return i; })});
    b.add_call({"collect", CallKind::Reduce, doc, {{pages}}, {a, c}, opts(1, 1), {}});
    CHECK_THROWS_AS(b.build(), ContractError);
}
