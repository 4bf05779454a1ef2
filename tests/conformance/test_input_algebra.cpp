// The input algebra of a Call and the filter primitive, against RayOrch's transition tables
// (test/core/unit/test_transition_algebra.py) and the end-to-end plans of
// test/core/unit/test_runtime_plan_semantics.py.
#include "conformance.h"

using namespace rop::conformance;

namespace {

// Root value v = 4 * left code + right code: every pair of input outcomes once.
std::vector<long> all_pairs() {
    std::vector<long> v;
    for (long i = 0; i < 16; ++i) v.push_back(i);
    return v;
}

}  // namespace

// RayOrch: test_transition_algebra.py::test_call_input_cartesian_product_is_order_independent,
// ::test_all_optional_dropped_inputs_are_ready_without_identity_driver;
// test_runtime_plan_semantics.py::test_required_drop_is_symmetric_across_call_inputs,
// ::test_all_optional_call_runs_with_missing_values_and_no_driver,
// ::test_call_failure_dominates_required_drop_independent_of_arrival_order.
// Matches: failure beats drop, a required DROPPED input drops, an optional one reaches the UDF
// as missing, and the order of the inputs never matters.
TEST_CASE("input algebra: {required, optional}^2 x 4 outcomes^2, either input order",
          "[conformance][input]") {
    for (const Schedule& s : schedules()) {
        for (int modes = 0; modes < 4; ++modes) {
            for (bool swapped : {false, true}) {
                INFO(s.label() << " modes=" << modes << " swapped=" << swapped);
                const InputMode lm = (modes & 2) ? InputMode::Optional : InputMode::Required;
                const InputMode rm = (modes & 1) ? InputMode::Optional : InputMode::Required;
                const CallOptions o = s.options(Recovery::IsolateTail);
                PlanBuilder b;
                const DomainId doc = b.add_domain("Doc");
                const PortId src = b.source("src");
                const PortId left =
                    outcome_chain(b, doc, src, "left", [](long v) { return int(v / 4); }, o);
                const PortId right =
                    outcome_chain(b, doc, src, "right", [](long v) { return int(v % 4); }, o);
                const PortId out = b.add_port("out", doc);
                std::vector<CallInput> inputs = {{left, lm}, {right, rm}};
                if (swapped) std::swap(inputs[0], inputs[1]);
                // Sees (left, right) whatever the order: 1000 * left + right, missing as 999.
                const CallId add = b.add_call(
                    {"add", CallKind::Map, doc, inputs, {out}, o, actor([swapped](Batch& bt) {
                         for (std::size_t g = 0; g < bt.size(); ++g) {
                             const Value& a = bt.input(g, swapped ? 1 : 0);
                             const Value& c = bt.input(g, swapped ? 0 : 1);
                             const long l = !a.has_value() ? 999 : a.get<long>();
                             const long r = !c.has_value() ? 999 : c.get<long>();
                             bt.set_output(g, 0, Value::of<long>(1000 * l + r));
                         }
                     })});
                const Plan plan = b.build();
                const Run run = run_under(s, plan, all_pairs());
                const auto got = run.items->by_root(out);
                std::uint64_t ran = 0, suppressed = 0, dropped = 0;
                for (long v = 0; v < 16; ++v) {
                    const int lc = int(v / 4), rc = int(v % 4);
                    std::string want;
                    if (lc >= F || rc >= F) {
                        want = "SUPPRESSED";  // failure beats drop
                        ++suppressed;
                    } else if ((lc == D && lm == InputMode::Required) ||
                               (rc == D && rm == InputMode::Required)) {
                        want = "DROPPED";
                        ++dropped;
                    } else {
                        want = present(1000 * (lc == D ? 999 : v) + (rc == D ? 999 : v));
                        ++ran;
                    }
                    CAPTURE(v);
                    CHECK(got.at(v) == want);
                    const RootResult& root = run.root(std::size_t(v));
                    if (lc >= F || rc >= F) {
                        CHECK(root.status == RootStatus::Failed);
                        if (lc < F)
                            CHECK(root.reason ==
                                  (rc == S ? "right.up:" : "right:") + std::to_string(v));
                        if (rc < F)
                            CHECK(root.reason ==
                                  (lc == S ? "left.up:" : "left:") + std::to_string(v));
                    } else {
                        CHECK(root.status ==
                              (want == "DROPPED" ? RootStatus::Dropped : RootStatus::Ok));
                    }
                }
                CHECK_FALSE(run.report.aborted);
                CHECK(run.call(add).grains == ran);
                CHECK(run.call(add).suppressed == suppressed);
                CHECK(run.call(add).dropped == dropped);
                CHECK(run.call(add).failed == 0);
            }
        }
    }
}

// RayOrch: test_transition_algebra.py::test_filter_source_mask_control_cartesian_product_is_closed.
// Matches for a filter whose predicate is its UDF: a source that is not PRESENT passes on as it
// is (the UDF does not run); false drops; true passes the value unchanged. RayOrch's separate
// mask stream is written in rop as a map that computes the mask feeding the predicate (see the
// tutorial test in test_structure.cpp).
TEST_CASE("filter: source outcome x predicate", "[conformance][filter]") {
    for (const Schedule& s : schedules()) {
        INFO(s.label());
        const CallOptions o = s.options(Recovery::IsolateTail);
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const PortId src = b.source("src");
        // v = 2 * source code + keep
        const PortId in = outcome_chain(b, doc, src, "in", [](long v) { return int(v / 2); }, o);
        const PortId out = b.add_port("out", doc);
        const CallId filter =
            b.add_call({"keep", CallKind::Filter, doc, {{in}}, {out}, o, keep_int([](long v) {
                            return v % 2 == 1;
                        })});
        const Plan plan = b.build();
        const Run run = run_under(s, plan, {0, 1, 2, 3, 4, 5, 6, 7});
        const auto got = run.items->by_root(out);
        const std::map<long, std::string> want = {
            {0, "DROPPED"}, {1, "1"},      {2, "DROPPED"},    {3, "DROPPED"},
            {4, "FAILED"},  {5, "FAILED"}, {6, "SUPPRESSED"}, {7, "SUPPRESSED"}};
        CHECK(got == want);
        CHECK(run.call(filter).grains == 2);  // only PRESENT sources run the predicate
        CHECK(run.call(filter).failed == 0);
        CHECK(run.root(1).status == RootStatus::Ok);
        CHECK(run.root(0).status == RootStatus::Dropped);
        CHECK(run.root(4).status == RootStatus::Failed);
        CHECK(run.root(4).reason == "in:4");
        CHECK(run.root(6).reason == "in.up:6");
    }
}

// RayOrch: test_runtime_plan_semantics.py::test_chained_filter_executes_from_control_fixed_point.
// Matches: a DROPPED source passes a second filter as DROPPED; only values both keep survive.
TEST_CASE("filter: chained filters drop what either drops", "[conformance][filter]") {
    for (const Schedule& s : schedules()) {
        INFO(s.label());
        const CallOptions o = s.options(Recovery::IsolateTail);
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const PortId src = b.source("src");
        const PortId member = b.add_port("member", doc);
        const PortId out = b.add_port("out", doc);
        // membership: 10 and 20 (not 30); bools: 10 and 30 (not 20).
        b.add_call({"membership", CallKind::Filter, doc, {{src}}, {member}, o, keep_int([](long v) {
                        return v != 30;
                    })});
        const CallId second =
            b.add_call({"bools", CallKind::Filter, doc, {{member}}, {out}, o, keep_int([](long v) {
                            return v != 20;
                        })});
        const Plan plan = b.build();
        const Run run = run_under(s, plan, {10, 20, 30});
        CHECK(run.items->by_root(out) ==
              std::map<long, std::string>{{10, "10"}, {20, "DROPPED"}, {30, "DROPPED"}});
        CHECK(run.call(second).grains == 2);
        CHECK(run.root(0).status == RootStatus::Ok);
        CHECK(run.root(1).status == RootStatus::Dropped);
        CHECK(run.root(2).status == RootStatus::Dropped);
    }
}
