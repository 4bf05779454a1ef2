// Dispatch priority rules 5, 6 and 7 (docs/runtime.md): a Call's ready queue serves the least
// served root first, so a small root's Grains pass the backlog of a huge root that came before it;
// a streaming expand lends its reentrant actor to the roots queued behind it; and a deferred
// recovery unit is not starved by full batches of new work.
#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "core/scheduler.h"
#include "rop/runtime/generated.h"
#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;
using namespace std::chrono_literals;

TEST_CASE("ready levels: a Grain's level is bit_width(queued before / batch cap)",
          "[runtime][dispatch][fairness]") {
    using detail::ReadyQueue;
    struct Case {
        std::uint32_t before, unit, level;
    };
    const std::vector<Case> table = {
        {0, 1, 0},    {1, 1, 1},         {2, 1, 2},    {3, 1, 2},     {4, 1, 3},    {0, 4, 0},
        {3, 4, 0},    {4, 4, 1},         {7, 4, 1},    {8, 4, 2},     {15, 4, 2},   {16, 4, 3},
        {47, 48, 0},  {48, 48, 1},       {95, 48, 1},  {96, 48, 2},   {383, 48, 3}, {384, 48, 4},
        {426, 48, 4}, {1u << 20, 1, 15}, {~0u, 1, 15}, {~0u, 48, 15},
    };
    for (const Case& c : table) {
        INFO(c.before << " queued before, unit " << c.unit);
        CHECK(ReadyQueue::level(c.before, c.unit) == c.level);
    }
}

TEST_CASE("ready queue: the lowest non-empty level first, FIFO inside a level",
          "[runtime][dispatch][fairness]") {
    detail::ReadyQueue q;
    CHECK(q.empty());
    q.push(10, 2);
    q.push(11, 0);
    q.push(12, 2);
    q.push(13, 1);
    q.push(14, 0);
    q.push(15, 15);
    CHECK(q.size() == 6);
    std::vector<std::uint32_t> order;
    while (!q.empty()) {
        order.push_back(q.front());
        q.pop_front();
    }
    CHECK(order == std::vector<std::uint32_t>{11, 14, 13, 10, 12, 15});
    CHECK(q.size() == 0);
    q.push(20, 3);  // a level emptied earlier works again
    CHECK(q.front() == 20);
}

namespace {

// Counts the items the driver publishes, but for the port `out` (the map's): it queues each page
// for the map as it publishes it.
struct QueuedCount final : ItemObserver {
    QueuedCount(PortId out_port, std::mutex& m, std::condition_variable& c, std::size_t& n)
        : out(out_port), mutex(m), changed(c), queued(n) {}
    void on_item(PortId port, EntityId, Outcome, const Value&) override {
        if (port == out) return;
        std::lock_guard<std::mutex> lock(mutex);
        ++queued;
        changed.notify_all();
    }
    PortId out;
    std::mutex& mutex;
    std::condition_variable& changed;
    std::size_t& queued;
};

}  // namespace

TEST_CASE("a small root's pages pass the backlog of a huge root that came first",
          "[runtime][dispatch][fairness]") {
    // Root 0 has 200 pages (20000..20199), root 1 five (500..504); one expand makes both, the
    // map takes 4 pages a batch on one actor. Its first batch waits until all 205 pages are
    // queued; then the order in which pages run shows the queue's order. FIFO would run root 1's
    // pages last (positions 200-204); least served first runs them within the first few batches.
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<long> ran;
    std::size_t queued = 0;
    bool first = true;
    bool waited = false;
    OneMap one(opts(4, 1), [&](Batch& b) {
        std::unique_lock<std::mutex> lock(mutex);
        if (first) {
            first = false;
            // Not REQUIRE: Catch2's assertions are for the test's own thread.
            waited = changed.wait_for(lock, 20s, [&] { return queued == 207; });
        }
        for (std::size_t g = 0; g < b.size(); ++g) {
            ran.push_back(b.input(g, 0).get<long>());
            b.set_output(g, 0, Value::of<long>(b.input(g, 0).get<long>()));
        }
    });
    // The driver queues the pages for the map as it publishes them (2 roots and 205 pages).
    QueuedCount count{one.out, mutex, changed, queued};
    std::vector<std::string> finished;
    VecSource source({200, 5});
    RunOptions options;
    options.observer = &count;
    options.on_root_finished = [&](const RootResult& r) { finished.push_back(r.name); };
    const RunReport report = run(one.plan, source, options);
    CHECK(waited);  // every page was queued before the first batch ran
    REQUIRE(report.roots.size() == 2);
    CHECK(report.roots[0].status == RootStatus::Ok);
    CHECK(report.roots[1].status == RootStatus::Ok);
    REQUIRE(ran.size() == 205);
    std::vector<std::size_t> small;
    for (std::size_t i = 0; i < ran.size(); ++i) {
        if (ran[i] < 1000) small.push_back(i);
    }
    INFO("positions of root 1's pages: " << small[0] << " .. " << small.back());
    REQUIRE(small.size() == 5);
    // The first two batches (8 pages) may be root 0's, taken before root 1's pages were queued;
    // then root 0's first 4 pages of level 0 at most, then root 1's four of level 0, then level 1.
    CHECK(small.back() < 24);
    CHECK(finished == std::vector<std::string>{"root1", "root0"});  // the small root first
}

TEST_CASE("a deferred recovery unit waits behind at most one full batch per actor",
          "[runtime][dispatch][fairness][deferred]") {
    // Root 0 (pages 700..706) comes first, then 199 roots of 6 pages; the map's batches wait
    // until all 1,401 items are queued, so full ready batches remain until the end. The first
    // holds 700..703 and fails naming no page (703 is bad): its halves are deferred recovery
    // units. Without priority rule 7 they would wait until fewer than a full batch is ready,
    // near the end of the run; with it, behind at most one full batch per actor, plus the
    // batches the actors already held.
    for (auto [actors, recovery] : {std::pair{1u, Recovery::Abort},
                                    {1u, Recovery::RetryBatch},
                                    {1u, Recovery::RetryTail},
                                    {1u, Recovery::IsolateTail},
                                    {2u, Recovery::RetryTail},
                                    {2u, Recovery::IsolateTail}}) {
        CAPTURE(actors, static_cast<int>(recovery));
        std::mutex mutex;
        std::condition_variable changed;
        std::vector<std::vector<long>> ran;  // each batch's pages, in the order batches started
        std::size_t queued = 0;
        bool waited = true;
        // The thread of a failure not yet known to be posted: a thread posts its report before
        // taking its next job, so once it starts another batch the driver has the failure.
        std::thread::id failed_on;
        CallOptions o = opts(4, actors);
        o.recovery = recovery;
        o.retries = 2;
        OneMap one(o, [&](Batch& b) {
            bool bad = false;
            {
                std::unique_lock<std::mutex> lock(mutex);
                ran.emplace_back();
                for (std::size_t g = 0; g < b.size(); ++g) {
                    ran.back().push_back(b.input(g, 0).get<long>());
                    bad = bad || b.input(g, 0).get<long>() == 703;
                }
                // Not REQUIRE: Catch2's assertions are for the test's own thread.
                if (!changed.wait_for(lock, 20s, [&] { return queued == 1401; })) waited = false;
                // Actors share the Call's job queue: while a failed actor is descheduled between
                // its throw and its report, the others could run any number of batches, which
                // would measure the machine's load, not rule 7. They wait for each failure's
                // report instead (the first batch's, and its halves' that fail again).
                if (failed_on == std::this_thread::get_id()) {
                    failed_on = std::thread::id{};
                    changed.notify_all();
                } else if (failed_on != std::thread::id{}) {
                    changed.wait_for(lock, 5s, [&] { return failed_on == std::thread::id{}; });
                }
                if (bad) failed_on = std::this_thread::get_id();
            }
            if (bad) throw RecordFailure("bad page 703");
            for (std::size_t g = 0; g < b.size(); ++g) b.set_output(g, 0, b.input(g, 0));
        });
        QueuedCount count{one.out, mutex, changed, queued};
        std::vector<long> roots(200, 6);
        roots[0] = 7;
        VecSource source(roots);
        RunOptions options;
        options.observer = &count;
        options.max_inflight_roots = 1000;
        const RunReport report = run(one.plan, source, options);
        CHECK(waited);  // every page was queued before the batches ran
        REQUIRE(report.roots.size() == 200);
        CHECK(report.roots[0].status == RootStatus::Failed);
        CHECK(report.roots[0].reason == "bad page 703");
        for (std::size_t r = 1; r < 200; ++r) CHECK(report.roots[r].status == RootStatus::Ok);
        // The batches that held one of root 0's first four pages: the failed one, then its halves.
        std::vector<std::size_t> at;
        for (std::size_t i = 0; i < ran.size(); ++i) {
            for (long v : ran[i]) {
                if (v >= 700 && v <= 703) {
                    at.push_back(i);
                    break;
                }
            }
        }
        INFO("batches: " << ran.size() << "; root 0's first pages ran in batches " << at[0] << ", "
                         << at[1] << " ..");
        REQUIRE(at.size() >= 3);
        CHECK(at[0] < 2 * actors);  // among the first batches the actors were given
        // Up to 2 per actor were queued for the actors when the failure came back, the other
        // actors started at most one each while it was on its way (they wait for it above); then
        // at most one full batch per actor passes each half. Without the rule the halves run near
        // batch 300.
        CHECK(at[1] - at[0] <= 6 * actors + 2);
        CHECK(at.back() < 80);
    }
}

namespace {

// Root 0 expands into 2,000 pages, one every 0.5 ms; root 1 into 5 at once. One expand actor,
// which is reentrant or not; a map (2 actors) copies the pages. Returns how many pages root 0
// had emitted when root 1 finished (2,000: it waited for root 0's whole expansion).
struct LendRun {
    long big_emitted_when_small_done = -1;
    std::vector<std::string> finished;
    RunReport report;
};

class SlowExpand final : public Actor {
  public:
    SlowExpand(bool reentrant, std::atomic<long>& emitted) : reentrant_(reentrant), big_(emitted) {}
    bool reentrant() const override { return reentrant_; }
    void process(Batch& b) override {
        for (std::size_t g = 0; g < b.size(); ++g) {
            const long n = b.input(g, 0).get<long>();
            for (long i = 0; i < n; ++i) {
                if (n > 5) std::this_thread::sleep_for(500us);
                b.emit_child(g, Value::of<long>(100 * n + i));
                if (n > 5) big_.store(i + 1);
            }
        }
    }

  private:
    bool reentrant_;
    std::atomic<long>& big_;
};

LendRun lend_run(bool reentrant, std::chrono::milliseconds timeout = {}) {
    std::atomic<long> emitted{0};
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const DomainId page = b.add_domain("Page", doc);
    const PortId src = b.source("src");
    const PortId pages = b.add_port("pages", page);
    const PortId out = b.add_port("out", page);
    CallOptions expand = opts(1, 1);
    expand.timeout = timeout;
    b.add_call({"split", CallKind::Expand, doc, {{src}}, {pages}, expand, [&emitted, reentrant] {
                    return std::make_unique<SlowExpand>(reentrant, emitted);
                }});
    b.add_call({"m", CallKind::Map, page, {{pages}}, {out}, opts(8, 2), map_int([](long x) {
                    return x;
                })});
    const Plan plan = b.build();
    LendRun r;
    VecSource source({2000, 5});
    RunOptions options;
    options.on_root_finished = [&](const RootResult& root) {
        r.finished.push_back(root.name);
        if (root.name == "root1") r.big_emitted_when_small_done = emitted.load();
    };
    r.report = run(plan, source, options);
    return r;
}

}  // namespace

TEST_CASE("a streaming expand lends its reentrant actor to a root queued behind it",
          "[runtime][dispatch][fairness][lend]") {
    // Rule 6: every 8 children the big root's expand runs the small root's queued batch on the
    // same actor; the small root commits long before the big one has emitted its 2,000 pages.
    const LendRun lent = lend_run(true);
    REQUIRE(lent.report.roots.size() == 2);
    CHECK(lent.report.roots[0].status == RootStatus::Ok);
    CHECK(lent.report.roots[1].status == RootStatus::Ok);
    CHECK(lent.report.calls.at(1).grains == 2005);  // every page mapped once
    CHECK(lent.finished == std::vector<std::string>{"root1", "root0"});
    INFO("root 0 had emitted " << lent.big_emitted_when_small_done << " pages");
    CHECK(lent.big_emitted_when_small_done < 1000);
}

TEST_CASE("an actor that is not reentrant, or an expand with a timeout, is never lent",
          "[runtime][dispatch][fairness][lend]") {
    // Actor::reentrant() false (the default, and every class UDF's): one batch at a time, the
    // small root waits for the whole expansion. A timeout keeps each batch on its own clock.
    for (const bool reentrant : {false, true}) {
        const std::chrono::milliseconds timeout = reentrant ? 60s : 0s;
        INFO("reentrant " << reentrant << ", timeout " << timeout.count() << " ms");
        const LendRun held = lend_run(reentrant, timeout);
        REQUIRE(held.report.roots.size() == 2);
        CHECK(held.report.roots[1].status == RootStatus::Ok);
        CHECK(held.big_emitted_when_small_done == 2000);
    }
}

namespace {

// What ropc generates for an expand: a function UDF's actor has no udf_ member, a class UDF's
// holds the class as udf_ (codegen_templates/expand_actor.tmpl).
struct FunctionExpand final : rop::gen::ExpandActor<FunctionExpand, long> {
    void run(rop::gen::Grain, rop::Emitter<long>&) {}
};
struct Counter {
    long seen = 0;
};
struct ClassExpand final : rop::gen::ExpandActor<ClassExpand, long> {
    void run(rop::gen::Grain, rop::Emitter<long>&) {}
    Counter udf_;
};

}  // namespace

TEST_CASE("a generated expand actor is reentrant only when its UDF is a function",
          "[runtime][dispatch][fairness][lend]") {
    CHECK(FunctionExpand{}.reentrant());
    CHECK_FALSE(ClassExpand{}.reentrant());
    CHECK_FALSE(FnActor([](Batch&) {}).reentrant());  // Actor's default
}
