// Suppression reaches work in flight (docs/runtime.md): once a sibling's GroupFailure bars a
// Grain that is already in a batch on an actor, Batch::wanted (and rop::wanted, for batch UDFs)
// turns false there, and the actor may leave it without a result: it is SUPPRESSED, not an error.
#include <rop/udf.h>

#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <thread>

#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;
using namespace std::chrono_literals;

namespace {

struct Seen {
    std::mutex mutex;
    int skipped = 0;            // in-flight pages that saw themselves unwanted and were skipped
    int ran_wanted = 0;         // pages that waited 10 s and were still wanted
    bool wanted_agreed = true;  // Batch::wanted and rop::wanted said the same
    std::atomic<bool> sibling_started{false};  // a page of root 5 other than 500 is on an actor
};

}  // namespace

TEST_CASE("a Grain barred while in flight is unwanted there and may be skipped",
          "[runtime][wanted]") {
    // Root 5 has pages 500..504 and root 7 pages 700..706; the map takes one page per batch on
    // 3 actors. Page 500 raises a GroupFailure; every other page of root 5 waits (up to
    // 10 s) until the barrier makes it unwanted, then returns without a result. Root 7's pages
    // stay wanted: after 50 ms of waiting they run. Page 500 fails once a sibling is in flight
    // (on a loaded machine the barrier could otherwise commit before any sibling was dispatched,
    // and every sibling would be suppressed in its queue, none on an actor).
    auto seen = std::make_shared<Seen>();
    OneMap one(opts(1, 3), [seen](Batch& b) {
        const long page = b.input(0, 0).get<long>();
        if (page == 500) {
            for (int i = 0; i < 1000 && !seen->sibling_started.load(); ++i) {
                std::this_thread::sleep_for(5ms);
            }
            b.fail_group(0, "page 500 is poison");
            return;
        }
        if (page < 700) seen->sibling_started = true;
        const auto limit = std::chrono::steady_clock::now() + (page < 700 ? 10s : 50ms);
        while (b.wanted(0) && std::chrono::steady_clock::now() < limit) {
            std::this_thread::sleep_for(1ms);
        }
        std::lock_guard<std::mutex> lock(seen->mutex);
        seen->wanted_agreed = seen->wanted_agreed && rop::wanted(0) == b.wanted(0);
        if (!b.wanted(0)) {
            ++seen->skipped;
            return;  // no result: it is not wanted
        }
        if (page < 700) ++seen->ran_wanted;
        b.set_output(0, 0, Value::of<long>(page));
    });
    VecSource source({5, 7});
    Recorder recorder;
    RunOptions options;
    options.observer = &recorder;
    const RunReport report = run(one.plan, source, options);
    INFO("skipped " << seen->skipped << ", ran while wanted " << seen->ran_wanted);
    REQUIRE(report.roots.size() == 2);
    CHECK(report.roots[0].status == RootStatus::Failed);
    CHECK(report.roots[0].reason.find("page 500 is poison") != std::string::npos);
    CHECK(report.roots[1].status == RootStatus::Ok);
    // Root 5's other four pages: each SUPPRESSED, whether it was skipped on its actor or never
    // dispatched; none waited out its 10 s still wanted.
    CHECK(seen->ran_wanted == 0);
    CHECK(seen->skipped >= 1);
    CHECK(seen->wanted_agreed);
    const std::multiset<std::string> out = recorder.of(one.out);
    CHECK(out.count("SUPPRESSED") == 4);
    CHECK(out.count("FAILED") == 1);
    CHECK(out.size() == 12);
    CHECK_FALSE(recorder.duplicate);
}

TEST_CASE("outside a batch rop::wanted is true", "[runtime][wanted]") {
    CHECK(rop::wanted(0));
    CHECK(rop::wanted(12345));
}
