// The structural primitives end to end: broadcast, expand, reduce, and the plans RayOrch keeps
// executable (test/core/unit/test_runtime_plan_semantics.py, test_transition_algebra.py,
// test_broadcast_traversal.py, test_reduce_progress.py).
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "conformance.h"

using namespace rop::conformance;

namespace {

// Reads a ReduceGroup of longs.
const ReduceGroup& group(const Value& v) { return v.get<ReduceGroup>(); }

}  // namespace

// RayOrch: test_transition_algebra.py::test_broadcast_and_expand_cover_every_item_terminal;
// test_broadcast_traversal.py::test_broadcast_matches_full_scan_for_arrival_orders_and_outcomes,
// ::test_empty_or_failed_expansions_have_no_broadcast_targets;
// test_runtime_plan_semantics.py::test_broadcast_fact_order_reaches_the_same_fixed_point.
// Matches: every child gets its ancestor's outcome (and value), whatever finishes first; an
// empty Expansion has no broadcast targets.
TEST_CASE("broadcast: every child gets its ancestor's outcome, in any arrival order",
          "[conformance][broadcast]") {
    for (const Schedule& s : schedules()) {
        INFO(s.label());
        const CallOptions o = s.options(Recovery::IsolateTail);
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        const PortId src = b.source("src");
        // root v: label code v % 4; v / 4 pages (0 for v < 4: an empty Expansion).
        const PortId label =
            outcome_chain(b, doc, src, "label", [](long v) { return int(v % 4); }, o);
        const PortId pages = b.add_port("pages", page);
        const PortId labels = b.add_port("labels", page);
        const PortId out = b.add_port("out", page);
        b.add_call(
            {"split",
             CallKind::Expand,
             doc,
             {{src}},
             {pages},
             o,
             expand_int([](long v) { return v / 4; }, [](long v, long i) { return 100 * v + i; })});
        const CallId bc =
            b.add_call({"label", CallKind::Broadcast, page, {{label}}, {labels}, o, {}});
        // Counted on the actors, CHECKed below on the test's thread (Catch2's).
        auto mixed = std::make_shared<std::atomic<int>>(0);
        b.add_call(
            {"use", CallKind::Map, page, {{pages}, {labels}}, {out}, o, actor([mixed](Batch& bt) {
                 for (std::size_t g = 0; g < bt.size(); ++g) {
                     // the page and its root's label: the same root
                     if (bt.input(g, 0).get<long>() / 100 != bt.input(g, 1).get<long>()) {
                         ++*mixed;
                     }
                     bt.set_output(g, 0, bt.input(g, 0));
                 }
             })});
        const Plan plan = b.build();
        const Run run = run_under(s, plan, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
        CHECK(mixed->load() == 0);  // no page saw another root's label
        // roots 4..7: one page each; 8..11: two pages each.
        CHECK(run.items->of(labels) == std::multiset<std::string>{"4", "8", "8", "DROPPED",
                                                                  "DROPPED", "DROPPED", "FAILED",
                                                                  "FAILED", "FAILED", "SUPPRESSED",
                                                                  "SUPPRESSED", "SUPPRESSED"});
        CHECK(run.items->of(out) ==
              std::multiset<std::string>{"400", "800", "801", "DROPPED", "DROPPED", "DROPPED",
                                         "SUPPRESSED", "SUPPRESSED", "SUPPRESSED", "SUPPRESSED",
                                         "SUPPRESSED", "SUPPRESSED"});
        CHECK(run.call(bc).failed == 0);
        for (long v = 0; v < 4; ++v)
            CHECK(run.root(std::size_t(v)).status ==
                  (v % 4 >= F ? RootStatus::Failed : RootStatus::Dropped));
        CHECK(run.root(4).status == RootStatus::Ok);
        CHECK(run.root(5).status == RootStatus::Dropped);
        CHECK(run.root(6).status == RootStatus::Failed);
        CHECK(run.root(7).status == RootStatus::Failed);
    }
}

// RayOrch:
// test_runtime_plan_semantics.py::test_broadcast_chain_optimized_and_baseline_have_exact_outcome_parity.
// Matches: a mask broadcast two levels down (through the middle level, or straight from the
// root: rop's broadcast reads any ancestor) filters the grandchildren.
TEST_CASE("broadcast: a chain through two expands filters the grandchildren",
          "[conformance][broadcast]") {
    for (const Schedule& s : schedules()) {
        for (bool direct : {false, true}) {
            INFO(s.label() << " direct=" << direct);
            const CallOptions o = s.options(Recovery::IsolateTail);
            PlanBuilder b;
            const DomainId root = b.add_domain("Value");
            const DomainId one = b.add_domain("One", root);
            const DomainId two = b.add_domain("Two", one);
            const PortId src = b.source("src");
            const PortId l1 = b.add_port("level_one", one);
            const PortId l2 = b.add_port("level_two", two);
            const PortId m1 = b.add_port("level_one_masks", one);
            const PortId m2 = b.add_port("level_two_masks", two);
            const PortId out = b.add_port("out", two);
            b.add_call({"outer",
                        CallKind::Expand,
                        root,
                        {{src}},
                        {l1},
                        o,
                        expand_int([](long) { return 2; }, [](long v, long i) { return v + i; })});
            b.add_call(
                {"inner",
                 CallKind::Expand,
                 one,
                 {{l1}},
                 {l2},
                 o,
                 expand_int([](long) { return 2; }, [](long v, long i) { return 10 * v + i; })});
            if (direct) {
                b.add_call({"mask2", CallKind::Broadcast, two, {{src}}, {m2}, o, {}});
            } else {
                b.add_call({"mask1", CallKind::Broadcast, one, {{src}}, {m1}, o, {}});
                b.add_call({"mask2", CallKind::Broadcast, two, {{m1}}, {m2}, o, {}});
            }
            // keep level_two where the root's mask (root value 1: true, 3: false) holds.
            const PortId kept = b.add_port("kept", two);
            b.add_call({"select", CallKind::Map, two, {{l2}, {m2}}, {kept}, o, actor([](Batch& bt) {
                            for (std::size_t g = 0; g < bt.size(); ++g) {
                                const long mask = bt.input(g, 1).get<long>() == 1 ? 1 : 0;
                                bt.set_output(
                                    g, 0, Value::of<long>(10 * bt.input(g, 0).get<long>() + mask));
                            }
                        })});
            b.add_call({"filter", CallKind::Filter, two, {{kept}}, {out}, o, keep_int([](long x) {
                            return x % 10 == 1;
                        })});
            const Plan plan = b.build();
            const Run run = run_under(s, plan, {1, 3});
            CHECK(run.items->of(out) == std::multiset<std::string>{"101", "111", "201", "211",
                                                                   "DROPPED", "DROPPED", "DROPPED",
                                                                   "DROPPED"});
            CHECK(run.root(0).status == RootStatus::Ok);
            CHECK(run.root(1).status == RootStatus::Dropped);
        }
    }
}

// RayOrch: test_transition_algebra.py::test_broadcast_and_expand_cover_every_item_terminal
// (expansion_outcome_from_item);
// test_transition_algebra.py::test_reduce_expansion_member_value_cartesian_product_is_closed (the
// Expansion column);
// test_reduce_progress.py::test_empty_or_unsuccessful_expansion_releases_progress. Matches: expand
// of PRESENT -> SUCCEEDED (possibly empty: an empty group), DROPPED -> DROPPED, FAILED or
// SUPPRESSED -> FAILED (the reduce is SUPPRESSED).
TEST_CASE("expand: every upstream outcome, empty expansions, and the reduce over them",
          "[conformance][expand][reduce]") {
    for (const Schedule& s : schedules()) {
        INFO(s.label());
        const CallOptions o = s.options(Recovery::IsolateTail);
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        const PortId src = b.source("src");
        // root v: code v % 4, v / 4 pages.
        const PortId in = outcome_chain(b, doc, src, "in", [](long v) { return int(v % 4); }, o);
        const PortId pages = b.add_port("pages", page);
        const PortId grouped = b.add_port("grouped", doc);
        const CallId split = b.add_call(
            {"split",
             CallKind::Expand,
             doc,
             {{in}},
             {pages},
             o,
             expand_int([](long v) { return v / 4; }, [](long v, long i) { return 100 * v + i; })});
        const CallId collect =
            b.add_call({"collect", CallKind::Reduce, doc, {{pages}}, {grouped}, o, {}});
        const Plan plan = b.build();
        const Run run = run_under(s, plan, {0, 1, 2, 3, 8, 9, 10, 11});
        CHECK(run.items->by_root(grouped) == std::map<long, std::string>{{0, "[]"},
                                                                         {1, "DROPPED"},
                                                                         {2, "SUPPRESSED"},
                                                                         {3, "SUPPRESSED"},
                                                                         {8, "[0:800,1:801]"},
                                                                         {9, "DROPPED"},
                                                                         {10, "SUPPRESSED"},
                                                                         {11, "SUPPRESSED"}});
        CHECK(run.items->of(pages) == std::multiset<std::string>{"800", "801"});
        CHECK(run.call(split).grains == 2);
        CHECK(run.call(split).suppressed == 4);
        CHECK(run.call(collect).failed == 0);
        CHECK(run.root(0).status == RootStatus::Ok);  // an empty group is a result
        CHECK(run.root(1).status == RootStatus::Dropped);
        CHECK(run.root(2).status == RootStatus::Failed);
        CHECK(run.root(2).reason == "in:2");
    }
}

// RayOrch:
// test_runtime_plan_semantics.py::test_record_and_group_failure_have_distinct_no_reduce_semantics
// and the streaming rule of docs/runtime.md (an expand that fails after emitting). Matches: an
// expand Grain that fails after emitting children leaves its Expansion FAILED: the reduce is
// SUPPRESSED and the root fails; children already emitted either committed or are SUPPRESSED.
TEST_CASE("expand: failing after emitting children fails the Expansion", "[conformance][expand]") {
    for (const Schedule& s : schedules()) {
        INFO(s.label());
        const CallOptions o = s.options(Recovery::IsolateTail);
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        const PortId src = b.source("src");
        const PortId pages = b.add_port("pages", page);
        const PortId out = b.add_port("out", page);
        const PortId grouped = b.add_port("grouped", doc);
        b.add_call({"render", CallKind::Expand, doc, {{src}}, {pages}, o, actor([](Batch& bt) {
                        for (std::size_t g = 0; g < bt.size(); ++g) {
                            const long x = bt.input(g, 0).get<long>();
                            for (long i = 0; i < 3; ++i)
                                bt.emit_child(g, Value::of<long>(10 * x + i));
                            if (x == 5) bt.fail_record(g, "corrupt page table");
                        }
                    })});
        b.add_call(
            {"pass", CallKind::Map, page, {{pages}}, {out}, o, map_int([](long x) { return x; })});
        b.add_call({"collect", CallKind::Reduce, doc, {{out}}, {grouped}, o, {}});
        const Plan plan = b.build();
        const Run run = run_under(s, plan, {5, 6});
        CHECK(run.items->by_root(grouped) ==
              std::map<long, std::string>{{5, "SUPPRESSED"}, {6, "[0:60,1:61,2:62]"}});
        std::size_t doc5 = 0;
        for (const std::string& item : run.items->of(out)) {
            if (item == "SUPPRESSED" || item.rfind("5", 0) == 0) ++doc5;
        }
        CHECK(doc5 == 3);
        CHECK(run.root(0).status == RootStatus::Failed);
        CHECK(run.root(0).failed_call == "render");
        CHECK(run.root(0).reason == "corrupt page table");
        CHECK(run.root(1).status == RootStatus::Ok);
    }
}

// RayOrch:
// test_transition_algebra.py::test_reduce_expansion_member_value_cartesian_product_is_closed,
// ::test_group_ignores_excluded_values_but_failure_absorbs_pending_members;
// test_reduce_progress.py::test_incremental_reduce_matches_full_scan_for_partial_and_terminal_facts;
// test_runtime_plan_semantics.py::test_group_fact_order_reaches_the_same_fixed_point.
// Matches: PRESENT members join in ordinal order whatever order they finish in; DROPPED ones
// are left out (the others keep their ordinals); any FAILED or SUPPRESSED member suppresses
// the group (the reduce UDF never sees it); zero survivors is a PRESENT empty group.
TEST_CASE("reduce: ordinal order, dropped members left out, a failed member suppresses the group",
          "[conformance][reduce]") {
    // Member codes per root (root r, page i valued 10r + i).
    static const std::map<long, std::vector<int>> members = {
        {0, {P, P, P}}, {1, {P, D, P}}, {2, {D, D}}, {3, {P, F, P}},
        {4, {S, P}},    {5, {}},        {6, {D, F}}, {7, {P, P, P, P, P, P, P, P, P}}};
    for (const Schedule& s : schedules()) {
        INFO(s.label());
        const CallOptions o = s.options(Recovery::IsolateTail);
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        const PortId src = b.source("src");
        const PortId pages = b.add_port("pages", page);
        const PortId grouped = b.add_port("grouped", doc);
        const PortId digits = b.add_port("digits", doc);
        b.add_call({"split",
                    CallKind::Expand,
                    doc,
                    {{src}},
                    {pages},
                    o,
                    expand_int([](long r) { return long(members.at(r).size()); },
                               [](long r, long i) { return 10 * r + i; })});
        const PortId member = outcome_chain(
            b, page, pages, "member",
            [](long x) { return members.at(x / 10).at(std::size_t(x % 10)); }, o);
        b.add_call({"collect", CallKind::Reduce, doc, {{member}}, {grouped}, o, {}});
        // A reduce UDF that reads its values in order: the digits (ordinal + 1) in a row.
        std::atomic<int> saw_suppressed_root{0};
        const CallId order =
            b.add_call({"order",
                        CallKind::Reduce,
                        doc,
                        {{member}},
                        {digits},
                        o,
                        actor([&saw_suppressed_root](Batch& bt) {
                            for (std::size_t g = 0; g < bt.size(); ++g) {
                                long n = 0;
                                for (const Value& v : group(bt.input(g, 0)).values) {
                                    n = 10 * n + v.get<long>() % 10 + 1;
                                    const long r = v.get<long>() / 10;
                                    if (r == 3 || r == 4 || r == 6) ++saw_suppressed_root;
                                }
                                bt.set_output(g, 0, Value::of<long>(n));
                            }
                        })});
        const Plan plan = b.build();
        const Run run = run_under(s, plan, {0, 1, 2, 3, 4, 5, 6, 7});
        CHECK(run.items->by_root(grouped) ==
              std::map<long, std::string>{{0, "[0:0,1:1,2:2]"},
                                          {1, "[0:10,2:12]"},
                                          {2, "[]"},
                                          {3, "SUPPRESSED"},
                                          {4, "SUPPRESSED"},
                                          {5, "[]"},
                                          {6, "SUPPRESSED"},
                                          {7, "[0:70,1:71,2:72,3:73,4:74,5:75,6:76,7:77,8:78]"}});
        CHECK(run.items->by_root(digits) == std::map<long, std::string>{{0, "123"},
                                                                        {1, "13"},
                                                                        {2, "0"},
                                                                        {3, "SUPPRESSED"},
                                                                        {4, "SUPPRESSED"},
                                                                        {5, "0"},
                                                                        {6, "SUPPRESSED"},
                                                                        {7, "123456789"}});
        CHECK(saw_suppressed_root.load() == 0);
        CHECK(run.call(order).grains == 5);
        CHECK(run.call(order).suppressed == 3);
        CHECK(run.root(3).status == RootStatus::Failed);
        CHECK(run.root(3).reason == "member:31");
        CHECK(run.root(4).reason == "member.up:40");
        CHECK(run.root(2).status == RootStatus::Ok);
    }
}

// RayOrch: test_runtime_plan_semantics.py::test_nested_expand_reduce_preserves_empty_groups.
// Matches: reduce(reduce(region)) keeps the empty inner and outer groups.
TEST_CASE("reduce: nested expand/reduce keeps empty groups", "[conformance][reduce][expand]") {
    for (const Schedule& s : schedules()) {
        INFO(s.label());
        const CallOptions o = s.options(Recovery::IsolateTail);
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        const DomainId region = b.add_domain("Region", page);
        const PortId src = b.source("src");
        const PortId pages = b.add_port("pages", page);
        const PortId regions = b.add_port("regions", region);
        const PortId per_page = b.add_port("per_page", page);
        const PortId per_doc = b.add_port("per_doc", doc);
        // document 0 -> pages [0, 1]; any other -> none. page 0 -> no regions; 1 -> [10, 11].
        b.add_call(
            {"pages",
             CallKind::Expand,
             doc,
             {{src}},
             {pages},
             o,
             expand_int([](long d) { return d == 0 ? 2 : 0; }, [](long, long i) { return i; })});
        b.add_call({"regions",
                    CallKind::Expand,
                    page,
                    {{pages}},
                    {regions},
                    o,
                    expand_int([](long p) { return p == 0 ? 0 : 2; },
                               [](long, long i) { return 10 + i; })});
        b.add_call({"inner", CallKind::Reduce, page, {{regions}}, {per_page}, o, {}});
        b.add_call({"outer", CallKind::Reduce, doc, {{per_page}}, {per_doc}, o, {}});
        const Plan plan = b.build();
        const Run run = run_under(s, plan, {0, 1});
        CHECK(run.items->by_root(per_doc) ==
              std::map<long, std::string>{{0, "[0:[],1:[0:10,1:11]]"}, {1, "[]"}});
        CHECK(run.root(0).status == RootStatus::Ok);
        CHECK(run.root(1).status == RootStatus::Ok);
    }
}

// RayOrch: test_runtime_plan_semantics.py::test_tutorial_document_pipeline_example.
// Matches. RayOrch writes filter(chunks, masks) with a separate mask stream; rop's filter
// takes its predicate from a UDF, so the mask is computed by a map over (chunk, threshold)
// and the filter keeps what it marked. Chunk value: 100 * document + 10 * ordinal + length.
TEST_CASE("tutorial: expand, broadcast, filter, reduce and a two-input map",
          "[conformance][tutorial]") {
    for (const Schedule& s : schedules()) {
        INFO(s.label());
        const CallOptions o = s.options(Recovery::IsolateTail);
        PlanBuilder b;
        const DomainId doc = b.add_domain("Document");
        const DomainId chunk = b.add_domain("Chunk", doc);
        const PortId documents = b.source("documents");  // a document is its length: 5, 2
        const PortId chunks = b.add_port("chunks", chunk);
        const PortId thresholds = b.add_port("thresholds", doc);
        const PortId chunk_thresholds = b.add_port("chunk_thresholds", chunk);
        const PortId marked = b.add_port("marked", chunk);
        const PortId selected = b.add_port("selected", chunk);
        const PortId chunk_groups = b.add_port("chunk_groups", doc);
        const PortId summary = b.add_port("summary", doc);
        b.add_call({"split",
                    CallKind::Expand,
                    doc,
                    {{documents}},
                    {chunks},
                    o,
                    expand_int([](long n) { return (n + 1) / 2; },
                               [](long n, long i) {
                                   return 100 * n + 10 * i + std::min(2L, n - 2 * i);
                               })});
        b.add_call(
            {"threshold", CallKind::Map, doc, {{documents}}, {thresholds}, o, map_int([](long) {
                 return 2;
             })});
        b.add_call(
            {"thresholds", CallKind::Broadcast, chunk, {{thresholds}}, {chunk_thresholds}, o, {}});
        b.add_call({"long_enough",
                    CallKind::Map,
                    chunk,
                    {{chunks}, {chunk_thresholds}},
                    {marked},
                    o,
                    actor([](Batch& bt) {
                        for (std::size_t g = 0; g < bt.size(); ++g) {
                            const long c = bt.input(g, 0).get<long>();
                            const bool keep = c % 10 >= bt.input(g, 1).get<long>();
                            bt.set_output(g, 0, Value::of<long>(10 * c + (keep ? 1 : 0)));
                        }
                    })});
        b.add_call(
            {"select", CallKind::Filter, chunk, {{marked}}, {selected}, o, keep_int([](long m) {
                 return m % 10 == 1;
             })});
        b.add_call({"collect", CallKind::Reduce, doc, {{selected}}, {chunk_groups}, o, {}});
        b.add_call({"summarize",
                    CallKind::Map,
                    doc,
                    {{documents}, {chunk_groups}},
                    {summary},
                    o,
                    actor([](Batch& bt) {
                        for (std::size_t g = 0; g < bt.size(); ++g) {
                            const long n = bt.input(g, 0).get<long>();
                            long code = n;
                            for (const Value& v : group(bt.input(g, 1)).values)
                                code = 10 * code + v.get<long>() / 100 % 10;  // the ordinal
                            bt.set_output(g, 0, Value::of<long>(code));
                        }
                    })});
        const Plan plan = b.build();
        const Run run = run_under(s, plan, {5, 2});
        // "abcde" -> chunks ab, cd (e is too short); "xy" -> xy.
        CHECK(run.items->by_root(chunk_groups) ==
              std::map<long, std::string>{{5, "[0:5021,1:5121]"}, {2, "[0:2021]"}});
        CHECK(run.items->by_root(summary) == std::map<long, std::string>{{5, "501"}, {2, "20"}});
        CHECK(run.root(0).status == RootStatus::Ok);
        CHECK(run.root(1).status == RootStatus::Ok);
    }
}

// RayOrch:
// test_runtime_plan_semantics.py::test_downstream_grain_becomes_dispatchable_before_upstream_stage_finishes.
// Matches: a child is schedulable as soon as it is emitted, before its expand Grain reports.
// Thread executor only: the shuffled executor runs one batch at a time, so an expand that waits
// for its child to be processed would wait forever there.
TEST_CASE("expand: streaming children run before the expand Grain reports",
          "[conformance][expand][streaming]") {
    for (const Schedule& s : schedules()) {
        if (s.shuffled) continue;
        INFO(s.label());
        const CallOptions o = s.options(Recovery::IsolateTail);
        std::atomic<bool> child_ran{false};
        std::atomic<bool> ran_before_report{false};
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        const PortId src = b.source("src");
        const PortId pages = b.add_port("pages", page);
        const PortId out = b.add_port("out", page);
        b.add_call({"render", CallKind::Expand, doc, {{src}}, {pages}, o, actor([&](Batch& bt) {
                        for (std::size_t g = 0; g < bt.size(); ++g) {
                            bt.emit_child(g, Value::of<long>(bt.input(g, 0).get<long>()));
                        }
                        for (int i = 0; i < 2000 && !child_ran; ++i) {
                            std::this_thread::sleep_for(std::chrono::milliseconds(1));
                        }
                        if (child_ran) ran_before_report = true;
                    })});
        b.add_call({"transform", CallKind::Map, page, {{pages}}, {out}, o, actor([&](Batch& bt) {
                        child_ran = true;
                        for (std::size_t g = 0; g < bt.size(); ++g)
                            bt.set_output(g, 0, bt.input(g, 0));
                    })});
        const Plan plan = b.build();
        const Run run = run_under(s, plan, {7});
        CHECK(ran_before_report.load());
        CHECK(run.items->of(out) == std::multiset<std::string>{"7"});
    }
}
