// Shared actor pools (issue 35, docs/runtime.md "Shared pools"), RayOrch 0.1.1's shared-pool
// tests restated in rop terms: two Calls of one pool, each with its own recovery and counters;
// a failure in one Call leaves the other's items alone; the pool's Calls take turns at its
// actors; one instance of the class per pool actor, counted; a timeout or an infra failure
// replaces the pool actor whatever Call it served; the plan's rules for pools as a table.
#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "rop/runtime/executor.h"
#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;
using Catch::Matchers::ContainsSubstring;
using namespace std::chrono_literals;

namespace {

// The pool's class: counts its instances, and which Calls each instance served, in order.
struct Model {
    static inline std::atomic<int> made{0};
    static inline std::atomic<int> alive{0};
    Model() : id(made.fetch_add(1)) { alive.fetch_add(1); }
    ~Model() { alive.fetch_sub(1); }
    Model(const Model&) = delete;
    Model& operator=(const Model&) = delete;
    const int id;
};

// What every pool actor served, in order: (Call name, instance id, batch size).
struct Served {
    std::mutex mutex;
    std::vector<std::string> calls;
    std::map<std::string, std::set<int>> instances;  // per Call
    void note(const std::string& call, int instance) {
        std::lock_guard lock(mutex);
        calls.push_back(call);
        instances[call].insert(instance);
    }
};

// A pooled Call's view: runs `fn` on the instance's batches, noting them in `served`.
PoolView view(std::string name, std::shared_ptr<Served> served, std::function<void(Batch&)> fn) {
    return [name, served, fn](const PoolInstance& instance) -> std::unique_ptr<Actor> {
        class View final : public Actor {
          public:
            View(std::string name, std::shared_ptr<Served> served, std::function<void(Batch&)> fn,
                 PoolInstance instance)
                : name_(std::move(name)),
                  served_(std::move(served)),
                  fn_(std::move(fn)),
                  instance_(std::move(instance)) {}
            void process(Batch& batch) override {
                served_->note(name_, static_cast<Model*>(instance_.get())->id);
                fn_(batch);
            }

          private:
            std::string name_;
            std::shared_ptr<Served> served_;
            std::function<void(Batch&)> fn_;
            PoolInstance instance_;
        };
        return std::make_unique<View>(name, served, fn, instance);
    };
}

void add_ints(Batch& b, long k) {
    for (std::size_t g = 0; g < b.size(); ++g) {
        b.set_output(g, 0, Value::of<long>(b.input(g, 0).get<long>() + k));
    }
}

PoolSpec model_pool(std::uint32_t actors) {
    PoolSpec pool{"model"};
    pool.options.actors = actors;
    pool.instance = []() -> PoolInstance { return std::make_shared<Model>(); };
    return pool;
}

CallSpec pooled(std::string name, CallKind kind, DomainId domain, PortId in, PortId out,
                PoolId pool, PoolView v, std::uint32_t batch = 4) {
    CallSpec spec{std::move(name), kind, domain, {{in}}, {out}, {}, {}};
    spec.options.batch = batch;
    spec.pool = pool;
    spec.view = std::move(v);
    return spec;
}

// Doc(x) -> x pages valued 100x+i; `up` (+1) and `down` (+10 of up's) on one pool; `side`
// (+1000) on the pages too, also on the pool when `side_on_pool`.
struct TwoCalls {
    Plan plan;
    PortId up_out = 0, down_out = 0, side_out = 0;
    std::shared_ptr<Served> served = std::make_shared<Served>();
    TwoCalls(std::uint32_t actors, std::function<void(Batch&)> up_fn,
             std::function<void(Batch&)> down_fn, CallOptions up_options = {},
             CallOptions down_options = {}) {
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        const PortId src = b.source("src");
        const PortId pages = b.add_port("pages", page);
        up_out = b.add_port("up", page);
        down_out = b.add_port("down", page);
        b.add_call(
            {"split",
             CallKind::Expand,
             doc,
             {{src}},
             {pages},
             opts(8, 1),
             expand_int([](long x) { return x; }, [](long x, long i) { return 100 * x + i; })});
        const PoolId pool = b.add_pool(model_pool(actors));
        CallSpec up = pooled("up", CallKind::Map, page, pages, up_out, pool,
                             view("up", served, std::move(up_fn)));
        up.options = up_options;  // actors left at its default: the pool's is taken
        up.options.batch = 4;
        CallSpec down = pooled("down", CallKind::Map, page, up_out, down_out, pool,
                               view("down", served, std::move(down_fn)));
        down.options = down_options;
        down.options.batch = 4;
        b.add_call(std::move(up));
        b.add_call(std::move(down));
        plan = b.build();
    }
};

RunReport run_with(const Plan& plan, std::vector<long> roots, Recorder& rec,
                   const std::string& executor = "threads") {
    VecSource source(std::move(roots));
    RunOptions options;
    options.observer = &rec;
    options.executor = executor;
    return run(plan, source, options);
}

const CallCounters& counters(const RunReport& report, const std::string& name) {
    for (const CallCounters& c : report.calls) {
        if (c.name == name) return c;
    }
    FAIL("no counters for call " << name);
    return report.calls.front();
}

}  // namespace

TEST_CASE("shared pool: two Calls on one pool give the outputs of two separate Calls",
          "[runtime][pools]") {
    for (const std::string executor : {"threads", "inline"}) {
        for (std::uint32_t actors : {1u, 2u, 3u}) {
            CAPTURE(executor, actors);
            Model::made = 0;
            TwoCalls two(
                actors, [](Batch& b) { add_ints(b, 1); }, [](Batch& b) { add_ints(b, 10); });
            Recorder rec;
            const RunReport report = run_with(two.plan, {2, 3, 4, 5, 6, 7, 8, 9}, rec, executor);
            CHECK_FALSE(rec.duplicate);
            std::multiset<std::string> want;
            for (long x = 2; x <= 9; ++x) {
                for (long i = 0; i < x; ++i) want.insert(std::to_string(100 * x + i + 11));
            }
            CHECK(rec.of(two.down_out) == want);
            // Each Call its own counters: every page ran once in each.
            CHECK(counters(report, "up").grains == want.size());
            CHECK(counters(report, "down").grains == want.size());
            CHECK(counters(report, "up").batches > 0);
            CHECK(counters(report, "down").batches > 0);
            // One instance per pool actor, not per actor per Call: the inline executor keeps one
            // pool actor; the threads executor makes each of the pool's actors once.
            const int most = executor == "inline" ? 1 : static_cast<int>(actors);
            CHECK(Model::made.load() >= 1);
            CHECK(Model::made.load() <= most);
            // Both Calls ran on the pool's instances (a view of each, not an instance per Call).
            std::lock_guard lock(two.served->mutex);
            std::set<int> all = two.served->instances["up"];
            all.insert(two.served->instances["down"].begin(), two.served->instances["down"].end());
            CHECK(static_cast<int>(all.size()) <= most);
        }
    }
    CHECK(Model::alive.load() == 0);  // every instance released with its actor
}

TEST_CASE("shared pool: the pool's actors are made once each however many Calls use them",
          "[runtime][pools]") {
    // Slow batches keep every actor busy, so each of the pool's actors is started.
    Model::made = 0;
    auto slow = [](long k) {
        return [k](Batch& b) {
            std::this_thread::sleep_for(2ms);
            add_ints(b, k);
        };
    };
    TwoCalls two(3, slow(1), slow(10));
    Recorder rec;
    std::vector<long> roots;
    for (int i = 0; i < 24; ++i) roots.push_back(4);
    const RunReport report = run_with(two.plan, roots, rec);
    CHECK(rec.of(two.down_out).size() == 96);
    CHECK(Model::made.load() == 3);  // 3 actors, 2 Calls: 3 instances, not 6
    // Both Calls ran on those 3 instances. Which instances each Call reached is the scheduler's
    // choice (under a sanitizer one Call may see only 2 of them), so only the union is fixed.
    std::lock_guard lock(two.served->mutex);
    const std::set<int>& up = two.served->instances["up"];
    const std::set<int>& down = two.served->instances["down"];
    CHECK_FALSE(up.empty());
    CHECK_FALSE(down.empty());
    std::set<int> all = up;
    all.insert(down.begin(), down.end());
    CHECK(all == std::set<int>{0, 1, 2});
}

TEST_CASE("shared pool: a failure in one Call leaves the other Call's items alone",
          "[runtime][pools][recovery]") {
    // up fails page 301 (opaque) under isolate_tail; down, on the same pool, fails page 412
    // by a RecordFailure under retry_batch. Each Call's own policy applies to its own items.
    for (std::uint32_t actors : {1u, 2u}) {
        CAPTURE(actors);
        CallOptions up_options;
        up_options.recovery = Recovery::IsolateTail;
        CallOptions down_options;
        down_options.recovery = Recovery::RetryBatch;
        down_options.retries = 2;
        auto down_attempts = std::make_shared<std::atomic<int>>(0);
        TwoCalls two(
            actors,
            [](Batch& b) {
                for (std::size_t g = 0; g < b.size(); ++g) {
                    if (b.input(g, 0).get<long>() == 301) throw std::runtime_error("up: bad 301");
                }
                add_ints(b, 1);
            },
            [down_attempts](Batch& b) {
                for (std::size_t g = 0; g < b.size(); ++g) {
                    const long x = b.input(g, 0).get<long>();
                    if (x == 403) {  // page 402 after up's +1
                        down_attempts->fetch_add(1);
                        b.fail_record(g, "down: bad 402");
                        continue;
                    }
                    b.set_output(g, 0, Value::of<long>(x + 10));
                }
            },
            up_options, down_options);
        Recorder rec;
        const RunReport report = run_with(two.plan, {2, 3, 4, 5}, rec);
        REQUIRE(report.roots.size() == 4);
        CHECK(report.roots[0].status == RootStatus::Ok);
        CHECK(report.roots[1].status == RootStatus::Failed);
        CHECK(report.roots[1].failed_call == "up");
        CHECK_THAT(report.roots[1].reason, ContainsSubstring("up: bad 301"));
        CHECK(report.roots[2].status == RootStatus::Failed);
        CHECK(report.roots[2].failed_call == "down");
        CHECK_THAT(report.roots[2].reason, ContainsSubstring("down: bad 402"));
        CHECK(report.roots[3].status == RootStatus::Ok);
        // The counters are each Call's own: up failed one item, down one.
        CHECK(counters(report, "up").failed == 1);
        CHECK(counters(report, "down").failed == 1);
        CHECK(counters(report, "down").retries == 0);  // a typed failure is not retried
        CHECK(down_attempts->load() == 1);
        // Roots 2 and 5 went through both Calls whole.
        const std::multiset<std::string> got = rec.of(two.down_out);
        for (long x : {2L, 5L}) {
            for (long i = 0; i < x; ++i) CHECK(got.count(std::to_string(100 * x + i + 11)) == 1);
        }
        CHECK(Model::alive.load() == 0);
    }
}

TEST_CASE("shared pool: its Calls take turns at its actors; none starves another",
          "[runtime][pools][fairness]") {
    // Two sibling Calls of one pool on the same pages, one actor: a scheduler that always
    // served the Call it meets first in dispatch order would run all of one before the other.
    // With a timeout on one of them (its batches go one per actor), the other's deeper queue
    // must not keep it waiting either.
    for (const auto& [batch, timed] :
         {std::pair{1u, false}, std::pair{4u, false}, std::pair{1u, true}, std::pair{4u, true}}) {
        CAPTURE(batch, timed);
        auto served = std::make_shared<Served>();
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        const PortId src = b.source("src");
        const PortId pages = b.add_port("pages", page);
        const PortId a_out = b.add_port("a", page);
        const PortId c_out = b.add_port("c", page);
        b.add_call(
            {"split",
             CallKind::Expand,
             doc,
             {{src}},
             {pages},
             opts(64, 1),
             expand_int([](long) { return 64; }, [](long x, long i) { return 100 * x + i; })});
        const PoolId pool = b.add_pool(model_pool(1));
        const auto slow = [](Batch& bt) {
            std::this_thread::sleep_for(200us);
            add_ints(bt, 1);
        };
        CallSpec a =
            pooled("a", CallKind::Map, page, pages, a_out, pool, view("a", served, slow), batch);
        if (timed) a.options.timeout = std::chrono::milliseconds(10000);
        b.add_call(std::move(a));
        b.add_call(
            pooled("c", CallKind::Map, page, pages, c_out, pool, view("c", served, slow), batch));
        const Plan plan = b.build();
        Recorder rec;
        const RunReport report = run_with(plan, {1, 2, 3}, rec);
        CHECK(rec.of(a_out).size() == 192);
        CHECK(rec.of(c_out).size() == 192);
        // While both have work, the batches alternate: at no point has one Call run more than
        // two batches (one actor, two slots; one with a timeout in the pool) beyond the other.
        std::lock_guard lock(served->mutex);
        int lead = 0, worst = 0;
        std::size_t a_left = counters(report, "a").batches, c_left = counters(report, "c").batches;
        for (const std::string& call : served->calls) {
            if (a_left == 0 || c_left == 0) break;  // one is done: the other runs alone
            lead += call == "a" ? 1 : -1;
            (call == "a" ? a_left : c_left) -= 1;
            worst = std::max(worst, std::abs(lead));
        }
        CHECK(worst <= 2);
    }
}

TEST_CASE("shared pool: a downstream Call of the pool is not stuck behind an upstream flood",
          "[runtime][pools][fairness]") {
    // up feeds down, both on one actor: down's batches start long before up's last one, so
    // roots finish (and are released) as the run goes, not all at its end.
    auto served = std::make_shared<Served>();
    const auto slow = [](long k) {
        return [k](Batch& bt) {
            std::this_thread::sleep_for(100us);
            add_ints(bt, k);
        };
    };
    TwoCalls two(1, slow(1), slow(10));
    Recorder rec;
    std::vector<long> roots(30, 8);
    const RunReport report = run_with(two.plan, roots, rec);
    CHECK(rec.of(two.down_out).size() == 240);
    std::lock_guard lock(two.served->mutex);
    const auto& calls = two.served->calls;
    const auto first_down = std::find(calls.begin(), calls.end(), "down") - calls.begin();
    const auto last_up = calls.rend() - std::find(calls.rbegin(), calls.rend(), "up") - 1;
    CHECK(first_down < last_up / 4);
    // And at most a few up batches in a row once down has started.
    int run = 0, longest = 0;
    for (auto i = static_cast<std::size_t>(first_down); i < static_cast<std::size_t>(last_up);
         ++i) {
        run = calls[i] == "up" ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    CHECK(longest <= 4);
    (void)report;
}

TEST_CASE("shared pool: a timeout or an infra failure replaces the pool actor whatever its Call",
          "[runtime][pools][recovery]") {
    SECTION("an InfraFailure in one Call: the batch replays on a fresh instance") {
        auto failed_once = std::make_shared<std::atomic<bool>>(false);
        Model::made = 0;
        TwoCalls two(
            1, [](Batch& b) { add_ints(b, 1); },
            [failed_once](Batch& b) {
                if (!failed_once->exchange(true)) throw InfraFailure("lost the device");
                add_ints(b, 10);
            });
        Recorder rec;
        const RunReport report = run_with(two.plan, {2, 3}, rec);
        CHECK(rec.of(two.down_out).size() == 5);
        for (const RootResult& r : report.roots) CHECK(r.status == RootStatus::Ok);
        CHECK(counters(report, "down").infra_retries == 1);
        CHECK(counters(report, "up").infra_retries == 0);
        CHECK(Model::made.load() == 2);  // the pool actor was replaced: a second instance
    }
    SECTION("a timeout in one Call: the pool actor is retired and its batch replayed") {
        auto hung_once = std::make_shared<std::atomic<bool>>(false);
        Model::made = 0;
        CallOptions down_options;
        down_options.timeout = 300ms;
        down_options.infra_retries = 2;
        TwoCalls two(
            1, [](Batch& b) { add_ints(b, 1); },
            [hung_once](Batch& b) {
                if (!hung_once->exchange(true)) std::this_thread::sleep_for(1500ms);
                add_ints(b, 10);
            },
            {}, down_options);
        Recorder rec;
        const RunReport report = run_with(two.plan, {2, 3}, rec);
        CHECK(rec.of(two.down_out).size() == 5);
        for (const RootResult& r : report.roots) CHECK(r.status == RootStatus::Ok);
        CHECK(counters(report, "down").infra_retries >= 1);
        CHECK(Model::made.load() >= 2);
    }
}

TEST_CASE("shared pool: a pool whose instance cannot be made fails its Calls' batches as setup",
          "[runtime][pools]") {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const PortId src = b.source("src");
    const PortId out = b.add_port("out", doc);
    PoolSpec pool{"model"};
    pool.instance = []() -> PoolInstance { throw std::runtime_error("weights not found"); };
    const PoolId p = b.add_pool(std::move(pool));
    auto served = std::make_shared<Served>();
    b.add_call(pooled("m", CallKind::Map, doc, src, out, p,
                      view("m", served, [](Batch& bt) { add_ints(bt, 1); })));
    const Plan plan = b.build();
    Recorder rec;
    const RunReport report = run_with(plan, {1, 2}, rec);
    REQUIRE(report.roots.size() == 2);
    for (const RootResult& r : report.roots) {
        CHECK(r.status == RootStatus::Failed);
        CHECK_THAT(r.reason, ContainsSubstring("weights not found"));
    }
}

TEST_CASE("shared pool: the plan's rules for pools", "[runtime][pools][plan]") {
    struct Case {
        const char* what;
        std::function<void(PlanBuilder&, DomainId, PortId, PortId)> build;
        const char* error;  // nullptr: valid
    };
    const auto served = std::make_shared<Served>();
    const PoolView v = view("m", served, [](Batch& bt) { add_ints(bt, 1); });
    const std::vector<Case> table = {
        {"a pooled map",
         [&](PlanBuilder& b, DomainId d, PortId in, PortId out) {
             b.add_call(pooled("m", CallKind::Map, d, in, out, b.add_pool(model_pool(2)), v));
         },
         nullptr},
        {"an unknown pool",
         [&](PlanBuilder& b, DomainId d, PortId in, PortId out) {
             b.add_call(pooled("m", CallKind::Map, d, in, out, 3, v));
         },
         "unknown pool"},
        {"a pooled Call without a view",
         [&](PlanBuilder& b, DomainId d, PortId in, PortId out) {
             b.add_call(pooled("m", CallKind::Map, d, in, out, b.add_pool(model_pool(2)), {}));
         },
         "has no view"},
        {"a view without a pool",
         [&](PlanBuilder& b, DomainId d, PortId in, PortId out) {
             CallSpec spec = pooled("m", CallKind::Map, d, in, out, kNoPool, v);
             spec.factory = map_int([](long x) { return x; });
             b.add_call(std::move(spec));
         },
         "a pool view without a pool"},
        {"actors of its own",
         [&](PlanBuilder& b, DomainId d, PortId in, PortId out) {
             CallSpec spec = pooled("m", CallKind::Map, d, in, out, b.add_pool(model_pool(2)), v);
             spec.options.actors = 5;
             b.add_call(std::move(spec));
         },
         "set them on the pool"},
        {"the pool's actors again",
         [&](PlanBuilder& b, DomainId d, PortId in, PortId out) {
             CallSpec spec = pooled("m", CallKind::Map, d, in, out, b.add_pool(model_pool(2)), v);
             spec.options.actors = 2;
             b.add_call(std::move(spec));
         },
         nullptr},
        {"isolation of its own",
         [&](PlanBuilder& b, DomainId d, PortId in, PortId out) {
             CallSpec spec = pooled("m", CallKind::Map, d, in, out, b.add_pool(model_pool(2)), v);
             spec.options.isolation = Isolation::Process;
             b.add_call(std::move(spec));
         },
         "set them on the pool"},
        {"a pool without an instance",
         [&](PlanBuilder& b, DomainId d, PortId in, PortId out) {
             PoolSpec pool{"model"};
             b.add_call(pooled("m", CallKind::Map, d, in, out, b.add_pool(std::move(pool)), v));
         },
         "needs an instance factory"},
        {"a pool of no actors",
         [&](PlanBuilder& b, DomainId d, PortId in, PortId out) {
             b.add_call(pooled("m", CallKind::Map, d, in, out, b.add_pool(model_pool(0)), v));
         },
         "actors must be at least 1"},
    };
    for (const Case& c : table) {
        CAPTURE(c.what);
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const PortId src = b.source("src");
        const PortId out = b.add_port("out", doc);
        c.build(b, doc, src, out);
        if (!c.error) {
            const Plan plan = b.build();
            REQUIRE(plan.pools.size() == 1);
            CHECK(plan.pools[0].calls == std::vector<CallId>{0});
            CHECK(plan.calls[0].options.actors == 2);  // the pool's, copied
            CHECK(plan.calls[0].factory);  // a factory that refuses to make a lone actor
            CHECK_THROWS_WITH(plan.calls[0].factory(), ContainsSubstring("runs on pool 'model'"));
        } else {
            CHECK_THROWS_WITH(b.build(), ContainsSubstring(c.error));
        }
    }
}

TEST_CASE("shared pool: the executors see one actor set per pool", "[runtime][pools]") {
    TwoCalls two(3, [](Batch& b) { add_ints(b, 1); }, [](Batch& b) { add_ints(b, 10); });
    const ActorSets sets = actor_sets(two.plan);
    REQUIRE(sets.sets.size() == 2);  // the pool, and split
    CHECK(sets.sets[0].pool);
    CHECK(sets.sets[0].actors == 3);
    CHECK(sets.sets[0].calls == std::vector<CallId>{1, 2});
    CHECK(sets.of_call[1] == 0);
    CHECK(sets.of_call[2] == 0);
    CHECK(sets.of_call[0] == 1);
    CHECK_FALSE(sets.sets[1].pool);
}

TEST_CASE("shared pool: with the result store each Call of the pool hits on a re-run",
          "[runtime][pools][cache]") {
    const auto dir =
        std::filesystem::temp_directory_path() / ("rop-pools-cache-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    for (int round = 0; round < 2; ++round) {
        CAPTURE(round);
        Model::made = 0;
        TwoCalls two(2, [](Batch& b) { add_ints(b, 1); }, [](Batch& b) { add_ints(b, 10); });
        Recorder rec;
        VecSource source({2, 3, 4});
        RunOptions options;
        options.observer = &rec;
        options.cache_dir = dir.string();
        const RunReport report = run(two.plan, source, options);
        CHECK(rec.of(two.down_out).size() == 9);
        const CallCounters& up = counters(report, "up");
        const CallCounters& down = counters(report, "down");
        if (round == 0) {
            CHECK(up.cache_misses == 9);
            CHECK(down.cache_misses == 9);
        } else {
            CHECK(up.cache_hits == 9);
            CHECK(down.cache_hits == 9);
            CHECK(up.cache_misses == 0);
            CHECK(down.cache_misses == 0);
        }
    }
    std::filesystem::remove_all(dir);
}
