// Fail-open reduce (`on_failure skip`): RayOrch's MissingChildPolicy.FAIL_OPEN.
#include <atomic>

#include "conformance.h"

using namespace rop::conformance;

// RayOrch:
// test/experimental/multigrain/test_missing_child_cascade.py::test_fail_open_still_assembles_from_survivors.
// Matches: with `on_failure skip` the reduce assembles the document from the
// pages that survived, in ordinal order, and says which it left out and why.
// rop's root report adds what RayOrch keeps in its error list: the root is Ok
// but partial, with the skipped member. The fail-closed twin is "reduce: a
// failed page suppresses only its document (fail-closed)".
TEST_CASE("reduce on_failure skip: assembles from the survivors (fail-open)",
          "[conformance][reduce][failure]") {
    for (const Schedule& s : schedules()) {
        INFO(s.label());
        CallOptions o = s.options(Recovery::IsolateTail);
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        const PortId src = b.source("docs");
        const PortId pages = b.add_port("pages", page);
        const PortId emb = b.add_port("emb", page);
        const PortId assembled = b.add_port("assembled", doc);
        b.add_call(
            {"split",
             CallKind::Expand,
             doc,
             {{src}},
             {pages},
             o,
             expand_int([](long d) { return d; }, [](long d, long i) { return 10 * d + i; })});
        b.add_call({"embed", CallKind::Map, page, {{pages}}, {emb}, o, actor([](Batch& bt) {
                        for (std::size_t g = 0; g < bt.size(); ++g) {
                            const long x = bt.input(g, 0).get<long>();
                            if (x == 42) {
                                bt.fail_record(g, "page 2 of doc 4 is unreadable");
                            } else {
                                bt.set_output(g, 0, Value::of<long>(x));
                            }
                        }
                    })});
        CallOptions skip = o;
        skip.on_failure = OnFailure::Skip;
        std::atomic<int> skipped_seen{0};
        std::atomic<int> skipped_wrong{0};  // counted on the actor, CHECKed here (Catch2's thread)
        const CallId assemble = b.add_call(
            {"assemble", CallKind::Reduce, doc, {{emb}}, {assembled}, skip, actor([&](Batch& bt) {
                 for (std::size_t g = 0; g < bt.size(); ++g) {
                     const auto& group = bt.input(g, 0).get<ReduceGroup>();
                     for (const SkippedChild& c : group.skipped) {
                         if (c.ordinal != 2 || c.reason != "page 2 of doc 4 is unreadable") {
                             ++skipped_wrong;
                         }
                         ++skipped_seen;
                     }
                     long n = 0;
                     for (const Value& v : group.values) n = 10 * n + v.get<long>() % 10 + 1;
                     bt.set_output(g, 0, Value::of<long>(n));
                 }
             })});
        const Plan plan = b.build();
        const Run run = run_under(s, plan, {2, 4, 3});
        CHECK(run.items->by_root(assembled) ==
              std::map<long, std::string>{{2, "12"}, {4, "124"}, {3, "123"}});
        CHECK(skipped_seen.load() == 1);
        CHECK(skipped_wrong.load() == 0);  // ordinal 2, "page 2 of doc 4 is unreadable"
        CHECK(run.call(assemble).skipped_members == 1);
        CHECK(run.call(assemble).suppressed == 0);
        CHECK(run.root(1).status == RootStatus::Ok);
        CHECK(run.root(1).partial);
        REQUIRE(run.root(1).skipped.size() == 1);
        CHECK(run.root(1).skipped[0].call == "assemble");
        CHECK(run.root(1).skipped[0].ordinal == 2);
        CHECK(run.root(1).skipped[0].reason == "page 2 of doc 4 is unreadable");
        CHECK_FALSE(run.root(0).partial);
        CHECK(run.root(0).status == RootStatus::Ok);
    }
}
