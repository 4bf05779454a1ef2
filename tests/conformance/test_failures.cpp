// Typed failures end to end: RecordFailure, GroupFailure barriers per (Call, parent), what a
// barrier leaves alone, the missing-child cascade into a reduce, and multi-output atomicity.
// RayOrch: test/core/unit/test_runtime_plan_semantics.py and test/experimental/multigrain/.
#include <atomic>
#include <mutex>

#include "conformance.h"

using namespace rop::conformance;

namespace {

// Doc(d) -> 3 pages valued 10d + i -> map "transform" (the UDF under test) -> out.
struct Pages {
    Plan plan;
    PortId out = 0;
    CallId transform = 0;
    Pages(const CallOptions& o, BatchFn fn) {
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        const PortId src = b.source("src");
        const PortId pages = b.add_port("pages", page);
        out = b.add_port("out", page);
        b.add_call({"render",
                    CallKind::Expand,
                    doc,
                    {{src}},
                    {pages},
                    o,
                    expand_int([](long) { return 3; }, [](long d, long i) { return 10 * d + i; })});
        transform = b.add_call(
            {"transform", CallKind::Map, page, {{pages}}, {out}, o, actor(std::move(fn))});
        plan = b.build();
    }
};

}  // namespace

// RayOrch:
// test_runtime_plan_semantics.py::test_record_and_group_failure_have_distinct_no_reduce_semantics
// (the RecordFailure half). Matches: only that page FAILED, its siblings and the other
// document untouched; the root fails with the record's reason.
TEST_CASE("RecordFailure: fails one page, siblings and other roots untouched",
          "[conformance][failure]") {
    for (const Schedule& s : schedules()) {
        INFO(s.label());
        Pages p(s.options(Recovery::IsolateTail), [](Batch& bt) {
            for (std::size_t g = 0; g < bt.size(); ++g) {
                const long x = bt.input(g, 0).get<long>();
                if (x == 11) throw RecordFailure("bad page", g);  // thrown, naming its Grain
                bt.set_output(g, 0, Value::of<long>(x));
            }
        });
        const Run run = run_under(s, p.plan, {0, 1});
        CHECK(run.items->of(p.out) ==
              std::multiset<std::string>{"0", "1", "2", "10", "FAILED", "12"});
        CHECK(run.root(0).status == RootStatus::Ok);
        CHECK(run.root(1).status == RootStatus::Failed);
        CHECK(run.root(1).reason == "bad page");
        CHECK(run.root(1).failed_call == "transform");
        CHECK(run.call(p.transform).failed == 1);
        CHECK(run.call(p.transform).suppressed == 0);
        CHECK(run.call(p.transform).retries == 0);  // typed failures are never retried
    }
}

// RayOrch:
// test_runtime_plan_semantics.py::test_record_and_group_failure_have_distinct_no_reduce_semantics
// (the GroupFailure half), ::test_group_barrier_linearizes_same_batch_and_late_in_flight_success;
// test_core/unit/test_recovery.py::test_barriered_reserve_seals_only_barriered_parents_and_preserves_fifo.
// Matches: the page FAILED; its siblings in that Call are SUPPRESSED unless they committed
// before the barrier (a fact committed before stays); a sibling in the same batch as the
// GroupFailure is SUPPRESSED even if its success was written first (the batch is pre-scanned).
// RayOrch's test runs all three pages in one batch, so it sees both siblings SUPPRESSED.
TEST_CASE("GroupFailure: barrier on (Call, parent); same-batch successes are discarded",
          "[conformance][failure][barrier]") {
    for (const Schedule& s : schedules()) {
        INFO(s.label());
        std::mutex mu;
        std::set<long> with_poison;  // pages that shared a batch with page 11
        Pages p(s.options(Recovery::IsolateTail), [&](Batch& bt) {
            bool poison = false;
            for (std::size_t g = 0; g < bt.size(); ++g) poison |= bt.input(g, 0).get<long>() == 11;
            for (std::size_t g = 0; g < bt.size(); ++g) {  // successes first, then the failure
                const long x = bt.input(g, 0).get<long>();
                if (poison) {
                    std::lock_guard<std::mutex> lock(mu);
                    with_poison.insert(x);
                }
                if (x != 11) bt.set_output(g, 0, Value::of<long>(x));
            }
            for (std::size_t g = 0; g < bt.size(); ++g) {
                if (bt.input(g, 0).get<long>() == 11) bt.fail_group(g, "bad document");
            }
        });
        const Run run = run_under(s, p.plan, {0, 1, 2});
        const auto out = run.items->of(p.out);
        CHECK(out.count("FAILED") == 1);
        for (long x : {0, 1, 2, 20, 21, 22}) CHECK(out.count(present(x)) == 1);  // other parents
        std::uint64_t suppressed = 0;
        for (long x : {10, 12}) {
            CAPTURE(x);
            if (with_poison.count(x)) CHECK(out.count(present(x)) == 0);  // pre-scan
            suppressed += out.count(present(x)) == 0 ? 1 : 0;
        }
        CHECK(out.count("SUPPRESSED") == suppressed);
        CHECK(run.call(p.transform).failed == 1);
        CHECK(run.call(p.transform).suppressed == suppressed);
        CHECK(run.root(0).status == RootStatus::Ok);
        CHECK(run.root(1).status == RootStatus::Failed);
        CHECK(run.root(1).reason == "bad document");
        CHECK(run.root(2).status == RootStatus::Ok);
        CHECK(run.call(p.transform).retries == 0);
    }
}

// RayOrch:
// test_runtime_plan_semantics.py::test_worker_group_failure_dominates_record_failure_per_grain.
// RayOrch: a Grain given both a RecordFailure and a GroupFailure is a GroupFailure (its
// siblings are barred, the reason is the group's), whichever was reported first.
// Matches (fixed: the last call used to decide whether a barrier went up, the first the reason):
// the Batch keeps one failure per Grain and a GroupFailure dominates
// (runtime/src/executors/job_batch.cpp).
TEST_CASE("GroupFailure dominates a RecordFailure on the same Grain",
          "[conformance][failure][barrier]") {
    for (const Schedule& s : schedules()) {
        // 0: fail_record then fail_group; 1: fail_group then fail_record (both streamed: the
        // driver fails the group as the call comes); 2: fail_record, then a GroupFailure thrown
        // naming the page once the others have their outputs (not streamed: the batch decides).
        for (int order : {0, 1, 2}) {
            INFO(s.label() << " order=" << order);
            CallOptions o = s.options(Recovery::IsolateTail);
            o.batching = Batching::SingleParent;
            std::atomic<bool> together{false};  // the three pages shared one batch
            Pages p(o, [order, &together](Batch& bt) {
                if (bt.size() == 3) together = true;
                std::size_t thrown = bt.size();
                for (std::size_t g = 0; g < bt.size(); ++g) {
                    const long x = bt.input(g, 0).get<long>();
                    if (x != 10) {
                        bt.set_output(g, 0, Value::of<long>(x));
                    } else if (order == 0) {
                        bt.fail_record(g, "record-0");
                        bt.fail_group(g, "group-0");
                    } else if (order == 1) {
                        bt.fail_group(g, "group-0");
                        bt.fail_record(g, "record-0");
                    } else {
                        bt.fail_record(g, "record-0");
                        thrown = g;
                    }
                }
                if (thrown < bt.size()) throw rop::GroupFailure("group-0", thrown);
            });
            const Run run = run_under(s, p.plan, {1});
            CHECK(run.root(0).reason == "group-0");
            const auto out = run.items->of(p.out);
            CHECK(out.count("FAILED") == 1);
            if (together) CHECK(out.count("SUPPRESSED") == 2);  // barred in the same batch
        }
    }
}

// RayOrch:
// test_runtime_plan_semantics.py::test_group_barrier_closes_waiting_sibling_at_input_admission;
// SEMANTICS.md invariant 4 (a barrier never touches another parent or Call).
// Matches: combine's barrier closes page 1's combine Grain however its inputs arrive (never run
// once the barrier is in; SUPPRESSED, unless it committed first); left and right, other Calls
// on the same pages, are untouched.
TEST_CASE("GroupFailure: closes a sibling still waiting for inputs, leaves other Calls alone",
          "[conformance][failure][barrier]") {
    for (const Schedule& s : schedules()) {
        INFO(s.label());
        const CallOptions o = s.options(Recovery::IsolateTail);
        std::atomic<bool> barrier_in{false};
        std::atomic<bool> ran_after_barrier{false};
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        const PortId src = b.source("src");
        const PortId pages = b.add_port("pages", page);
        const PortId left = b.add_port("left", page);
        const PortId right = b.add_port("right", page);
        const PortId combined = b.add_port("combined", page);
        b.add_call({"render",
                    CallKind::Expand,
                    doc,
                    {{src}},
                    {pages},
                    o,
                    expand_int([](long) { return 2; }, [](long d, long i) { return 10 * d + i; })});
        b.add_call(
            {"left", CallKind::Map, page, {{pages}}, {left}, o, map_int([](long x) { return x; })});
        b.add_call({"right", CallKind::Map, page, {{pages}}, {right}, o, map_int([](long x) {
                        return x;
                    })});
        const CallId combine = b.add_call({"combine",
                                           CallKind::Map,
                                           page,
                                           {{left}, {right}},
                                           {combined},
                                           o,
                                           actor([&](Batch& bt) {
                                               for (std::size_t g = 0; g < bt.size(); ++g) {
                                                   const long x = bt.input(g, 0).get<long>();
                                                   if (x == 10) {
                                                       bt.fail_group(g, "parent invalid");
                                                   } else {
                                                       if (x == 11 && barrier_in)
                                                           ran_after_barrier = true;
                                                       bt.set_output(g, 0, Value::of<long>(x));
                                                   }
                                               }
                                           })});
        const Plan plan = b.build();
        const Run run = run_under(s, plan, {0, 1}, [&](PortId port, Outcome outcome) {
            if (port == combined && outcome == Outcome::Failed) barrier_in = true;
        });
        const auto out = run.items->of(combined);
        CHECK(out.count("FAILED") == 1);
        CHECK(out.count("0") == 1);
        CHECK(out.count("1") == 1);
        if (ran_after_barrier) CHECK(out.count("11") == 0);  // ran in flight: fenced at commit
        CHECK(out.count("11") + out.count("SUPPRESSED") == 1);
        CHECK(run.items->of(left) == std::multiset<std::string>{"0", "1", "10", "11"});
        CHECK(run.items->of(right) == std::multiset<std::string>{"0", "1", "10", "11"});
        CHECK(run.call(combine).failed == 1);
        CHECK(run.root(0).status == RootStatus::Ok);
        CHECK(run.root(1).status == RootStatus::Failed);
        CHECK(run.root(1).reason == "parent invalid");
        CHECK(run.root(1).failed_call == "combine");
    }
}

// RayOrch:
// test/experimental/multigrain/test_missing_child_cascade.py::test_fail_closed_suppresses_only_the_affected_document.
// Matches RayOrch's FAIL_CLOSED (rop's only reduce behaviour unless `on_failure skip`): a lost
// page suppresses its document's reduce (the UDF is never called for it), the root fails with
// the page's reason, other documents assemble normally.
TEST_CASE("reduce: a failed page suppresses only its document (fail-closed)",
          "[conformance][reduce][failure]") {
    for (const Schedule& s : schedules()) {
        INFO(s.label());
        const CallOptions o = s.options(Recovery::IsolateTail);
        std::atomic<int> assembled_boom{0};
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        const PortId src = b.source("docs");
        const PortId pages = b.add_port("pages", page);
        const PortId emb = b.add_port("emb", page);
        const PortId assembled = b.add_port("assembled", doc);
        // doc d has d pages (10d + i); page 42 fails in embed.
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
        const CallId assemble = b.add_call(
            {"assemble", CallKind::Reduce, doc, {{emb}}, {assembled}, o, actor([&](Batch& bt) {
                 for (std::size_t g = 0; g < bt.size(); ++g) {
                     if (bt.parent(g).get<long>() == 4) ++assembled_boom;
                     long n = 0;
                     for (const Value& v : bt.input(g, 0).get<ReduceGroup>().values)
                         n = 10 * n + v.get<long>() % 10 + 1;
                     bt.set_output(g, 0, Value::of<long>(n));
                 }
             })});
        const Plan plan = b.build();
        const Run run = run_under(s, plan, {2, 4, 3});
        CHECK(run.items->by_root(assembled) ==
              std::map<long, std::string>{{2, "12"}, {4, "SUPPRESSED"}, {3, "123"}});
        CHECK(assembled_boom.load() == 0);
        CHECK(run.call(assemble).suppressed == 1);
        CHECK(run.call(assemble).grains == 2);
        CHECK(run.root(1).status == RootStatus::Failed);
        CHECK(run.root(1).failed_call == "embed");
        CHECK(run.root(1).reason == "page 2 of doc 4 is unreadable");
        CHECK(run.root(0).status == RootStatus::Ok);
        CHECK(run.root(2).status == RootStatus::Ok);
    }
}

// RayOrch:
// test/experimental/multigrain/test_recovery_policy.py::test_inline_record_retry_recovers_all_output_ports_atomically;
// test_runtime_plan_semantics.py::test_aligned_expand_mismatch_has_no_partial_publication (the
// no-partial-publication rule; rop has no aligned expand). Matches: a Grain publishes all its
// outputs or none — a failure after writing one output leaves both FAILED, and a replay after
// a transient error publishes both once.
TEST_CASE("multi-output map: all outputs or none, also across a replay",
          "[conformance][multi-output]") {
    for (const Schedule& s : schedules()) {
        INFO(s.label());
        CallOptions o = s.options(Recovery::RetryBatch);
        o.retries = 1;
        std::atomic<bool> flaked{false};
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const PortId src = b.source("rows");
        const PortId upper = b.add_port("upper", doc);
        const PortId lengths = b.add_port("lengths", doc);
        const CallId m = b.add_call(
            {"split2", CallKind::Map, doc, {{src}}, {upper, lengths}, o, actor([&](Batch& bt) {
                 for (std::size_t g = 0; g < bt.size(); ++g) {
                     const long x = bt.input(g, 0).get<long>();
                     bt.set_output(g, 0, Value::of<long>(x * 10));
                     if (x == 2) {
                         bt.fail_record(g, "bad row");  // after output 0
                         continue;
                     }
                     if (x == 3 && !flaked.exchange(true)) throw std::runtime_error("transient");
                     bt.set_output(g, 1, Value::of<long>(x + 100));
                 }
             })});
        const Plan plan = b.build();
        const Run run = run_under(s, plan, {1, 2, 3, 4});
        CHECK(run.items->by_root(upper) ==
              std::map<long, std::string>{{1, "10"}, {2, "FAILED"}, {3, "30"}, {4, "40"}});
        CHECK(run.items->by_root(lengths) ==
              std::map<long, std::string>{{1, "101"}, {2, "FAILED"}, {3, "103"}, {4, "104"}});
        CHECK(run.call(m).failed == 1);
        CHECK(run.call(m).retries == 1);
        CHECK(run.root(1).status == RootStatus::Failed);
        CHECK(run.root(1).reason == "bad row");
        CHECK(run.root(2).status == RootStatus::Ok);
    }
}

// The same rule on a multi-output reduce (`(text, count) = reduce pages to Doc with f;`, a UDF
// returning a std::tuple): RayOrch MG
// test_recovery_policy.py::test_inline_record_retry_recovers_all_output_ports_atomically and RPS
// test_aligned_expand_mismatch_has_no_partial_publication, applied to a reduce. Matches: both
// outputs or neither — a suppressed group suppresses both, a failure after the first output fails
// both, a replay after a transient error publishes both once.
TEST_CASE("multi-output reduce: all outputs or none", "[conformance][multi-output][reduce]") {
    for (const Schedule& s : schedules()) {
        INFO(s.label());
        CallOptions o = s.options(Recovery::RetryTail);
        o.retries = 1;
        std::atomic<bool> flaked{false};
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        const PortId src = b.source("docs");
        const PortId pages = b.add_port("pages", page);
        const PortId emb = b.add_port("emb", page);
        const PortId text = b.add_port("text", doc);
        const PortId count = b.add_port("count", doc);
        // doc d has d pages (10d + i); page 32 fails in embed.
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
                            if (x == 32) {
                                bt.fail_record(g, "lost page");
                            } else {
                                bt.set_output(g, 0, Value::of<long>(x));
                            }
                        }
                    })});
        const CallId summarize = b.add_call(
            {"summarize", CallKind::Reduce, doc, {{emb}}, {text, count}, o, actor([&](Batch& bt) {
                 for (std::size_t g = 0; g < bt.size(); ++g) {
                     const long d = bt.parent(g).get<long>();
                     const auto& group = bt.input(g, 0).get<ReduceGroup>();
                     long n = 0;
                     for (const Value& v : group.values) n = 10 * n + v.get<long>() % 10 + 1;
                     bt.set_output(g, 0, Value::of<long>(n));
                     if (d == 4) {
                         bt.fail_record(g, "cannot summarize doc 4");  // after output 0
                         continue;
                     }
                     if (d == 2 && !flaked.exchange(true)) throw std::runtime_error("transient");
                     bt.set_output(g, 1, Value::of<long>(long(group.values.size())));
                 }
             })});
        const Plan plan = b.build();
        const Run run = run_under(s, plan, {1, 2, 3, 4});
        CHECK(run.items->by_root(text) ==
              std::map<long, std::string>{{1, "1"}, {2, "12"}, {3, "SUPPRESSED"}, {4, "FAILED"}});
        CHECK(run.items->by_root(count) ==
              std::map<long, std::string>{{1, "1"}, {2, "2"}, {3, "SUPPRESSED"}, {4, "FAILED"}});
        CHECK(run.call(summarize).failed == 1);
        CHECK(run.call(summarize).suppressed == 1);
        CHECK(run.call(summarize).retries == 1);
        CHECK(run.root(0).status == RootStatus::Ok);
        CHECK(run.root(1).status == RootStatus::Ok);
        CHECK(run.root(2).status == RootStatus::Failed);
        CHECK(run.root(2).reason == "lost page");
        CHECK(run.root(3).status == RootStatus::Failed);
        CHECK(run.root(3).reason == "cannot summarize doc 4");
        CHECK(run.root(3).failed_call == "summarize");
    }
}
