// Queue priority inside a Call (SEMANTICS.md, "Failures are typed": immediate retry -> ready FIFO
// -> deferred recovery; docs/runtime.md, Scheduling, "Order inside a Call"): a failed batch's
// immediate retry starts before the full ready batches queued behind it, and a deferred recovery
// unit (a bisection half) starts after a full ready batch, but behind no more than one per actor
// (priority rule 7). One actor, and one root of 40 pages that reach the map's queue in one drain
// (gated_pages.h), so ten full batches are ready when the first one fails, and the order batches
// start in is the order the driver built them in. How long a deferred unit waits under a steady
// stream of new roots is test_fairness.cpp's "[deferred]".
#include <catch2/catch_test_macros.hpp>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "gated_pages.h"

using namespace rop::runtime;
using namespace rop::runtime::test;

namespace {

enum class Failure { Opaque, Infra, NamedRecord, UnnamedRecord };

struct Scenario {
    const char* name;
    Recovery recovery;
    std::uint32_t retries;
    Failure failure;
    int failures;       // how many batches holding page 4000 fail
    const char* units;  // the recovery units after the first failure: I immediate, D deferred
};

const std::vector<Scenario>& scenarios() {
    static const std::vector<Scenario> all = {
        {"retry_batch replays the batch", Recovery::RetryBatch, 1, Failure::Opaque, 1, "I"},
        {"retry_tail replays the batch", Recovery::RetryTail, 1, Failure::Opaque, 1, "I"},
        {"an infra failure is replayed", Recovery::IsolateTail, 0, Failure::Infra, 1, "I"},
        {"a typed failure naming its item replays the items without a result",
         Recovery::IsolateTail, 0, Failure::NamedRecord, 1, "I"},
        {"isolate_tail replays the batch once, then bisects", Recovery::IsolateTail, 0,
         Failure::Opaque, 2, "IDD"},
        {"retry_batch out of retries bisects", Recovery::RetryBatch, 0, Failure::Opaque, 1, "DD"},
        {"a typed failure naming no item is bisected", Recovery::IsolateTail, 0,
         Failure::UnnamedRecord, 1, "DD"},
    };
    return all;
}

[[noreturn]] void fail(Failure failure, std::size_t grain) {
    switch (failure) {
        case Failure::Opaque: throw std::runtime_error("transient");
        case Failure::Infra: throw InfraFailure("device lost");
        case Failure::NamedRecord: throw RecordFailure("bad page 4000", grain);
        case Failure::UnnamedRecord: throw RecordFailure("bad page 4000");
    }
    throw std::logic_error("unknown failure");
}

}  // namespace

TEST_CASE("an immediate retry starts before full ready batches; a deferred unit after one",
          "[runtime][dispatch][queue-priority]") {
    // tail: one root, so the map's queue is its tail from the start (one batch per actor,
    // priority rule 2); otherwise a second root waits for admission (max_inflight_roots 1), and
    // the actor holds a second batch (B) when the first (A) fails. Inline, the order is exact:
    //   immediate:   A B A' C D ...      (tail: A A' B C ...)
    //   deferred:    A B C H1 D H2 E ... (tail: A B H1 C H2 D ...)
    // With threads the driver may build a batch before or after a report arrives, so the held
    // batches are 0 or 1 there, but never more.
    for (const Scenario& s : scenarios()) {
        for (const char* executor : {"inline", "threads"}) {
            for (const bool tail : {true, false}) {
                CAPTURE(s.name, executor, tail);
                const bool exact = std::string(executor) == "inline";
                const std::size_t held = tail ? 0 : 1;
                std::mutex mutex;
                std::vector<std::vector<long>> ran;  // each batch's pages, in start order
                int failures = 0;
                CallOptions o = opts(4, 1);
                o.recovery = s.recovery;
                o.retries = s.retries;
                GatedPages pages(o, [&](Batch& b) {
                    bool bad = false;
                    std::size_t at = 0;
                    {
                        std::lock_guard<std::mutex> lock(mutex);
                        ran.emplace_back();
                        for (std::size_t g = 0; g < b.size(); ++g) {
                            const long page = b.input(g, 0).get<long>();
                            ran.back().push_back(page);
                            if (page == 4000 && failures < s.failures) {
                                bad = true;
                                at = g;
                            }
                        }
                        if (bad) ++failures;
                    }
                    if (bad) fail(s.failure, at);
                    for (std::size_t g = 0; g < b.size(); ++g) b.set_output(g, 0, b.input(g, 0));
                });
                VecSource source(tail ? std::vector<long>{40} : std::vector<long>{40, 1});
                RunOptions options;
                options.executor = executor;
                if (!tail) options.max_inflight_roots = 1;
                const RunReport report = run(pages.plan, source, options);

                REQUIRE(report.roots.size() == (tail ? 1u : 2u));
                if (s.failure == Failure::NamedRecord) {
                    CHECK(report.roots[0].status == RootStatus::Failed);
                    CHECK(report.roots[0].reason == "bad page 4000");
                } else {
                    CHECK(report.roots[0].status == RootStatus::Ok);
                }
                if (!tail) CHECK(report.roots[1].status == RootStatus::Ok);
                // The batches that held one of the first batch's pages (4000..4003): the failed
                // one, then each recovery unit.
                std::vector<std::size_t> at;
                std::string order;
                for (std::size_t i = 0; i < ran.size(); ++i) {
                    order += (i ? " " : "") + std::to_string(ran[i].front());
                    for (long page : ran[i]) {
                        if (page >= 4000 && page <= 4003) {
                            at.push_back(i);
                            break;
                        }
                    }
                }
                INFO("batches by first page: " << order);
                const std::string units = s.units;
                REQUIRE(at.size() == 1 + units.size());
                CHECK(at[0] == 0);
                for (std::size_t u = 0; u < units.size(); ++u) {
                    CAPTURE(u);
                    const std::size_t gap = at[u + 1] - at[u];
                    const bool after_failure = u == 0 || units[u - 1] == 'I';
                    if (units[u] == 'I') {
                        // After the failed batch and the batches its actor already held: no
                        // full ready batch built after the failure came back goes first.
                        if (exact) CHECK(gap == 1 + held);
                        CHECK(gap <= 1 + held);
                    } else if (after_failure) {
                        // One full ready batch built after the failure came back goes first,
                        // and only one (one actor).
                        if (exact) CHECK(gap == 2 + held);
                        CHECK(gap >= 2);
                        CHECK(gap <= 2 + held);
                    } else {
                        CHECK(gap == 2);  // one full ready batch between two deferred units
                    }
                }
                // Full batches were still ready behind the last unit: it passed them.
                CHECK(ran.size() - at.back() >= 4);
            }
        }
    }
}
