// Guards for rules that the other runtime tests did not pin down: each test here kills at least
// one mutation in tests/mutation/mutations/ (its name says which) and checks the rule of
// SEMANTICS.md it stands for on a schedule built to expose it.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "gated_pages.h"
#include "rop/runtime/executor.h"
#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;
using namespace std::chrono_literals;

namespace {

// Waits (bounded) until `flag` is set; true if it was.
bool wait_for(const std::atomic<bool>& flag, std::chrono::milliseconds limit = 5000ms) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (!flag.load()) {
        if (std::chrono::steady_clock::now() > until) return false;
        std::this_thread::sleep_for(1ms);
    }
    return true;
}

// Runs each batch inside submit(), on the driver's thread: a run that starts no thread, for the
// forked child below (ThreadSanitizer refuses new threads after a fork).
class InlineExecutor final : public Executor {
  public:
    void start(const Plan& plan, ReportQueue& reports) override {
        plan_ = &plan;
        reports_ = &reports;
        actors_.resize(plan.calls.size());
    }
    void submit(BatchJob& job) override {
        auto& a = actors_[job.call];
        if (!a) a = plan_->calls[job.call].factory();
        if (execute_job(a.get(), job, *reports_)) a.reset();
    }
    void abandon(BatchJob&) override {}
    void stop() override {}

  private:
    const Plan* plan_ = nullptr;
    ReportQueue* reports_ = nullptr;
    std::vector<std::unique_ptr<Actor>> actors_;
};

RunReport run_plan(const Plan& plan, std::vector<long> roots, ItemObserver& observer,
                   RunOptions options = {}) {
    VecSource source(std::move(roots));
    options.observer = &observer;
    return run(plan, source, options);
}

}  // namespace

// Mutation 02: queued siblings behind a GroupFailure barrier are suppressed when dequeued, and
// never reach the UDF. One actor, batch 1: at most the sibling already prefetched to the actor
// (two batches per actor) runs; the rest must not.
TEST_CASE("barrier at dequeue: queued siblings of a GroupFailure never run",
          "[runtime][mutation-guard]") {
    std::mutex mu;
    std::set<long> ran;
    OneMap m(opts(1, 1), [&](Batch& bt) {
        const long x = bt.input(0, 0).get<long>();
        {
            std::lock_guard<std::mutex> lock(mu);
            ran.insert(x);
        }
        if (x == 600) {
            bt.fail_group(0, "poison");
            return;
        }
        bt.set_output(0, 0, Value::of<long>(x));
    });
    Recorder rec;
    const RunReport report = run_plan(m.plan, {6}, rec);
    CHECK(report.roots[0].status == RootStatus::Failed);
    CHECK(report.roots[0].reason == "poison");
    CHECK(ran.count(600) == 1);
    CHECK(ran.size() <= 2);  // 600 and at most one prefetched sibling
    CHECK(rec.of(m.out) == std::multiset<std::string>{"FAILED", "SUPPRESSED", "SUPPRESSED",
                                                      "SUPPRESSED", "SUPPRESSED", "SUPPRESSED"});
    CHECK(report.calls[1].suppressed == 5);
}

// Mutation 04: the pre-scan. A GroupFailure at batch index 2 must suppress the successes at
// indexes 0 and 1 of the same batch (same parent): its barrier goes in before anything commits.
// The pages become READY together (they wait for a broadcast that resolves after the expand
// emitted all of them), so they share one batch.
TEST_CASE("pre-scan: a GroupFailure later in the batch suppresses earlier successes",
          "[runtime][mutation-guard]") {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const DomainId page = b.add_domain("Page", doc);
    const PortId src = b.source("src");
    const PortId pages = b.add_port("pages", page);
    const PortId title = b.add_port("title", doc);
    const PortId hint = b.add_port("hint", page);
    const PortId out = b.add_port("out", page);
    std::atomic<bool> emitted{false};
    std::atomic<int> batches_with_all{0};
    std::atomic<bool> title_waited{false};  // not CHECKed on the actor's thread (not Catch2's)
    b.add_call({"split", CallKind::Expand, doc, {{src}}, {pages}, opts(1, 1), actor([&](Batch& bt) {
                    const long x = bt.input(0, 0).get<long>();
                    for (long i = 0; i < x; ++i) bt.emit_child(0, Value::of<long>(100 * x + i));
                    emitted = true;
                })});
    b.add_call({"title", CallKind::Map, doc, {{src}}, {title}, opts(1, 1), actor([&](Batch& bt) {
                    title_waited = wait_for(emitted);
                    std::this_thread::sleep_for(20ms);  // the expand's Done reaches the driver
                    bt.set_output(0, 0, bt.input(0, 0));
                })});
    b.add_call({"hint", CallKind::Broadcast, page, {{title}}, {hint}, opts(1, 1), {}});
    b.add_call(
        {"m", CallKind::Map, page, {{pages}, {hint}}, {out}, opts(8, 1), actor([&](Batch& bt) {
             if (bt.size() == 4) ++batches_with_all;
             // Thrown with its index after every other page has its output: a fail_group()
             // call would be streamed (its barrier up before the batch's Done), which is not
             // the pre-scan's rule.
             std::size_t poison = bt.size();
             for (std::size_t g = 0; g < bt.size(); ++g) {
                 const long x = bt.input(g, 0).get<long>();
                 if (x == 402) {
                     poison = g;
                 } else {
                     bt.set_output(g, 0, Value::of<long>(x));
                 }
             }
             if (poison < bt.size()) throw rop::GroupFailure("poison at 402", poison);
         })});
    const Plan plan = b.build();
    Recorder rec;
    const RunReport report = run_plan(plan, {4}, rec);
    CHECK(title_waited.load());
    REQUIRE(batches_with_all.load() == 1);  // the schedule this test is about
    CHECK(report.roots[0].status == RootStatus::Failed);
    CHECK(report.roots[0].reason == "poison at 402");
    CHECK(rec.of(out) ==
          std::multiset<std::string>{"FAILED", "SUPPRESSED", "SUPPRESSED", "SUPPRESSED"});
}

// Mutation 05: multi-output atomicity after a throw. A Grain that set only one of its two
// outputs before the batch threw is not done: it is replayed, never committed half-filled.
TEST_CASE("multi-output: a Grain with one output set when the batch threw is replayed whole",
          "[runtime][mutation-guard]") {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const DomainId page = b.add_domain("Page", doc);
    const PortId src = b.source("src");
    const PortId pages = b.add_port("pages", page);
    const PortId lo = b.add_port("lo", page);
    const PortId hi = b.add_port("hi", page);
    b.add_call({"split",
                CallKind::Expand,
                doc,
                {{src}},
                {pages},
                opts(1, 1),
                expand_int([](long x) { return x; }, [](long x, long i) { return 100 * x + i; })});
    std::atomic<int> attempts{0};
    for (Recovery recovery : {Recovery::RetryBatch, Recovery::RetryTail, Recovery::IsolateTail}) {
        CAPTURE(static_cast<int>(recovery));
        attempts = 0;
        PlanBuilder copy = b;
        CallOptions o = opts(4, 1);
        o.recovery = recovery;
        o.retries = 2;
        copy.add_call({"two", CallKind::Map, page, {{pages}}, {lo, hi}, o, actor([&](Batch& bt) {
                           const bool first = attempts.fetch_add(1) == 0;
                           for (std::size_t g = 0; g < bt.size(); ++g) {
                               const long x = bt.input(g, 0).get<long>();
                               bt.set_output(g, 0, Value::of<long>(x));
                               if (first) throw std::runtime_error("crashed between outputs");
                               bt.set_output(g, 1, Value::of<long>(-x));
                           }
                       })});
        const Plan plan = copy.build();
        Recorder rec;
        const RunReport report = run_plan(plan, {1}, rec);
        CHECK_FALSE(rec.duplicate);
        CHECK(report.roots[0].status == RootStatus::Ok);
        CHECK(rec.of(lo) == std::multiset<std::string>{"100"});
        CHECK(rec.of(hi) == std::multiset<std::string>{"-100"});
    }
}

// Mutation 07: a root sink gets its root's items in ordinal order even when the batches that
// made them completed in reverse order (four actors, later pages faster).
TEST_CASE("root sinks: items arrive in ordinal order whatever the completion order",
          "[runtime][mutation-guard]") {
    OneMap m(opts(1, 4), [](Batch& bt) {
        const long x = bt.input(0, 0).get<long>();
        std::this_thread::sleep_for(std::chrono::milliseconds(10 * (504 - x)));
        bt.set_output(0, 0, Value::of<long>(x));
    });
    std::vector<long> written;
    std::vector<long> completion;
    struct Order : ItemObserver {
        std::vector<long>* completion = nullptr;
        PortId port = 0;
        void on_item(PortId p, EntityId, Outcome o, const Value& v) override {
            if (p == port && o == Outcome::Present) completion->push_back(v.get<long>());
        }
    } order;
    order.completion = &completion;
    order.port = m.out;
    RunOptions options;
    RootSinkBinding sink;
    sink.port = m.out;
    sink.write_root = [&](const RootKey&, std::span<const Value> items) {
        for (const Value& v : items) written.push_back(v.get<long>());
    };
    options.root_sinks.push_back(sink);
    const RunReport report = run_plan(m.plan, {5}, order, options);
    CHECK(report.roots[0].status == RootStatus::Ok);
    REQUIRE(completion.size() == 5);
    CHECK(completion.front() != 500);  // the schedule this test is about: out of order
    CHECK(written == std::vector<long>{500, 501, 502, 503, 504});
}

// Mutation 10: a reduce waits for its expand to report, even when every child emitted so far is
// already resolved: the child count is sealed only by the expand's completion.
TEST_CASE("expand seal: a reduce never fires on the children streamed so far",
          "[runtime][mutation-guard]") {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const DomainId page = b.add_domain("Page", doc);
    const PortId src = b.source("src");
    const PortId pages = b.add_port("pages", page);
    const PortId total = b.add_port("total", doc);
    std::atomic<bool> first_resolved{false};
    std::atomic<bool> split_waited{false};  // not CHECKed on the actor's thread (not Catch2's)
    struct Watch : ItemObserver {
        Recorder rec;
        PortId port = 0;
        std::atomic<bool>* flag = nullptr;
        void on_item(PortId p, EntityId e, Outcome o, const Value& v) override {
            rec.on_item(p, e, o, v);
            if (p == port) *flag = true;
        }
    } watch;
    watch.port = pages;
    watch.flag = &first_resolved;
    b.add_call({"split", CallKind::Expand, doc, {{src}}, {pages}, opts(1, 1), actor([&](Batch& bt) {
                    bt.emit_child(0, Value::of<long>(1));
                    // The first child is a published fact before the rest is emitted.
                    split_waited = wait_for(first_resolved);
                    std::this_thread::sleep_for(30ms);
                    bt.emit_child(0, Value::of<long>(2));
                    bt.emit_child(0, Value::of<long>(3));
                })});
    b.add_call({"sum", CallKind::Reduce, doc, {{pages}}, {total}, opts(1, 1), sum_group()});
    const Plan plan = b.build();
    const RunReport report = run_plan(plan, {1}, watch);
    CHECK(split_waited.load());
    CHECK(report.roots[0].status == RootStatus::Ok);
    CHECK(watch.rec.of(total) == std::multiset<std::string>{"6"});
    CHECK_FALSE(watch.rec.duplicate);
}

// Mutation 11: a streaming expand that fails after emitting children is replayed; the children
// it emits again are facts already and are not created twice.
TEST_CASE("replayed streaming expand: re-emitted children are not created twice",
          "[runtime][mutation-guard]") {
    for (Recovery recovery : {Recovery::RetryBatch, Recovery::RetryTail, Recovery::IsolateTail}) {
        CAPTURE(static_cast<int>(recovery));
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        const PortId src = b.source("src");
        const PortId pages = b.add_port("pages", page);
        const PortId total = b.add_port("total", doc);
        CallOptions o = opts(1, 1);
        o.recovery = recovery;
        o.retries = 2;
        std::atomic<int> attempts{0};
        b.add_call({"split", CallKind::Expand, doc, {{src}}, {pages}, o, actor([&](Batch& bt) {
                        const bool first = attempts.fetch_add(1) == 0;
                        for (long i = 0; i < 3; ++i) bt.emit_child(0, Value::of<long>(10 + i));
                        if (first) throw std::runtime_error("failed after emitting");
                    })});
        b.add_call({"group", CallKind::Reduce, doc, {{pages}}, {total}, opts(1, 1), {}});
        const Plan plan = b.build();
        Recorder rec;
        const RunReport report = run_plan(plan, {1}, rec);
        CHECK(attempts.load() == 2);
        CHECK(report.roots[0].status == RootStatus::Ok);
        CHECK(rec.of(pages) == std::multiset<std::string>{"10", "11", "12"});
        CHECK(rec.of(total) == std::multiset<std::string>{"[0:10,1:11,2:12]"});
    }
}

// Mutation 13: parent-local release. Root 0 (one page) is done, and its sinks written, while
// root 1's page is still running: its UDF waits until it sees root 0 done.
TEST_CASE("parent-local release: a root is done while another root is still running",
          "[runtime][mutation-guard]") {
    std::atomic<bool> first_done{false};
    std::atomic<bool> saw_first_done_while_running{false};
    OneMap m(opts(1, 2), [&](Batch& bt) {
        const long x = bt.input(0, 0).get<long>();
        if (x == 200) saw_first_done_while_running = wait_for(first_done, 3000ms);
        bt.set_output(0, 0, Value::of<long>(x));
    });
    struct Watch : ItemObserver {
        std::atomic<bool>* flag = nullptr;
        void on_item(PortId, EntityId, Outcome, const Value&) override {}
        void on_root_done(EntityId) override { *flag = true; }
    } watch;
    watch.flag = &first_done;
    const RunReport report = run_plan(m.plan, {1, 2}, watch);
    CHECK(report.roots[0].status == RootStatus::Ok);
    CHECK(report.roots[1].status == RootStatus::Ok);
    CHECK(saw_first_done_while_running.load());
}

// Mutation 14: commit before skip. The process dies inside a sink's write of root 3 (after
// roots 0 to 2 are written and journaled, one commit group each). --resume must rerun root 3 and
// keep root 2's output: a journal line may only hold a sink's checkpoint from after the root's
// write (a line written before it would name the size before root 2, and resume would cut root
// 2's output while skipping it).
TEST_CASE("journal: a root that died inside its sink write is rerun on resume",
          "[runtime][mutation-guard]") {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("rop-guard-journal-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string out = (dir / "out.txt").string();
    const std::string journal = (dir / "run.journal").string();

    // Doc(x) -> x pages -> map; the root sink appends "root:value" lines to out.txt.
    OneMap m(opts(1, 1), [](Batch& bt) { bt.set_output(0, 0, bt.input(0, 0)); });
    auto options_for = [&](bool resume, bool die_on_root3) {
        RunOptions options;
        options.max_inflight_roots = 1;
        options.commit_group = 1;
        options.journal_path = journal;
        options.resume = resume;
        RootSinkBinding sink;
        sink.port = m.out;
        sink.name = "lines";
        sink.write_root = [out, journal, die_on_root3](const RootKey& key,
                                                       std::span<const Value> items) {
            if (die_on_root3 && key.ordinal == 3) {
                // A crash mid-commit, once roots 0 to 2's lines are on disk (the journal's
                // writer thread appends them while the run goes on). Only root lines count: the
                // driver writes the header and its {"admitted":N} watermarks itself, and counting
                // those let mutation 14 survive a CI run (no root journaled, all rerun).
                const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(60);
                for (;;) {
                    std::ifstream j(journal);
                    int roots = 0;
                    for (std::string line; std::getline(j, line);) {
                        if (line.find("\"root\":") != std::string::npos &&
                            line.find("\"tokens\":") != std::string::npos) {
                            ++roots;
                        }
                    }
                    if (roots >= 3 || std::chrono::steady_clock::now() > limit) break;
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                }
                ::_exit(41);
            }
            std::ofstream f(out, std::ios::app);
            for (const Value& v : items) f << key.name << ":" << v.get<long>() << "\n";
        };
        sink.checkpoint = [out] {
            return std::to_string(std::filesystem::exists(out) ? std::filesystem::file_size(out)
                                                               : 0);
        };
        sink.restore = [out](const std::string& token) {
            if (!std::filesystem::exists(out)) return;
            std::filesystem::resize_file(out, token.empty() ? 0 : std::stoull(token));
        };
        options.root_sinks.push_back(sink);
        return options;
    };

    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {  // the run that dies
        struct None : ItemObserver {
            void on_item(PortId, EntityId, Outcome, const Value&) override {}
        } none;
        VecSource source({1, 1, 1, 1, 1});
        RunOptions options = options_for(false, true);
        options.observer = &none;
        InlineExecutor inline_executor;
        run(m.plan, source, options, inline_executor);
        ::_exit(0);
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 41);

    VecSource source({1, 1, 1, 1, 1});
    RunOptions options = options_for(true, false);
    const RunReport report = run(m.plan, source, options);
    for (const RootResult& r : report.roots) CHECK(r.status == RootStatus::Ok);
    std::ifstream f(out);
    std::stringstream text;
    text << f.rdbuf();
    CHECK(text.str() == "root0:100\nroot1:100\nroot2:100\nroot3:100\nroot4:100\n");
    std::filesystem::remove_all(dir);
}

// Mutation 12: isolate_tail's bound. One poisoned page among 32 that share a batch: the batch is
// replayed once, then bisected, so no Grain runs more than 2 + log2(32) + retries = 7 times and
// the 31 healthy pages commit. (Peeling one Grain off per round would run the poison 33 times.)
TEST_CASE("isolate_tail: every Grain runs at most 2 + log2(batch) + retries times",
          "[runtime][mutation-guard]") {
    std::mutex mu;
    std::map<long, int> runs;
    CallOptions o = opts(32, 1);
    o.recovery = Recovery::IsolateTail;
    o.retries = 0;
    GatedPages p(o, [&](Batch& bt) {
        bool poisoned = false;
        {
            std::lock_guard<std::mutex> lock(mu);
            for (std::size_t g = 0; g < bt.size(); ++g) {
                const long x = bt.input(g, 0).get<long>();
                ++runs[x];
                poisoned = poisoned || x == 3231;
            }
        }
        if (poisoned) throw std::runtime_error("poisoned page");
        for (std::size_t g = 0; g < bt.size(); ++g) bt.set_output(g, 0, bt.input(g, 0));
    });
    Recorder rec;
    const RunReport report = run_plan(p.plan, {32}, rec);
    CHECK(report.roots[0].status == RootStatus::Failed);
    CHECK(report.roots[0].reason == "udf error: poisoned page");
    REQUIRE(runs.size() == 32);
    int most = 0;
    for (const auto& [x, n] : runs) most = std::max(most, n);
    CHECK(most <= 7);
    CHECK(runs[3231] == 7);
    const auto outs = rec.of(p.out);
    CHECK(outs.count("FAILED") == 1);
    CHECK(outs.size() == 32);
}
