// The scheduler and the committer alone, without run() or an actor (issue 33 item 1): the real
// parts wired as the Engine wires them (the store, the resolver, the root sinks), a fake
// executor that only keeps what it is given, and reports written by the test. So each rule is
// seen at the part that owns it: batch building and queue order at the scheduler; the fence,
// the pre-scan, multi-output atomicity and recovery at the committer.
#include <catch2/catch_test_macros.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/committer.h"
#include "core/resolver.h"
#include "core/root_sinks.h"
#include "core/scheduler.h"
#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::detail;
using namespace rop::runtime::test;

namespace {

// Keeps the jobs submitted; runs nothing.
struct HoldingExecutor final : Executor {
    void start(const Plan&, ReportQueue&) override {}
    void submit(BatchJob& job) override { submitted.push_back(&job); }
    void abandon(BatchJob&) override {}
    void stop() override {}
    std::vector<BatchJob*> submitted;
};

// Doc -> map "m" (two outputs), or Doc -> expand "split" (Page) -> map "m" over pages.
Plan doc_map(CallOptions o) {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const PortId src = b.source("src");
    const PortId x = b.add_port("x", doc);
    const PortId y = b.add_port("y", doc);
    b.add_call({"m", CallKind::Map, doc, {{src}}, {x, y}, o, map_int([](long v) { return v; })});
    return b.build();
}
Plan page_map(CallOptions o) {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const DomainId page = b.add_domain("Page", doc);
    const PortId src = b.source("src");
    const PortId pages = b.add_port("pages", page);
    const PortId x = b.add_port("x", page);
    b.add_call({"split",
                CallKind::Expand,
                doc,
                {{src}},
                {pages},
                opts(64, 1),
                expand_int([](long v) { return v; }, [](long, long i) { return i; })});
    b.add_call({"m", CallKind::Map, page, {{pages}}, {x}, o, map_int([](long v) { return v; })});
    return b.build();
}

// The Engine's wiring, without its loop.
struct Parts final : StoreListener, TaskDrain {
    Parts(Plan p, std::vector<long> roots, std::size_t inflight = 64)
        : plan(std::move(p)), source(std::move(roots)) {
        options.max_inflight_roots = inflight;
        sinks.open();
    }
    void root_item(const std::vector<std::uint32_t>& s, EntityId e, const Value& v) override {
        sinks.buffer(s, e, v);
    }
    void root_complete(const RootState& root) override { done.push_back(root.result); }
    void drain() override { resolver.drain(); }

    // The ordinals (roots, or pages as root*100+page) of a job's Grains, in batch order.
    std::vector<long> names(const BatchJob& job) const {
        std::vector<long> out;
        for (const GrainInfo& info : job.infos) {
            const EntityId parent = store.parent(info.entity);
            out.push_back(parent == kNoEntity
                              ? store.ordinal(info.entity)
                              : 100 * store.ordinal(parent) + store.ordinal(info.entity));
        }
        return out;
    }
    // A Done report: every Grain Ok with its input on every output, but those in `failed`.
    void report_ok(BatchJob& job, const std::vector<std::size_t>& record_failed = {}) {
        job.clear_results();
        for (std::size_t g = 0; g < job.size(); ++g) {
            job.results[g] = GrainResult::Ok;
            for (std::uint32_t o = 0; o < job.num_outputs; ++o) {
                job.outputs[g * job.num_outputs + o] = job.inputs[g * job.num_inputs];
            }
        }
        for (std::size_t g : record_failed) {
            job.results[g] = GrainResult::RecordFailed;
            job.reasons.emplace_back(static_cast<std::uint32_t>(g), "bad " + std::to_string(g));
        }
        Report r;
        r.job = &job;
        committer.on_report(r);
    }
    BatchJob* take() {
        REQUIRE_FALSE(executor.submitted.empty());
        BatchJob* job = executor.submitted.front();
        executor.submitted.erase(executor.submitted.begin());
        return job;
    }

    Plan plan;
    RunOptions options;
    VecSource source;
    HoldingExecutor executor;
    LineageStore store{plan, options, *this};
    RootSinks sinks{plan, options, store};
    Scheduler scheduler{plan, options, source, executor, store, sinks, *this};
    Committer committer{options, store, scheduler, *this};
    Resolver resolver{store, scheduler};
    std::vector<RootResult> done;
};

// Pages: the expand's jobs are reported with `children[r]` children for root r.
void expand(Parts& parts, const std::vector<long>& children) {
    parts.scheduler.dispatch();
    std::size_t next = 0;
    while (next < children.size()) {
        BatchJob* job = parts.take();
        REQUIRE(job->call == 0);
        job->clear_results();
        for (std::size_t g = 0; g < job->size(); ++g, ++next) {
            for (long i = 0; i < children[next]; ++i) {
                job->children.push_back({static_cast<std::uint32_t>(g),
                                         static_cast<std::uint32_t>(i), Value::of<long>(i)});
            }
            job->results[g] = GrainResult::Ok;
        }
        Report r;
        r.job = job;
        parts.committer.on_report(r);
    }
}

}  // namespace

TEST_CASE("scheduler alone: admission stops at max_inflight_roots", "[runtime][parts]") {
    Parts parts(doc_map(opts(4, 1)), {1, 2, 3, 4, 5}, 2);
    parts.scheduler.admit();
    CHECK(parts.store.inflight_roots() == 2u);
    CHECK(parts.store.next_ordinal() == 2u);
    CHECK_FALSE(parts.scheduler.source_exhausted());
}

TEST_CASE("scheduler alone: batches up to the cap, FIFO across roots, two per actor",
          "[runtime][parts]") {
    // 7 roots of 100 in flight; batch 3, one actor: a full batch, a second one queued behind
    // it; the seventh root waits (a partial batch does not go while one is in flight).
    Parts parts(doc_map(opts(3, 1)), std::vector<long>(100, 1), 7);
    parts.scheduler.admit();
    parts.scheduler.dispatch();
    REQUIRE(parts.executor.submitted.size() == 2u);
    CHECK(parts.names(*parts.executor.submitted[0]) == std::vector<long>{0, 1, 2});
    CHECK(parts.names(*parts.executor.submitted[1]) == std::vector<long>{3, 4, 5});
    CHECK(parts.scheduler.counts(0).batches == 2u);
    // Every Grain of a dispatched batch is in flight, with the generation the batch carries.
    for (const BatchJob* job : parts.executor.submitted) {
        for (std::size_t g = 0; g < job->size(); ++g) {
            CHECK(parts.store.grain(0, job->grains[g]).phase == GrainPhase::InFlight);
            CHECK(parts.store.is_live(0, job->grains[g], job->generations[g]));
        }
    }
}

TEST_CASE(
    "scheduler alone: an immediate replay goes before the ready queue, a deferred one "
    "after a full batch",
    "[runtime][parts]") {
    Parts parts(doc_map(opts(2, 1)), std::vector<long>(100, 1), 12);
    parts.scheduler.admit();
    parts.scheduler.dispatch();  // [0,1] [2,3]
    BatchJob* first = parts.take();
    BatchJob* second = parts.take();
    std::vector<std::uint32_t> a(first->grains), b(second->grains);
    parts.scheduler.finished(*first);
    parts.scheduler.finished(*second);
    parts.scheduler.recycle(first);
    parts.scheduler.recycle(second);
    parts.scheduler.requeue(0, b, /*deferred=*/true);
    parts.scheduler.requeue(0, a, /*deferred=*/false);
    for (std::uint32_t local : a) CHECK(parts.store.grain(0, local).generation == 1u);
    parts.scheduler.dispatch();
    REQUIRE(parts.executor.submitted.size() == 2u);
    CHECK(parts.names(*parts.executor.submitted[0]) == std::vector<long>{0, 1});  // immediate
    CHECK(parts.names(*parts.executor.submitted[1]) == std::vector<long>{4, 5});  // a full batch
    parts.scheduler.finished(*parts.take());
    parts.scheduler.dispatch();
    // One full batch per actor has passed the deferred unit: it goes next (rule 7).
    CHECK(parts.names(*parts.executor.submitted.back()) == std::vector<long>{2, 3});
}

TEST_CASE("scheduler alone: the least served root first; single_parent stops at another parent",
          "[runtime][parts]") {
    SECTION("any_parent: a small root's pages pass a big root's backlog") {
        // More roots wait in the source, so this is not the Call's tail (where one batch at a
        // time shrinks to what is left): two batches per actor.
        Parts parts(page_map(opts(4, 1)), {10, 2, 1, 1}, 2);
        parts.scheduler.admit();
        expand(parts, {10, 2});
        parts.scheduler.dispatch();
        REQUIRE(parts.executor.submitted.size() == 2u);
        CHECK(parts.names(*parts.executor.submitted[0]) == std::vector<long>{0, 1, 2, 3});
        CHECK(parts.names(*parts.executor.submitted[1]) == std::vector<long>{100, 101, 4, 5});
        CHECK(parts.scheduler.counts(1).mixed_parent_batches == 1u);
    }
    SECTION("single_parent: a batch holds one parent's pages") {
        CallOptions o = opts(4, 1);
        o.batching = Batching::SingleParent;
        Parts parts(page_map(o), {2, 3});
        parts.scheduler.admit();
        expand(parts, {2, 3});
        parts.scheduler.dispatch();
        BatchJob* first = parts.take();
        CHECK(parts.names(*first) == std::vector<long>{0, 1});
        parts.report_ok(*first);
        parts.scheduler.dispatch();
        CHECK(parts.names(*parts.take()) == std::vector<long>{100, 101, 102});
        CHECK(parts.scheduler.counts(1).mixed_parent_batches == 0u);
    }
}

TEST_CASE("committer alone: the fence, and all outputs of a Grain or none", "[runtime][parts]") {
    Parts parts(doc_map(opts(3, 1)), {7, 8, 9}, 3);
    parts.scheduler.admit();
    parts.scheduler.dispatch();
    BatchJob* job = parts.take();
    REQUIRE(job->size() == 3u);
    // Grain 1 reports with a generation it was not dispatched with: stale, not a fact.
    ++job->generations[1];
    parts.report_ok(*job, /*record_failed=*/{2});
    const PortId x = 1, y = 2;                                // (port 0 is the source)
    CHECK(parts.store.outcome(x, 0) == Outcome::Present);     // x of root 0
    CHECK(parts.store.outcome(y, 0) == Outcome::Present);     // y of root 0
    CHECK(parts.store.outcome(x, 1) == Outcome::Unresolved);  // stale: nothing published
    CHECK(parts.store.outcome(y, 1) == Outcome::Unresolved);
    CHECK(parts.store.outcome(x, 2) == Outcome::Failed);  // failed: every output FAILED
    CHECK(parts.store.outcome(y, 2) == Outcome::Failed);
    CHECK(parts.committer.counts(0).stale_reports == 1u);
    CHECK(parts.store.counts(0).grains == 2u);
    CHECK(parts.store.counts(0).failed == 1u);
    // Pre-scan: the failure is committed first, so root 2 is done before root 0.
    REQUIRE(parts.done.size() == 2u);
    CHECK(parts.done[0].name == "root2");
    CHECK(parts.done[0].status == RootStatus::Failed);
    CHECK(parts.done[0].reason == "bad 2");
    CHECK(parts.done[1].name == "root0");
    CHECK(parts.done[1].status == RootStatus::Ok);
}

TEST_CASE("committer alone: a GroupFailure's barrier comes before its batch's successes",
          "[runtime][parts]") {
    // Two parents' pages in one batch; page 0 of root 0 raises a GroupFailure: its sibling in
    // the same batch is SUPPRESSED (pre-scan: the barrier first), root 1's page commits.
    Parts parts(page_map(opts(8, 1)), {2, 1});
    parts.scheduler.admit();
    expand(parts, {2, 1});
    parts.scheduler.dispatch();
    BatchJob* job = parts.take();
    REQUIRE(parts.names(*job) == std::vector<long>{0, 1, 100});
    job->clear_results();
    for (std::size_t g = 0; g < job->size(); ++g) {
        job->results[g] = GrainResult::Ok;
        job->outputs[g] = job->inputs[g];
    }
    job->results[0] = GrainResult::GroupFailed;
    job->reasons.emplace_back(0, "the whole document is bad");
    Report r;
    r.job = job;
    parts.committer.on_report(r);
    const PortId x = 2;
    CHECK(parts.store.outcome(x, job->grains[0]) == Outcome::Failed);
    CHECK(parts.store.outcome(x, job->grains[1]) == Outcome::Suppressed);
    CHECK(parts.store.outcome(x, job->grains[2]) == Outcome::Present);
    CHECK(parts.store.counts(1).suppressed == 1u);
    CHECK(parts.store.barred(1, parts.store.entity_of(1, job->grains[1])));
}

TEST_CASE("committer alone: retry_batch replays, then bisects, never failing a batch-mate",
          "[runtime][parts]") {
    CallOptions o = opts(4, 1);
    o.recovery = Recovery::RetryBatch;
    o.retries = 1;
    Parts parts(doc_map(o), {1, 2, 3, 4}, 4);
    parts.scheduler.admit();
    parts.scheduler.dispatch();
    auto fail = [&](BatchJob& job) {
        job.clear_results();
        job.error = BatchError::Opaque;
        job.error_message = "boom";
        Report r;
        r.job = &job;
        parts.committer.on_report(r);
    };
    BatchJob* job = parts.take();
    REQUIRE(job->size() == 4u);
    fail(*job);  // attempt 1 of 2: the whole batch again, at once
    CHECK(parts.committer.counts(0).retries == 1u);
    CHECK(parts.committer.counts(0).retried_items == 4u);
    parts.scheduler.dispatch();
    BatchJob* again = parts.take();
    CHECK(parts.names(*again) == std::vector<long>{0, 1, 2, 3});
    for (std::size_t g = 0; g < again->size(); ++g) CHECK(again->generations[g] == 1u);
    fail(*again);  // out of retries together: halves, nobody failed yet
    CHECK(parts.store.counts(0).failed == 0u);
    CHECK(parts.committer.counts(0).retries == 3u);  // + the two halves
    parts.scheduler.dispatch();
    BatchJob* half = parts.take();
    CHECK(parts.names(*half) == std::vector<long>{0, 1});
}
