// The executor is chosen by name (RunOptions::executor, the binary's --executor): the registry
// makes the ones this runtime has and rejects the rest with the list; the inline executor gives
// the thread executor's results, including failures, streamed children and actor setup errors.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <stdexcept>

#include "rop/runtime/executor.h"
#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;
using Catch::Matchers::ContainsSubstring;

TEST_CASE("make_executor: known names, and a clear error for the others", "[executor]") {
    CHECK(executor_names() == std::vector<std::string_view>{"threads", "inline"});
    for (std::string_view name : executor_names()) CHECK(make_executor(name) != nullptr);
    // mpi places actors on the ranks of an MPI job (RunOptions::placement): not an executor.
    CHECK_THROWS_WITH(
        make_executor("mpi"),
        ContainsSubstring("'mpi' is not an executor: it places actors on the ranks") &&
            ContainsSubstring("the executors are threads, inline"));
    CHECK_THROWS_WITH(make_executor("process"),
                      "unknown executor 'process' (available: threads, inline)");
    CHECK_THROWS_WITH(make_executor("thread"),
                      "unknown executor 'thread' (available: threads, inline)");
    RunOptions options;
    CHECK(options.executor == "threads");
}

namespace {

struct Outcome3 {
    std::multiset<std::string> values, dropped_or_failed;
    std::vector<RootStatus> status;
    std::vector<std::string> reasons;
};

// expand (streamed) -> map (fails on 13) -> filter -> reduce, batch 4 mixing roots.
Outcome3 run_with(const std::string& executor) {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const DomainId page = b.add_domain("Page", doc);
    const PortId src = b.source("src");
    const PortId pages = b.add_port("pages", page);
    const PortId doubled = b.add_port("doubled", page);
    const PortId kept = b.add_port("kept", page);
    const PortId total = b.add_port("total", doc);
    const auto o = opts(4, 2);
    b.add_call({"split",
                CallKind::Expand,
                doc,
                {{src}},
                {pages},
                o,
                expand_int([](long x) { return x / 10; }, [](long x, long i) { return x + i; })});
    b.add_call({"double", CallKind::Map, page, {{pages}}, {doubled}, o, actor([](Batch& batch) {
                    for (std::size_t g = 0; g < batch.size(); ++g) {
                        const long x = batch.input(g, 0).get<long>();
                        if (x == 13) {
                            batch.fail_record(g, "thirteen");
                        } else {
                            batch.set_output(g, 0, Value::of<long>(2 * x));
                        }
                    }
                })});
    b.add_call({"keep", CallKind::Filter, page, {{doubled}}, {kept}, o, keep_int([](long x) {
                    return x % 4 == 0;
                })});
    b.add_call({"sum", CallKind::Reduce, doc, {{kept}}, {total}, o, sum_group()});
    const Plan plan = b.build();
    VecSource source({10, 20, 5, 30, 13, 40});
    Recorder rec;
    RunOptions options;
    options.observer = &rec;
    options.executor = executor;
    const RunReport report = run(plan, source, options);
    Outcome3 out;
    out.values = rec.of(total);
    out.dropped_or_failed = rec.of(kept);
    for (const RootResult& r : report.roots) {
        out.status.push_back(r.status);
        out.reasons.push_back(r.reason);
    }
    return out;
}

}  // namespace

TEST_CASE("the inline executor gives the thread executor's outcomes", "[executor]") {
    const Outcome3 threads = run_with("threads");
    const Outcome3 inline_run = run_with("inline");
    CHECK(inline_run.values == threads.values);
    CHECK(inline_run.dropped_or_failed == threads.dropped_or_failed);
    CHECK(inline_run.status == threads.status);
    CHECK(inline_run.reasons == threads.reasons);
    // Root 4 (13) has one child, 13, whose map fails; its batch-mates from other roots do not.
    REQUIRE(threads.status.size() == 6);
    CHECK(threads.status[4] == RootStatus::Failed);
    CHECK(threads.reasons[4] == "thirteen");
    for (std::size_t r : {0u, 1u, 3u, 5u}) CHECK(threads.status[r] == RootStatus::Ok);
    CHECK(threads.status[2] == RootStatus::Ok);  // 5 -> no children: an empty group, summed 0
    CHECK(threads.values ==
          std::multiset<std::string>{"20", "40", "0", "124", "SUPPRESSED", "164"});
}

TEST_CASE(
    "a plan asking for process isolation without a worker command is rejected, not run "
    "in threads",
    "[executor]") {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const PortId src = b.source("src");
    const PortId out = b.add_port("out", doc);
    CallOptions o = opts(1, 1);
    o.isolation = Isolation::Process;
    b.add_call({"ocr", CallKind::Map, doc, {{src}}, {out}, o, map_int([](long x) { return x; })});
    const Plan plan = b.build();
    VecSource source({1});
    CHECK_THROWS_WITH(run(plan, source, RunOptions{}),
                      "run: call 'ocr' asks for isolation process, but RunOptions::worker_argv is "
                      "empty (pipeline_main sets it to the binary itself)");
}

TEST_CASE("an actor that was never built stops the run once; a later setup failure is infra",
          "[executor]") {
    for (const char* executor : {"threads", "inline"}) {
        CAPTURE(executor);
        {
            PlanBuilder b;
            const DomainId doc = b.add_domain("Doc");
            const PortId src = b.source("src");
            const PortId out = b.add_port("out", doc);
            b.add_call(
                {"broken",
                 CallKind::Map,
                 doc,
                 {{src}},
                 {out},
                 opts(2, 1),
                 []() -> std::unique_ptr<Actor> { throw std::runtime_error("no model data"); }});
            const Plan plan = b.build();
            VecSource source({1, 2, 3, 4, 5});
            RunOptions options;
            options.executor = executor;
            options.max_inflight_roots = 2;
            const RunReport report = run(plan, source, options);
            CHECK(report.aborted);
            CHECK(report.abort_reason == "call 'broken': actor setup failed: no model data");
            REQUIRE(report.roots.size() == 2);  // no root was admitted after the abort
            for (const RootResult& r : report.roots) {
                CHECK(r.status == RootStatus::Failed);
                CHECK(r.reason == "run aborted: " + report.abort_reason);
            }
            CHECK(report.calls[0].infra_retries == 0);
        }
        {  // built once, then an InfraFailure replaces it and the next build fails: replayed
            PlanBuilder b;
            const DomainId doc = b.add_domain("Doc");
            const PortId src = b.source("src");
            const PortId out = b.add_port("out", doc);
            auto builds = std::make_shared<int>(0);
            auto thrown = std::make_shared<bool>(false);
            b.add_call({"flaky",
                        CallKind::Map,
                        doc,
                        {{src}},
                        {out},
                        opts(8, 1),
                        [builds, thrown]() -> std::unique_ptr<Actor> {
                            if (++*builds == 2) throw std::runtime_error("server busy");
                            return std::make_unique<FnActor>([thrown](Batch& batch) {
                                if (!*thrown) {
                                    *thrown = true;
                                    throw InfraFailure("device lost");
                                }
                                for (std::size_t g = 0; g < batch.size(); ++g) {
                                    batch.set_output(g, 0, batch.input(g, 0));
                                }
                            });
                        }});
            const Plan plan = b.build();
            VecSource source({1, 2, 3});
            RunOptions options;
            options.executor = executor;
            const RunReport report = run(plan, source, options);
            CHECK_FALSE(report.aborted);
            for (const RootResult& r : report.roots) CHECK(r.status == RootStatus::Ok);
            CHECK(*builds == 3);
            CHECK(report.calls[0].infra_retries == 2);  // the InfraFailure, then the setup failure
        }
    }
}
