// A GroupFailure is streamed (docs/runtime.md): Batch::fail_group reaches the driver while its
// batch goes on, so the barrier rises at once; the item's siblings later in that batch turn
// unwanted there, and those queued behind it are suppressed without running. A GroupFailure a
// stale attempt streams (its batch timed out and was replayed) is not a fact.
#include <rop/udf.h>

#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <chrono>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;
using namespace std::chrono_literals;

namespace {

// What the actors saw. Shared through a shared_ptr: actor threads may outlive a failed CHECK.
struct Seen {
    std::mutex mutex;
    std::set<long> ran;            // pages whose work ran (wanted when their turn came)
    std::set<long> skipped;        // pages seen unwanted and left without a result
    bool unwanted_in_time = true;  // page 501 turned unwanted while page 500's batch ran
};

}  // namespace

TEST_CASE("a streamed GroupFailure bars its siblings while its batch still runs",
          "[runtime][streamed-failure]") {
    // Root 5: pages 500..504; root 9: pages 900..908. The map takes 8 pages a batch on one actor,
    // page by page. Page 500 fails its group with fail_group and the batch goes on; page 501
    // waits (up to 5 s) for the driver to make it unwanted. Without streaming, the barrier would
    // rise only at this batch's Done: page 501 would wait the whole 5 s and then run.
    auto seen = std::make_shared<Seen>();
    OneMap one(opts(8, 1), [seen](Batch& b) {
        for (std::size_t g = 0; g < b.size(); ++g) {
            const long page = b.input(g, 0).get<long>();
            if (page == 500) {
                b.fail_group(g, "page 500 is poison");
                continue;
            }
            if (page == 501) {
                const auto limit = std::chrono::steady_clock::now() + 5s;
                while (b.wanted(g) && std::chrono::steady_clock::now() < limit) {
                    std::this_thread::sleep_for(1ms);
                }
                std::lock_guard<std::mutex> lock(seen->mutex);
                seen->unwanted_in_time = !b.wanted(g);
            }
            std::lock_guard<std::mutex> lock(seen->mutex);
            if (!b.wanted(g)) {
                seen->skipped.insert(page);
                continue;  // no result: it is not wanted
            }
            seen->ran.insert(page);
            b.set_output(g, 0, Value::of<long>(page));
        }
    });
    VecSource source({5, 9});
    const RunReport report = run(one.plan, source);
    REQUIRE(report.roots.size() == 2);
    CHECK(report.roots[0].status == RootStatus::Failed);
    CHECK(report.roots[0].failed_call == "m");
    CHECK(report.roots[0].reason == "page 500 is poison");
    CHECK(report.roots[1].status == RootStatus::Ok);
    std::lock_guard<std::mutex> lock(seen->mutex);
    CHECK(seen->unwanted_in_time);
    // Root 5's other pages never ran: 501..504 were in the failing batch and skipped there.
    for (long page = 501; page <= 504; ++page) {
        CAPTURE(page);
        CHECK(seen->ran.count(page) == 0);
    }
    for (long page = 900; page <= 908; ++page) {
        CAPTURE(page);
        CHECK(seen->ran.count(page) == 1);  // the other root is untouched
    }
    const CallCounters& m = report.calls[1];
    CHECK(m.failed == 1);
    CHECK(m.stale_reports == 0);  // the streamed Grain is not counted stale at Done
}

TEST_CASE("a streamed GroupFailure suppresses the siblings queued behind its batch",
          "[runtime][streamed-failure]") {
    // Root 0: 24 pages (2400..2423), 4 a batch on one actor, two batches held by the actor at a
    // time. The first batch fails page 2400's group and then works on: with threads until page
    // 2401 turns unwanted (up to 5 s), inline for 300 ms. Streamed, the barrier is up before the
    // batch's own pages 2401..2403 come, and before the actor's second batch starts: none of
    // pages 2401..2423 runs (unwanted in the batches the actor holds, suppressed at dequeue for
    // the rest).
    for (const char* executor : {"threads", "inline"}) {
        CAPTURE(executor);
        auto seen = std::make_shared<Seen>();
        const bool threads = std::string(executor) == "threads";
        OneMap one(opts(4, 1), [seen, threads](Batch& b) {
            for (std::size_t g = 0; g < b.size(); ++g) {
                const long page = b.input(g, 0).get<long>();
                if (page == 2400) {
                    b.fail_group(g, "page 2400 is poison");
                    if (!threads) {
                        std::this_thread::sleep_for(300ms);  // the driver waits for the batch
                        continue;
                    }
                    const auto limit = std::chrono::steady_clock::now() + 5s;
                    while (g + 1 < b.size() && b.wanted(g + 1) &&
                           std::chrono::steady_clock::now() < limit) {
                        std::this_thread::sleep_for(1ms);
                    }
                    continue;
                }
                std::lock_guard<std::mutex> lock(seen->mutex);
                if (!b.wanted(g)) {
                    seen->skipped.insert(page);
                    continue;
                }
                seen->ran.insert(page);
                b.set_output(g, 0, Value::of<long>(page));
            }
        });
        VecSource source({24});
        RunOptions options;
        options.executor = executor;
        const RunReport report = run(one.plan, source, options);
        REQUIRE(report.roots.size() == 1);
        CHECK(report.roots[0].status == RootStatus::Failed);
        CHECK(report.roots[0].reason == "page 2400 is poison");
        std::lock_guard<std::mutex> lock(seen->mutex);
        INFO("pages that ran: " << seen->ran.size()
                                << ", skipped as unwanted: " << seen->skipped.size());
        // Threads: the batch's own pages after 2400 are unwanted by the time they come (the
        // inline executor runs the batch on the driver thread, which reads the streamed report
        // only after it: there they run).
        const long first_barred = threads ? 2401 : 2404;
        for (long page = first_barred; page <= 2423; ++page) {
            CAPTURE(page);
            CHECK(seen->ran.count(page) == 0);
        }
        CHECK(report.calls[1].batches <= 2);  // the batches after the second were never made
    }
}

TEST_CASE("a GroupFailure streamed by a stale attempt is not a fact",
          "[runtime][streamed-failure]") {
    // Page 700's first attempt sleeps past the Call's timeout, so its batch is abandoned and
    // page 700 runs again (generation+1) and succeeds; only then does the stale attempt stream a
    // GroupFailure for it. The fence rejects it: root 0 stays Ok. Root 1's 100 pages (10000..)
    // keep the run going until the stale report is in (while it is not, each waits 100 ms, well
    // inside the timeout: 100 pages on 2 actors outlast the stale attempt's 1.5 s).
    auto attempts = std::make_shared<std::atomic<int>>(0);
    auto streamed = std::make_shared<std::atomic<bool>>(false);
    CallOptions o = opts(1, 2);
    o.timeout = 500ms;
    o.infra_retries = 2;
    OneMap one(o, [attempts, streamed](Batch& b) {
        const long page = b.input(0, 0).get<long>();
        if (page == 700 && attempts->fetch_add(1) == 0) {
            std::this_thread::sleep_for(1500ms);  // abandoned at 500 ms, replayed meanwhile
            b.fail_group(0, "a stale attempt's failure");
            streamed->store(true);
            return;
        }
        for (int i = 0; page >= 10000 && i < 10 && !streamed->load(); ++i) {
            std::this_thread::sleep_for(10ms);
        }
        b.set_output(0, 0, Value::of<long>(page));
    });
    VecSource source({7, 100});
    const RunReport report = run(one.plan, source);
    REQUIRE(report.roots.size() == 2);
    CHECK(streamed->load());  // the stale attempt streamed before the run ended
    CHECK(report.roots[0].status == RootStatus::Ok);
    CHECK(report.roots[0].reason.empty());
    CHECK(report.roots[1].status == RootStatus::Ok);
    CHECK(attempts->load() >= 2);
    CHECK(report.calls[1].failed == 0);
}

TEST_CASE("rop::fail_group_now streams a batch UDF's GroupFailure as Batch::fail_group does",
          "[runtime][streamed-failure]") {
    // As a batch UDF would: page 200 (root 0) fails its group through rop::fail_group_now; page
    // 201 (same root), later in the same batch, waits for rop::wanted to turn false (up to 5 s),
    // which only the streamed barrier can do while the batch runs. Page 100 (root 1) stays
    // wanted and runs.
    auto seen201_wanted = std::make_shared<std::atomic<bool>>(false);
    auto ran100 = std::make_shared<std::atomic<bool>>(false);
    OneMap one(opts(8, 1), [seen201_wanted, ran100](Batch& b) {
        for (std::size_t g = 0; g < b.size(); ++g) {
            const long page = b.input(g, 0).get<long>();
            if (page == 200) {
                rop::fail_group_now(g, "page 200 is poison");
                rop::fail_group_now(g, "a second reason is ignored");
                continue;
            }
            if (page == 201) {
                const auto limit = std::chrono::steady_clock::now() + 5s;
                while (rop::wanted(g) && std::chrono::steady_clock::now() < limit) {
                    std::this_thread::sleep_for(1ms);
                }
                if (rop::wanted(g)) seen201_wanted->store(true);
                continue;
            }
            if (page == 100 && rop::wanted(g)) ran100->store(true);
            b.set_output(g, 0, b.input(g, 0));
        }
    });
    VecSource source({2, 1});  // root 0: pages 200, 201; root 1: page 100
    const RunReport report = run(one.plan, source);
    REQUIRE(report.roots.size() == 2);
    CHECK_FALSE(seen201_wanted->load());
    CHECK(ran100->load());
    CHECK(report.roots[0].status == RootStatus::Failed);
    CHECK(report.roots[0].reason == "page 200 is poison");
    CHECK(report.roots[1].status == RootStatus::Ok);
    CHECK(report.calls[1].stale_reports == 0);
}

TEST_CASE("rop::fail_group_now naming an item outside the batch is a contract error",
          "[runtime][streamed-failure]") {
    // The pages stream, so the batch may hold one page or both: the index named is its size + 5.
    auto size = std::make_shared<std::atomic<std::size_t>>(0);
    OneMap one(opts(4, 1), [size](Batch& b) {
        size->store(b.size());
        rop::fail_group_now(b.size() + 5, "no such item");
        for (std::size_t g = 0; g < b.size(); ++g) b.set_output(g, 0, b.input(g, 0));
    });
    VecSource source({2});
    std::string error;
    try {
        run(one.plan, source);
    } catch (const std::exception& e) {
        error = e.what();
    }
    CHECK_THAT(error, Catch::Matchers::ContainsSubstring(
                          "fail_group: grain " + std::to_string(size->load() + 5) +
                          " out of range (batch of " + std::to_string(size->load()) + ")"));
}
