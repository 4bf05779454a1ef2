// Recovery end to end: the four policies, their budgets, abort and GroupFailure together, infra
// retries, the generation fence, the default policy and the batching modes.
// RayOrch: test/core/unit/test_engine_recovery.py, test_recovery.py,
// test_runtime_plan_semantics.py; test/experimental/multigrain/test_recovery_policy.py.
#include <atomic>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "conformance.h"

using namespace rop::conformance;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;

namespace {

// Root-Domain identity map "m" with the given options and UDF.
struct Identity {
    Plan plan;
    PortId out = 0;
    CallId m = 0;
    Identity(const CallOptions& o, BatchFn fn) {
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const PortId src = b.source("values");
        out = b.add_port("out", doc);
        m = b.add_call({"m", CallKind::Map, doc, {{src}}, {out}, o, actor(std::move(fn))});
        plan = b.build();
    }
};

void pass_all(Batch& bt) {
    for (std::size_t g = 0; g < bt.size(); ++g) bt.set_output(g, 0, bt.input(g, 0));
}

// Throws (opaque) whenever the batch holds `poison`, after the Grains before it are done.
BatchFn poisoned(long poison) {
    return [poison](Batch& bt) {
        for (std::size_t g = 0; g < bt.size(); ++g) {
            if (bt.input(g, 0).get<long>() == poison) throw std::runtime_error("poison");
            bt.set_output(g, 0, bt.input(g, 0));
        }
    };
}

const std::vector<long> kFive = {0, 1, 2, 3, 4};

std::map<long, std::string> identity_of(const std::vector<long>& v) {
    std::map<long, std::string> m;
    for (long x : v) m[x] = present(x);
    return m;
}

}  // namespace

// RayOrch:
// test_engine_recovery.py::test_recovery_preserves_rpc_membership_order_generations_and_batch_sizes
// (retry_batch, retry_tail);
// test_recovery.py::test_immediate_recovery_precedes_ready_work_and_preserves_exact_batch,
// ::test_retry_tail_yields_to_ready_work_then_preserves_exact_batch.
// Matches in outcomes and counters: a transient error costs one replayed batch and every
// Item ends PRESENT once. (Queue order and RPC membership are not observable through rop's API.)
TEST_CASE("retry_batch, retry_tail: a transient error is replayed, nothing lost or doubled",
          "[conformance][recovery]") {
    for (const Schedule& s : schedules()) {
        for (Recovery policy : {Recovery::RetryBatch, Recovery::RetryTail, Recovery::IsolateTail}) {
            INFO(s.label() << " policy=" << int(policy));
            CallOptions o = s.options(policy);
            o.retries = 1;
            auto failed_once = std::make_shared<std::atomic<bool>>(false);
            Identity p(o, [failed_once](Batch& bt) {
                if (!failed_once->exchange(true)) throw std::runtime_error("transient");
                pass_all(bt);
            });
            const Run run = run_under(s, p.plan, kFive);
            CHECK(run.items->by_root(p.out) == identity_of(kFive));
            CHECK(run.call(p.m).retries == 1);
            CHECK(run.call(p.m).retried_items >= 1);
            CHECK(run.call(p.m).retried_items <= s.batch);
            CHECK(run.call(p.m).failed == 0);
            CHECK_FALSE(run.report.aborted);
            for (const RootResult& r : run.report.roots) CHECK(r.status == RootStatus::Ok);
        }
    }
}

// RayOrch:
// test_engine_recovery.py::test_recovery_preserves_rpc_membership_order_generations_and_batch_sizes
// (isolate_tail, poison);
// test_recovery.py::test_isolate_tail_is_one_retry_then_finite_binary_isolation,
// ::test_isolation_split_releases_once_and_queues_ordered_halves;
// multigrain test_recovery_policy.py::test_inline_record_retry_exhaustion_isolates_only_failed_row.
// Matches: a persistent poison is isolated by replay then bisection; only its Item FAILS and
// only its root fails; a lone Grain gets one replay (two attempts) before it fails.
TEST_CASE("isolate_tail: only the poisoned Item fails, after one retry and bisection",
          "[conformance][recovery]") {
    for (const Schedule& s : schedules()) {
        INFO(s.label());
        // RayOrch's isolate_tail() has one retry built in; rop's is the `retries` option.
        CallOptions o = s.options(Recovery::IsolateTail);
        o.retries = 1;
        Identity p(o, poisoned(2));
        const Run run = run_under(s, p.plan, kFive);
        auto want = identity_of(kFive);
        want[2] = "FAILED";
        CHECK(run.items->by_root(p.out) == want);
        CHECK(run.call(p.m).failed == 1);
        CHECK(run.call(p.m).retries >= 1);
        CHECK_FALSE(run.report.aborted);
        CHECK(run.root(2).status == RootStatus::Failed);
        CHECK_THAT(run.root(2).reason, StartsWith("udf error") && ContainsSubstring("poison"));
        CHECK(run.root(2).failed_call == "m");
        if (s.batch == 1) {
            CHECK(run.root(2).attempts == 2);
            CHECK(run.call(p.m).retries == 1);
        }
        for (std::size_t r : {0, 1, 3, 4}) CHECK(run.root(r).status == RootStatus::Ok);
    }
}

namespace {

// An exhausted retry budget under `policy`: rop's rule (SEMANTICS.md) is that the poisoned root
// alone fails, after exactly retries + 1 attempts, and the run goes on; roots that shared a
// batch with the poison did nothing wrong and end Ok.
void check_exhausted_budget_isolates(Recovery policy) {
    for (const Schedule& s : schedules()) {
        INFO(s.label());
        CallOptions o = s.options(policy);
        o.retries = 2;
        Identity p(o, poisoned(2));
        const Run run = run_under(s, p.plan, kFive);
        CHECK_FALSE(run.report.aborted);
        auto want = identity_of(kFive);
        want[2] = "FAILED";
        CHECK(run.items->by_root(p.out) == want);
        CHECK(run.call(p.m).failed == 1);
        CHECK(run.call(p.m).retries >= 2);
        CHECK(run.root(2).status == RootStatus::Failed);
        CHECK_THAT(run.root(2).reason, StartsWith("udf error: poison"));
        if (s.batch == 1) CHECK(run.root(2).attempts == 3);
        for (std::size_t r : {0, 1, 3, 4}) CHECK(run.root(r).status == RootStatus::Ok);
    }
}

}  // namespace

// RayOrch: test_engine_recovery.py::test_exhausted_budget_never_resets_after_partition;
// test_recovery.py::test_retry_policies_have_finite_exact_attempt_budgets.
// DEPARTS ON PURPOSE (SEMANTICS.md "a failure stays inside its parent"): RayOrch aborts the run
// when retry_batch / retry_tail run out of attempts; rop must isolate before failing anyone:
// "No policy ever fails a root that did nothing wrong: when retry_batch or retry_tail run out
// of attempts, they isolate before failing anyone".
// rop: Grains whose budget is spent and that failed together are bisected before anyone fails
// (Engine::fail_or_bisect), so only the poisoned root fails, whatever the batch cap.
TEST_CASE("retry_batch: an exhausted budget isolates instead of aborting (departs)",
          "[conformance][recovery][departs]") {
    check_exhausted_budget_isolates(Recovery::RetryBatch);
}
TEST_CASE("retry_tail: an exhausted budget isolates instead of aborting (departs)",
          "[conformance][recovery][departs]") {
    check_exhausted_budget_isolates(Recovery::RetryTail);
}

// RayOrch: test_engine_recovery.py::test_abort_preserves_state_but_all_barriered_work_finishes
// (all_barriered=False). Matches: under `abort`, an opaque error no barrier explains aborts the
// run, naming the Call; the guilty root is reported failed with the error.
TEST_CASE("abort: an error from live work aborts the run", "[conformance][recovery][abort]") {
    for (const Schedule& s : schedules()) {
        INFO(s.label());
        Identity p(s.options(Recovery::Abort), poisoned(2));
        const Run run = run_under(s, p.plan, kFive);
        CHECK(run.report.aborted);
        CHECK(run.report.abort_reason == "call 'm': poison");
        CHECK(run.root(2).status == RootStatus::Failed);
        CHECK(run.root(2).reason == "udf error (abort): poison");
        CHECK(run.items->count(p.out, "2") == 0);
    }
}

// RayOrch: test_engine_recovery.py::test_abort_preserves_state_but_all_barriered_work_finishes
// (all_barriered=True), ::test_isolation_decision_uses_live_subset_after_barriers;
// test_runtime_plan_semantics.py::test_group_barrier_partitions_late_failed_lease_before_recovery
// (udf and infrastructure);
// test_recovery.py::test_barriered_recovery_partitions_exact_batch_without_resetting_budget. Page
// 200 raises a GroupFailure; page 201, its sibling, raises an error (opaque, or an InfraFailure)
// only once the barrier is in. Matches: under every policy, abort included, the doomed sibling's
// error neither aborts the run nor fails anyone: 201 is SUPPRESSED (or committed before the
// barrier), the live pages of root 3 that shared its batch are replayed and commit, and only root 2
// fails, with the GroupFailure's reason.
TEST_CASE("GroupFailure + recovery: a doomed sibling's error is suppressed under every policy",
          "[conformance][recovery][barrier][abort]") {
    for (const Schedule& s : schedules()) {
        for (Recovery policy :
             {Recovery::Abort, Recovery::RetryBatch, Recovery::RetryTail, Recovery::IsolateTail}) {
            for (bool infra : {false, true}) {
                INFO(s.label() << " policy=" << int(policy) << " infra=" << infra);
                CallOptions o = s.options(policy);
                o.retries = 1;
                std::atomic<bool> barrier_in{false};
                PlanBuilder b;
                const DomainId doc = b.add_domain("Doc");
                const DomainId page = b.add_domain("Page", doc);
                const PortId src = b.source("src");
                const PortId pages = b.add_port("pages", page);
                const PortId out = b.add_port("out", page);
                b.add_call({"render",
                            CallKind::Expand,
                            doc,
                            {{src}},
                            {pages},
                            o,
                            expand_int([](long d) { return d; },
                                       [](long d, long i) { return 100 * d + i; })});
                const CallId t =
                    b.add_call({"transform",
                                CallKind::Map,
                                page,
                                {{pages}},
                                {out},
                                o,
                                actor([&, infra](Batch& bt) {
                                    for (std::size_t g = 0; g < bt.size(); ++g) {
                                        const long x = bt.input(g, 0).get<long>();
                                        if (x == 200) {
                                            bt.fail_group(g, "page 0 is poison");
                                            continue;
                                        }
                                        if (x == 201 && barrier_in) {
                                            if (infra) throw InfraFailure("device lost");
                                            throw std::runtime_error("model server returned 500");
                                        }
                                        bt.set_output(g, 0, Value::of<long>(x));
                                    }
                                })});
                const Plan plan = b.build();
                const Run run = run_under(s, plan, {2, 3}, [&](PortId port, Outcome outcome) {
                    if (port == out && outcome == Outcome::Failed) barrier_in = true;
                });
                CHECK_FALSE(run.report.aborted);
                const auto items = run.items->of(out);
                CHECK(items.count("FAILED") == 1);
                CHECK(items.count("201") + items.count("SUPPRESSED") == 1);
                for (long x : {300, 301, 302}) CHECK(items.count(present(x)) == 1);
                CHECK(run.call(t).failed == 1);
                CHECK(run.call(t).suppressed == items.count("SUPPRESSED"));
                CHECK(run.root(0).status == RootStatus::Failed);
                CHECK(run.root(0).reason == "page 0 is poison");
                CHECK(run.root(1).status == RootStatus::Ok);
            }
        }
    }
}

namespace {

// Map "m" over five roots whose UDF throws an InfraFailure on root 3: once, or every time.
Run run_infra(const Schedule& s, bool persistent, CallId& m) {
    CallOptions o = s.options(Recovery::Abort);  // infra recovery does not depend on it
    o.infra_retries = 2;
    auto crashed = std::make_shared<std::atomic<bool>>(false);
    Identity p(o, [crashed, persistent](Batch& bt) {
        for (std::size_t g = 0; g < bt.size(); ++g) {
            if (bt.input(g, 0).get<long>() == 3 && (persistent || !crashed->exchange(true))) {
                throw InfraFailure("device lost");
            }
        }
        pass_all(bt);
    });
    m = p.m;
    Run run = run_under(s, p.plan, kFive);
    auto want = identity_of(kFive);
    if (persistent) want[3] = "FAILED";
    CHECK(run.items->by_root(p.out) == want);
    return run;
}

}  // namespace

// RayOrch:
// test_runtime_plan_semantics.py::test_group_barrier_partitions_late_failed_lease_before_recovery
// (infrastructure), ::test_retry_keeps_grain_identity_and_generation_fences_stale_report (an
// infrastructure retry under RecoveryPolicy.abort(infra_retries=1)).
// Matches: an infra failure replays the batch on a fresh actor (generation + 1), whatever the
// UDF recovery policy (abort here), and counts as an infra retry, not a UDF retry.
TEST_CASE("infra failures: replayed on a fresh actor, whatever the policy",
          "[conformance][recovery][infra]") {
    for (const Schedule& s : schedules()) {
        INFO(s.label());
        CallId m = 0;
        const Run run = run_infra(s, false, m);
        CHECK_FALSE(run.report.aborted);
        CHECK(run.call(m).retries == 0);
        CHECK(run.call(m).infra_retries == 1);
        CHECK(run.call(m).failed == 0);
        for (const RootResult& r : run.report.roots) CHECK(r.status == RootStatus::Ok);
    }
}

// RayOrch: test_recovery.py::test_infrastructure_policy_preflight_does_not_mutate_dispatch_group:
// a spent infra budget allows no retry, and RayOrch then ends the run.
// DEPARTS ON PURPOSE (SEMANTICS.md, infra failure row): "when the same Grains keep bringing
// their actor down, bisect to the culprit and fail its root with an infra reason"; the other
// roots end Ok and the run goes on.
// rop: an exhausted infra budget bisects the Grains that keep bringing their actor down
// (Engine::fail_or_bisect) and fails only the culprit, with the infra reason.
TEST_CASE("infra failures: an exhausted budget fails only the culprit (departs)",
          "[conformance][recovery][infra][departs]") {
    for (const Schedule& s : schedules()) {
        INFO(s.label());
        CallId m = 0;
        const Run run = run_infra(s, true, m);
        CHECK_FALSE(run.report.aborted);
        CHECK(run.call(m).retries == 0);
        CHECK(run.call(m).infra_retries >= 2);
        CHECK(run.call(m).failed == 1);
        CHECK(run.root(3).status == RootStatus::Failed);
        CHECK_THAT(run.root(3).reason, StartsWith("infra: device lost"));
        for (std::size_t r : {0, 1, 2, 4}) CHECK(run.root(r).status == RootStatus::Ok);
    }
}

// RayOrch:
// test_runtime_plan_semantics.py::test_retry_keeps_grain_identity_and_generation_fences_stale_report.
// Matches: a timed-out attempt is replayed with generation + 1 for the same Grains; the old
// attempt's late report is fenced off (counted as stale) and each Item commits once.
TEST_CASE("generation fence: a late report from a timed-out attempt is stale",
          "[conformance][recovery][fence]") {
    for (const Schedule& s : schedules()) {
        INFO(s.label());
        CallOptions o = s.options(Recovery::IsolateTail);
        o.timeout = std::chrono::milliseconds(100);
        o.infra_retries = 3;
        auto slow_once = std::make_shared<std::atomic<bool>>(false);
        Identity p(o, [slow_once](Batch& bt) {
            if (!slow_once->exchange(true))
                std::this_thread::sleep_for(std::chrono::milliseconds(300));
            pass_all(bt);
        });
        const Run run = run_under(s, p.plan, {0, 1, 2});
        CHECK(run.items->by_root(p.out) == identity_of({0, 1, 2}));
        CHECK(run.call(p.m).stale_reports >= 1);
        CHECK(run.call(p.m).infra_retries >= 1);
        CHECK(run.call(p.m).failed == 0);
        for (const RootResult& r : run.report.roots) CHECK(r.status == RootStatus::Ok);
    }
}

// RayOrch: the default RecoveryPolicy (rayorch.recovery: abort) as used by every test above that
// builds a Pipeline without ray_options(recovery=...).
// DEPARTS ON PURPOSE (SEMANTICS.md "The default policy isolates (RayOrch's default is abort)"):
// a Call with default options isolates a poisoned Grain instead of aborting the run.
TEST_CASE("default recovery policy isolates; RayOrch's default aborts (departs)",
          "[conformance][recovery][default][departs]") {
    CHECK(CallOptions{}.recovery == Recovery::IsolateTail);
    for (const Schedule& s : schedules()) {
        INFO(s.label());
        CallOptions o;  // the default policy, on purpose
        o.batch = s.batch;
        o.actors = s.actors;
        Identity p(o, poisoned(2));
        const Run run = run_under(s, p.plan, kFive);
        CHECK_FALSE(run.report.aborted);
        CHECK(run.root(2).status == RootStatus::Failed);
        for (std::size_t r : {0, 1, 3, 4}) CHECK(run.root(r).status == RootStatus::Ok);
    }
}

// RayOrch: test_recovery.py::test_ready_queue_batches_across_parent_boundaries_in_completion_order,
// ::test_normal_queues_preserve_call_fifo_and_do_not_scan_other_calls.
// Matches: any_parent batches may mix parents (and mixed_parent_batches counts exactly those);
// single_parent never does; the Items are the same either way.
TEST_CASE("batching: any_parent mixes parents, single_parent never; same Items",
          "[conformance][batching]") {
    for (const Schedule& s : schedules()) {
        for (Batching mode : {Batching::AnyParent, Batching::SingleParent}) {
            INFO(s.label() << " single_parent=" << (mode == Batching::SingleParent));
            CallOptions o = s.options(Recovery::IsolateTail);
            o.batching = mode;
            auto mixed = std::make_shared<std::atomic<int>>(0);
            PlanBuilder b;
            const DomainId doc = b.add_domain("Doc");
            const DomainId page = b.add_domain("Page", doc);
            const PortId src = b.source("src");
            const PortId pages = b.add_port("pages", page);
            const PortId out = b.add_port("out", page);
            b.add_call(
                {"split",
                 CallKind::Expand,
                 doc,
                 {{src}},
                 {pages},
                 o,
                 expand_int([](long d) { return d; }, [](long d, long i) { return 100 * d + i; })});
            const CallId m = b.add_call(
                {"m", CallKind::Map, page, {{pages}}, {out}, o, actor([mixed](Batch& bt) {
                     std::set<EntityId> parents;
                     for (std::size_t g = 0; g < bt.size(); ++g) parents.insert(bt.info(g).parent);
                     if (parents.size() > 1) ++*mixed;
                     pass_all(bt);
                 })});
            const Plan plan = b.build();
            const Run run = run_under(s, plan, {3, 1, 4, 1, 5, 2, 6});
            CHECK(run.items->of(out).size() == 22);
            CHECK(run.call(m).mixed_parent_batches == std::uint64_t(mixed->load()));
            if (mode == Batching::SingleParent || s.batch == 1) CHECK(mixed->load() == 0);
            CHECK(run.call(m).grains == 22);
        }
    }
}

// RayOrch:
// test_runtime_plan_semantics.py::test_worker_classifies_udf_and_contract_failures_at_one_boundary,
// ::test_udf_raising_contract_error_name_is_still_a_udf_failure.
// Matches: a UDF that leaves a Grain without a result broke the ABI (a contract error: rop
// fails the run fast, naming the Call); any exception the UDF throws is a UDF error handled
// by the recovery policy, whatever its type is called.
TEST_CASE("contract errors fail fast; a user exception is a UDF error whatever its name",
          "[conformance][recovery][contract]") {
    struct ContractError : std::logic_error {  // the user's own type, not rop's
        using std::logic_error::logic_error;
    };
    for (const Schedule& s : schedules()) {
        INFO(s.label());
        Identity broken(s.options(Recovery::IsolateTail), [](Batch&) {});
        VecSource source(kFive);
        RunOptions options;
        if (s.shuffled) {
            ShuffledExecutor executor(s.seed);
            CHECK_THROWS_WITH(run(broken.plan, source, options, executor),
                              ContainsSubstring("call 'm'") && ContainsSubstring("no result"));
        } else {
            CHECK_THROWS_WITH(run(broken.plan, source, options),
                              ContainsSubstring("call 'm'") && ContainsSubstring("no result"));
        }
        Identity user(s.options(Recovery::IsolateTail), [](Batch& bt) {
            for (std::size_t g = 0; g < bt.size(); ++g) {
                if (bt.input(g, 0).get<long>() == 1)
                    throw ContractError("a user exception, not an ABI violation");
                bt.set_output(g, 0, bt.input(g, 0));
            }
        });
        const Run run = run_under(s, user.plan, kFive);
        CHECK_FALSE(run.report.aborted);
        CHECK(run.root(1).status == RootStatus::Failed);
        CHECK_THAT(run.root(1).reason,
                   StartsWith("udf error") && ContainsSubstring("not an ABI violation"));
    }
}
