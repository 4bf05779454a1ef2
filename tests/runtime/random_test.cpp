// Randomized schedules against the sequential reference (SEMANTICS.md "The contract"): for each
// seed a random pipeline runs on the real runtime under random batch caps, actor counts, batching
// modes, admission limits and completion orders, and must match the reference interpreter.
// ROP_RANDOM_SEEDS=N runs more seeds (from ROP_FIRST_SEED, default 1; ROP_MAX_FAILURES stops
// after that many, default 3); ROP_SEED=S replays one seed and prints its pipeline.
#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "reference/compare.h"
#include "reference/interpreter.h"
#include "reference/random_pipeline.h"

using namespace rop::runtime;
using namespace rop::runtime::reference;

namespace {

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
    const char* text = std::getenv(name);
    return text && *text ? std::strtoull(text, nullptr, 10) : fallback;
}

// A hung run must still name its seed: after `limit` the watchdog prints the replay command
// and aborts the test process.
class Watchdog {
  public:
    explicit Watchdog(std::chrono::seconds limit)
        : thread_([this, limit] {
              std::unique_lock<std::mutex> lock(mu_);
              while (!stop_) {
                  std::uint64_t seed = seed_;
                  if (!cv_.wait_for(lock, limit, [&] { return stop_ || seed != seed_; })) {
                      std::fprintf(stderr, "seed %llu did not finish in %llds; replay: %s\n",
                                   static_cast<unsigned long long>(seed),
                                   static_cast<long long>(limit.count()),
                                   replay_command(seed).c_str());
                      std::abort();
                  }
              }
          }) {}
    ~Watchdog() {
        {
            std::lock_guard<std::mutex> lock(mu_);
            stop_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }
    void start(std::uint64_t seed) {
        {
            std::lock_guard<std::mutex> lock(mu_);
            seed_ = seed;
        }
        cv_.notify_all();
    }

  private:
    std::mutex mu_;
    std::condition_variable cv_;
    bool stop_ = false;
    std::uint64_t seed_ = 0;
    std::thread thread_;
};

}  // namespace

TEST_CASE("random pipelines: the runtime matches the sequential reference", "[runtime][random]") {
    const std::uint64_t one = env_number("ROP_SEED", 0);
    const std::uint64_t count = one ? 1 : env_number("ROP_RANDOM_SEEDS", 2000);
    const std::uint64_t first = env_number("ROP_FIRST_SEED", 1);
    const std::uint64_t max_failures = env_number("ROP_MAX_FAILURES", 3);
    Watchdog watchdog(std::chrono::seconds(60));
    std::size_t failures = 0, items = 0, barriers = 0, streams = 0;
    auto start = std::chrono::steady_clock::now();
    for (std::uint64_t i = 0; i < count && failures < max_failures; ++i) {
        std::uint64_t seed = one ? one : first + i;
        watchdog.start(seed);
        SeedCheck check = check_seed(seed, one != 0);
        items += check.items;
        barriers += check.barriers;
        streams += check.fenced_streams;
        if (one) std::fputs(check.diff.c_str(), stdout);
        bool ok = check.diff.empty() || check.diff.find(": ok\n") != std::string::npos;
        if (!ok) {
            ++failures;
            FAIL_CHECK(check.diff);
        }
    }
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf(
        "[random] %llu seeds, %zu items, %zu barrier groups, %zu barrier-group expands "
        "allowed a doomed subtree, %.1f s\n",
        static_cast<unsigned long long>(count), items, barriers, streams, seconds);
}

TEST_CASE("random pipelines: the reference ignores physical knobs", "[runtime][random]") {
    // The same seed with and without random batch caps, actors and jitter: the oracle must not
    // see the difference (only semantic options reach it), and must be deterministic.
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
        RandomPipeline a = make_random_pipeline(seed, false);
        RandomPipeline b = make_random_pipeline(seed, true);
        RefRun ra = interpret(a.plan, a.roots);
        RefRun rb = interpret(b.plan, b.roots);
        INFO("seed " << seed << "\n" << a.description);
        CHECK(ra.items == rb.items);
        CHECK(ra.roots == rb.roots);
        CHECK(ra.barriers == rb.barriers);
        CHECK(ra.illegal_choices.empty());
        CHECK_FALSE(ra.aborted);
    }
}

TEST_CASE("random pipelines: the generator covers every feature", "[runtime][random]") {
    std::map<std::string, int> seen;
    for (std::uint64_t seed = 1; seed <= 300; ++seed) {
        RandomPipeline p = make_random_pipeline(seed, true);
        RefRun run = interpret(p.plan, p.roots);
        const std::string& d = p.description;
        for (const char* tag :
             {"fanout<=50", "?", "record", "group", "poison", "transient", "infra", "(thrown)",
              "single_parent", "isolate_tail", "retry_batch", "retry_tail", "jitter 0us"})
            seen[tag] += d.find(tag) != std::string::npos;
        seen["jitter"] += d.find("jitter 0us") == std::string::npos;
        for (const PoolSpec& pool : p.plan.pools)
            seen["shared pool of two Calls"] += pool.calls.size() >= 2;
        std::set<PortId> reduced;
        for (const CallSpec& call : p.plan.calls) {
            seen["multi-output"] += call.outputs.size() > 1;
            seen["broadcast"] += call.kind == CallKind::Broadcast;
            seen["filter"] += call.kind == CallKind::Filter;
            if (call.kind != CallKind::Reduce) continue;
            seen[call.factory ? "reduce with UDF" : "reduce without UDF"] += 1;
            seen["nested reduce"] += reduced.count(call.inputs[0].port) != 0;
            reduced.insert(call.outputs[0]);
        }
        for (const auto& [key, fact] : run.items) {
            seen["four levels"] += key.path.size() == 4;
            seen["empty group"] += fact.value == "[]";
            seen[to_string(fact.outcome)] += 1;
        }
        seen["barrier"] += !run.barriers.empty();
    }
    for (const char* feature : {"fanout<=50",
                                "?",
                                "record",
                                "group",
                                "poison",
                                "transient",
                                "infra",
                                "(thrown)",
                                "single_parent",
                                "isolate_tail",
                                "retry_batch",
                                "retry_tail",
                                "jitter",
                                "jitter 0us",
                                "multi-output",
                                "broadcast",
                                "filter",
                                "reduce with UDF",
                                "reduce without UDF",
                                "nested reduce",
                                "shared pool of two Calls",
                                "four levels",
                                "empty group",
                                "PRESENT",
                                "DROPPED",
                                "FAILED",
                                "SUPPRESSED",
                                "barrier"}) {
        INFO(feature);
        CHECK(seen[feature] > 0);
    }
}
