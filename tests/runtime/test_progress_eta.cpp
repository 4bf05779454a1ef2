// The run's ETA (estimate_remaining_s, the progress header): counted in Grains when the run
// counts them (Progress::work), with the children an expand announced through
// rop::expected_children, else in roots. A table of snapshots, then a real run where one big
// root is most of the work: the Grain ETA is close to right where the root ETA is far off.
#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "gate.h"
#include "rop/runtime/pipeline_main.h"
#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;

namespace {

struct EtaCase {
    const char* what;
    std::optional<std::size_t> roots_total;
    std::size_t admitted, done;
    double elapsed_s;
    ProgressWork work;
    std::optional<double> expected;
};

// A snapshot of `total` roots (`resumed` of them listed as finished by a resumed journal),
// `admitted` and `done` of them, `elapsed_s` in, with the run's work counts.
Progress at(std::optional<std::size_t> total, std::size_t resumed, std::size_t admitted,
            std::size_t done, double elapsed_s, const ProgressWork& work) {
    Progress p;
    p.roots_total = total;
    p.roots_resumed = resumed;
    p.roots_admitted = admitted;
    p.roots_done = done;
    p.elapsed_s = elapsed_s;
    p.work = work;
    return p;
}

}  // namespace

TEST_CASE("progress ETA: Grains when counted, else roots", "[runtime][progress]") {
    const EtaCase cases[] = {
        {"no source size: unknown", std::nullopt, 4, 2, 2.0, {10, 2, 8, 4, 4}, std::nullopt},
        {"nothing elapsed: unknown", 10, 0, 0, 0.0, {}, std::nullopt},
        {"every root done", 10, 10, 10, 3.0, {30, 10, 30, 0, 0}, 0.0},
        // No Grain counts (an executor that does not report them): roots per second.
        {"roots: 4 of 10 in 2 s", 10, 6, 4, 2.0, {}, 3.0},
        {"roots: none done yet", 10, 3, 0, 2.0, {}, std::nullopt},
        // 2 roots done with 10 Grains each, 8 to come: 10 per root, 10 Grains/s.
        {"grains: unseen roots weigh the mean", 10, 2, 2, 2.0, {20, 2, 20, 0, 0}, 8.0},
        // 9 small roots (3 Grains each) done; the big one has 21 Grains and announced 427
        // children of which 10 came (2 Grains each): 21 + 417 x 2 = 855 to go in it.
        {"grains: an announced expand weighs its children",
         10,
         10,
         9,
         4.2,
         {42, 9, 27, 21, 855},
         84.0},
        // The same without the hint: it looks nearly done.
        {"grains: without the hint", 10, 10, 9, 4.2, {42, 9, 27, 21, 21}, 0.6},
        // Before any root is done, Grains in flight give a rate and a total: 2 roots seen with
        // 10 Grains, 2 more to come like them, 5 sealed a second.
        {"grains: no root done yet", 4, 2, 0, 1.0, {5, 0, 0, 10, 10}, 3.0},
        // Resumed roots count as done and admitted but hold no Grains of this run, and do not
        // pull the mean per root down: (10 + 2) / 2 roots run, 4 unseen.
        {"grains: resumed roots", 10, 6, 5, 1.0, {10, 1, 10, 2, 2}, 2.6},
    };
    for (const EtaCase& c : cases) {
        CAPTURE(c.what);
        const Progress p = at(c.roots_total, 0, c.admitted, c.done, c.elapsed_s, c.work);
        const std::optional<double> eta = estimate_remaining_s(p);
        REQUIRE(eta.has_value() == c.expected.has_value());
        if (eta) CHECK(std::abs(*eta - *c.expected) < 0.01);
    }
}

// --resume: the journal lists `resumed` of the 10 roots as finished; the source reaches them in
// its order, each counted done and admitted at once, with no Grain and no time of this run.
TEST_CASE("progress ETA: resumed roots are no work of this run", "[runtime][progress]") {
    struct ResumedCase {
        const char* what;
        std::size_t resumed, admitted, done;
        double elapsed_s;
        ProgressWork work;
        double expected;
    };
    const ResumedCase cases[] = {
        // Roots 4-9 resumed, not reached yet: 2 roots seen with 12 Grains, 2 unseen to run
        // (not 8): 12 + 2 x 6 = 24 Grains, 10 sealed a second (5.0 when counting all 8).
        {"grains: resumed roots ahead", 6, 2, 1, 1.0, {10, 1, 10, 2, 2}, 1.4},
        // Roots 0-5 resumed and skipped already: the same two roots seen, two unseen.
        {"grains: resumed roots behind", 6, 8, 7, 1.0, {10, 1, 10, 2, 2}, 1.4},
        // By roots: 1 run in 2 s, roots 4-9 ahead resumed: 3 to run at 0.5 a second (2 s each).
        {"roots: resumed roots ahead", 6, 2, 1, 2.0, {0, 1, 0, 0, 0}, 6.0},
        // Every root but the resumed ones done: nothing left, though 6 are not reached yet.
        {"roots: only resumed roots left", 6, 4, 4, 2.0, {0, 4, 0, 0, 0}, 0.0},
    };
    for (const ResumedCase& c : cases) {
        CAPTURE(c.what);
        const Progress p = at(10, c.resumed, c.admitted, c.done, c.elapsed_s, c.work);
        const std::optional<double> eta = estimate_remaining_s(p);
        REQUIRE(eta.has_value());
        CHECK(std::abs(*eta - c.expected) < 0.01);
    }
}

TEST_CASE("progress ETA: the header and the per-page Call's total say it", "[runtime][progress]") {
    const std::vector<ProgressCall> calls = {{"pages", true}, {"work", false}};
    Progress p;
    p.calls.resize(2);
    p.calls[0].grains = 10;
    p.calls[1].grains = 32;
    p.roots_total = 10;
    p.roots_admitted = 10;
    p.roots_done = 9;
    p.elapsed_s = 4.2;
    p.work = {42, 9, 27, 21, 855};
    // 882 Grains in all, 42 sealed: "work" keeps its 32/42 share of them.
    CHECK(render_progress(p, calls) ==
          std::vector<std::string>{"roots 9/10 done, 1 in flight, 4.2s, ETA 1m24s",
                                   "  pages    10/10  2.4/s  done",
                                   "  work   32/~672  7.6/s  ETA 1m24s"});
    // Without Grain counts: roots, and the per-page total from 9.5 roots' worth.
    p.work = {};
    CHECK(render_progress(p, calls) ==
          std::vector<std::string>{"roots 9/10 done, 1 in flight, 4.2s, ETA 1s",
                                   "  pages   10/10  2.4/s  done",
                                   "  work   32/~34  7.6/s  ETA 1s"});
    // With the result store: the Grains it answered beside the count.
    p.calls[1].cache_hits = 30;
    CHECK(render_progress(p, calls)[2] == "  work   32/~34  7.6/s  ETA 1s  30 from the store");
}

namespace {

// The progress snapshots a run took, which a UDF can wait on.
struct Seen {
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<Progress> snapshots;
    std::atomic<bool> waited_in_vain{false};
    // Waits for a snapshot that `pred` accepts.
    void wait_for(const std::function<bool(const Progress&)>& pred) {
        std::unique_lock<std::mutex> lock(mutex);
        if (!changed.wait_for(lock, kHangGuard,
                              [&] { return !snapshots.empty() && pred(snapshots.back()); })) {
            waited_in_vain = true;
        }
    }
};

}  // namespace

// Doc(n) -> n pages after rop::expected_children(n) (a PDF renders its pages as it goes); each
// page through one map Call. The big root emits its pages in steps, each once a progress snapshot
// has seen the pages before it done, so the snapshots fall at known points of the work however
// fast the machine is; the ETAs are judged against the end the snapshot's own pace gives for the
// work the test knows is there (268 Grains: 9 x (1 + 2) + 1 + 240), not against a clock.
TEST_CASE("progress ETA: one big root with a known page count", "[runtime][progress]") {
    constexpr long kSmall = 2, kBig = 240, kStep = 24;  // kStep: a multiple of work's batch
    constexpr std::uint64_t kSmallGrains = 9 * (1 + kSmall), kTotal = kSmallGrains + 1 + kBig;
    auto seen = std::make_shared<Seen>();
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const DomainId page = b.add_domain("Page", doc);
    const PortId src = b.source("src");
    const PortId pages = b.add_port("pages", page);
    const PortId out = b.add_port("out", page);
    // Two actors: the big root's expand waits for the small roots, which the other one expands.
    // A timeout (never reached) keeps each batch on its own actor: a streaming expand without
    // one lends its actor to the Call's queued batches, and a small root's batch could then wait
    // inside the big one's emit_child.
    CallOptions expand = opts(1, 2);
    expand.timeout = std::chrono::hours(1);
    b.add_call({"pages", CallKind::Expand, doc, {{src}}, {pages}, expand, actor([seen](Batch& bt) {
                    for (std::size_t g = 0; g < bt.size(); ++g) {
                        const long n = bt.input(g, 0).get<long>();
                        rop::expected_children(static_cast<std::uint64_t>(n));
                        // The big root: once the small ones are done ("9 of 10 done"), then
                        // kStep pages at a time, each step once a snapshot saw the last one done.
                        if (n == kBig) {
                            seen->wait_for([](const Progress& p) { return p.roots_done == 9; });
                        }
                        for (long i = 0; i < n; ++i) {
                            if (n == kBig && i > 0 && i % kStep == 0) {
                                const auto sealed = kSmallGrains + static_cast<std::uint64_t>(i);
                                seen->wait_for([sealed](const Progress& p) {
                                    return p.work.sealed >= sealed;
                                });
                            }
                            bt.emit_child(g, Value::of<long>(i));
                        }
                        bt.finish_children(g);
                    }
                })});
    b.add_call({"work", CallKind::Map, page, {{pages}}, {out}, opts(4, 1), actor([](Batch& bt) {
                    for (std::size_t g = 0; g < bt.size(); ++g) bt.set_output(g, 0, bt.input(g, 0));
                })});
    const Plan plan = b.build();
    // The big document last: the small ones finish first and the roots say "9 of 10 done".
    std::vector<long> docs(9, kSmall);
    docs.push_back(kBig);
    VecSource source(docs);
    RunOptions options;
    options.executor = "threads";
    options.progress_interval = std::chrono::milliseconds(1);
    options.on_progress = [seen](const Progress& p) {
        {
            std::lock_guard<std::mutex> lock(seen->mutex);
            seen->snapshots.push_back(p);
        }
        seen->changed.notify_all();
    };
    const RunReport report = run(plan, source, options);
    CHECK_FALSE(seen->waited_in_vain.load());
    REQUIRE(report.roots.size() == 10);
    REQUIRE(report.calls[1].grains == static_cast<std::uint64_t>(9 * kSmall + kBig));

    // Every snapshot in the middle of the work: the Grain ETA predicts the end within a factor
    // of 2; the root ETA, from the same snapshot without Grains, says it is nearly over. The end
    // is where the pace so far reaches all the work. The big root's steps put at least 4
    // snapshots in the middle (at 48, 72, 96 and 120 of its pages).
    std::size_t judged = 0;
    const double total = static_cast<double>(kTotal);
    for (const Progress& p : seen->snapshots) {
        const double sealed = static_cast<double>(p.work.sealed);
        if (sealed < 0.25 * total || sealed > 0.6 * total) continue;
        CAPTURE(p.elapsed_s, p.roots_done, p.work.sealed, p.work.inflight_grains,
                p.work.inflight_estimate);
        ++judged;
        REQUIRE(p.roots_done == 9);
        const double end = p.elapsed_s * total / sealed;
        const std::optional<double> eta = estimate_remaining_s(p);
        REQUIRE(eta.has_value());
        const double predicted_end = p.elapsed_s + *eta;
        CHECK(predicted_end > 0.5 * end);
        CHECK(predicted_end < 2.0 * end);
        Progress by_roots = p;
        by_roots.work = {};
        const std::optional<double> root_eta = estimate_remaining_s(by_roots);
        REQUIRE(root_eta.has_value());
        CHECK(p.elapsed_s + *root_eta < 0.7 * end);
    }
    CHECK(judged >= 4);
}

namespace {

struct ModelEtaCase {
    const char* what;
    std::size_t admitted, done;  // roots, of 10
    double elapsed_s;
    std::uint64_t cheap_done, dear_done;  // Grains done of the Calls' 100 and 100 predicted
    std::optional<double> expected;
};

// A snapshot of 10 roots: `admitted` and `done` of them, `elapsed_s` in, each Call's Grains done.
Progress snapshot(std::size_t admitted, std::size_t done, double elapsed_s,
                  std::vector<std::uint64_t> grains) {
    Progress p;
    p.roots_total = 10;
    p.roots_admitted = admitted;
    p.roots_done = done;
    p.elapsed_s = elapsed_s;
    p.calls.resize(grains.size());
    for (std::size_t c = 0; c < grains.size(); ++c) p.calls[c].grains = grains[c];
    return p;
}

}  // namespace

// --with-estimate: the share done is each Call's Grains over its predicted ones, weighted by its
// predicted busy time; the predicted makespan's time left counts until a fifth is done.
TEST_CASE("progress ETA: with an estimate's model", "[runtime][progress][estimate]") {
    RunPrediction e;
    e.roots = 10;
    e.makespan_s = 100;
    e.calls = {{"cheap", 100, 10, 0.1}, {"dear", 100, 90, 0.9}};
    const ModelEtaCase cases[] = {
        {"every root done", 10, 10, 90, 100, 100, 0.0},
        {"nothing done: the prediction's time left", 1, 0, 10, 0, 0, 90.0},
        {"past the predicted makespan, nothing done", 1, 0, 120, 0, 0, 0.0},
        // The cheap Call done whole is a tenth of the work: half the measured rate
        // (20 x 0.9 / 0.1 = 180 s), half the prediction (100 - 20 = 80 s).
        {"a tenth done: half each", 5, 0, 20, 100, 0, 130.0},
        // Counted in Grains it would be half done and 20 s to go; weighted, 0.1 + 0.9 x 0.2.
        {"the dear Call weighs more", 6, 2, 28, 100, 20, 72.0},
        {"half done: the measured rate alone", 10, 5, 50, 50, 50, 50.0},
        // The cheap Call did more than predicted (200 of 100) while 2 of 10 roots are done (and
        // 2 in flight, half each): it counts as 3/10 done, not whole.
        {"past its predicted Grains: as done as the roots", 4, 2, 30, 200, 30, 70.0},
    };
    for (const ModelEtaCase& c : cases) {
        CAPTURE(c.what);
        const Progress p = snapshot(c.admitted, c.done, c.elapsed_s, {c.cheap_done, c.dear_done});
        const std::optional<double> eta = estimate_remaining_s(p, e);
        REQUIRE(eta.has_value() == c.expected.has_value());
        if (eta) CHECK(std::abs(*eta - *c.expected) < 0.01);
    }
    // The run's own count corrects the predicted work: 2 roots done with 30 Grains each stand
    // for 300 Grains where 200 were predicted; against a sample of 2 roots they weigh half, so
    // each Call's Grains are taken as 125: 30 of each done is 0.24 of the work, not 0.3.
    {
        RunPrediction sampled = e;
        sampled.sample_roots = 2;
        Progress p = snapshot(2, 2, 12, {30, 30});
        p.work = {60, 2, 60, 0, 0};
        CHECK(std::abs(*estimate_remaining_s(p, sampled) - 38.0) < 0.01);
        p.work = {};  // no count of the run's own: the prediction's Grains, 0.3 done
        CHECK(std::abs(*estimate_remaining_s(p, sampled) - 28.0) < 0.01);
        // The estimate counted the children of 8 roots: the 2 done weigh a fifth, so the
        // Grains are taken as 0.8 x 100 + 0.2 x 150 = 110 each: 30 done is 0.273 of the work.
        p.work = {60, 2, 60, 0, 0};
        sampled.counted_roots = 8;
        CHECK(std::abs(*estimate_remaining_s(p, sampled) - 32.0) < 0.01);
    }
    // With the predicted run's curve of share over time: the time it still had at this share,
    // at this run's pace against it. A slow tail (half the work by 2 s, the rest by 10 s) that a
    // straight line would miss: half done at 4 s. The curve is read at the shares 0.45 to 0.55
    // and averaged (2.1636 s: its steps smoothed), so the pace is 4 / 2.1636 and the time left
    // 1.8487 x (10 - 2.1636) = 14.487 s (16 s unsmoothed, 4 s on a straight line).
    {
        RunPrediction curved;
        curved.roots = 10;
        curved.makespan_s = 10;
        curved.calls = {{"only", 100, 10, 1.0}};
        curved.progress = {{0.0, 0.0}, {0.5, 2.0}, {1.0, 10.0}};
        CHECK(std::abs(*estimate_remaining_s(snapshot(6, 5, 4, {50}), curved) - 14.4874) < 0.001);
        // A twentieth done at 0.3 s (predicted at 0.2 s, the mean over 0 to 0.1 on the straight
        // part): a quarter of the 1.5x pace counts.
        const Progress p = snapshot(1, 0, 0.3, {5});
        CHECK(std::abs(*estimate_remaining_s(p, curved) - 11.025) < 0.001);
        curved.progress.clear();  // an older file: the straight line, 0.25 x 5.7 + 0.75 x 9.7
        CHECK(std::abs(*estimate_remaining_s(p, curved) - 8.7) < 0.001);
    }
    // --resume of half the roots: the estimate's work and time halve. Roots 5-9 resumed and not
    // reached, 3 of the 5 to run done with 30 Grains of each Call (of 50 each now): 0.6 done at
    // 30 s, the measured rate alone: 20 s left (the whole estimate: 0.3 done, 70 s).
    {
        Progress p = snapshot(4, 3, 30, {30, 30});
        p.roots_resumed = 5;
        p.work.done_roots = 3;
        CHECK(std::abs(*estimate_remaining_s(p, e) - 20.0) < 0.01);
        // Every root to run done, the resumed ones not reached yet: the roots' share is whole.
        Progress end = snapshot(5, 5, 50, {50, 50});
        end.roots_resumed = 5;
        end.work.done_roots = 5;
        CHECK(*estimate_remaining_s(end, e) < 0.01);
    }
    // A model without busy times says nothing: the Grain count's ETA.
    RunPrediction idle = e;
    for (PredictedCall& c : idle.calls) c.busy_s = 0;
    const Progress p = snapshot(6, 4, 2, {0, 0});
    CHECK(estimate_remaining_s(p, idle) == estimate_remaining_s(p));
    CHECK(std::abs(*estimate_remaining_s(p, idle) - 3.0) < 0.01);
}
