// Failures no retry can fix (issue 32 item 8, docs/udfs.md "Failures no retry can fix"): a
// rop::PermanentFailure fails its item on its first failure and is never replayed by the Call's
// `retries` or `recovery`, under every policy and executor. Thrown by an element UDF it is its
// item's; thrown by a batch UDF naming its item, that item's (the batch's other items run again);
// thrown by a batch UDF naming none, halves of the batch run again, without retries, until it is
// thrown for one item alone, which fails then: no root fails for a failure it only shared a batch
// with. An ordinary exception under the same options is retried: the difference the mark makes.
#include <catch2/catch_test_macros.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "rop/runtime/generated.h"
#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;

namespace {

constexpr long kBad = 401;  // the bad page: root 1 (x = 4) has pages 400..403
const std::string kReason = "certificate of page 401 did not verify";

// How often each page ran, and how often it ran alone in its batch (UDF state is shared with
// detached threads through a shared_ptr).
struct Runs {
    std::mutex mutex;
    std::map<long, int> any;
    std::map<long, int> alone;
    void count(long page, bool alone_in_batch) {
        std::lock_guard<std::mutex> lock(mutex);
        ++any[page];
        if (alone_in_batch) ++alone[page];
    }
    int of(long page) {
        std::lock_guard<std::mutex> lock(mutex);
        return any[page];
    }
    int alone_of(long page) {
        std::lock_guard<std::mutex> lock(mutex);
        return alone[page];
    }
};

const CallCounters& counters(const RunReport& report, const std::string& name) {
    for (const CallCounters& c : report.calls) {
        if (c.name == name) return c;
    }
    FAIL("no call " << name);
    return report.calls.front();
}

// What ropc generates for an element map: rop::gen::ElementActor, one UDF call per Grain.
struct ElementCall final : rop::gen::ElementActor<ElementCall> {
    explicit ElementCall(std::shared_ptr<Runs> runs) : runs_(std::move(runs)) {}
    void run(rop::gen::Grain grain) {
        const long page = grain.in<long>(0);
        runs_->count(page, grain.batch().size() == 1);
        if (page == kBad) throw rop::PermanentFailure(kReason);
        grain.out<long>(0, page);
    }
    std::shared_ptr<Runs> runs_;
};

// A batch UDF: reads every item, throws for the batch when it holds a bad page (naming that
// page's position in its span, or no item), else publishes them all.
BatchFn batch_udf(std::shared_ptr<Runs> runs, bool named, long bad = kBad) {
    return [runs, named, bad](Batch& batch) {
        for (std::size_t g = 0; g < batch.size(); ++g) {
            runs->count(batch.input(g, 0).get<long>(), batch.size() == 1);
        }
        for (std::size_t g = 0; g < batch.size(); ++g) {
            if (bad < 0 || batch.input(g, 0).get<long>() == bad) {
                throw rop::PermanentFailure(kReason, named ? g : rop::kUnnamed);
            }
        }
        for (std::size_t g = 0; g < batch.size(); ++g) batch.set_output(g, 0, batch.input(g, 0));
    };
}

RunReport run_with(const char* executor, CallOptions o, BatchFn fn) {
    OneMap m(o, std::move(fn));
    VecSource source({3, 4, 5, 2, 6});
    RunOptions options;
    options.executor = executor;
    return run(m.plan, source, options);
}

void check_only_root_1_failed(const RunReport& report, const std::string& reason) {
    CHECK_FALSE(report.aborted);
    REQUIRE(report.roots.size() == 5);
    for (std::size_t r = 0; r < 5; ++r) {
        CAPTURE(r);
        if (r == 1) {
            CHECK(report.roots[r].status == RootStatus::Failed);
            CHECK(report.roots[r].failed_call == "m");
            CHECK(report.roots[r].reason == reason);
        } else {
            CHECK(report.roots[r].status == RootStatus::Ok);
        }
    }
    CHECK(counters(report, "m").failed == 1);
}

}  // namespace

TEST_CASE("a PermanentFailure is a RecordFailure: whatever catches one catches it", "[permanent]") {
    const rop::PermanentFailure failure("no", 3);
    const rop::RecordFailure& as_record = failure;
    CHECK(std::string(as_record.reason()) == "no");
    CHECK(as_record.index() == 3);
    CHECK(rop::PermanentFailure("no").index() == rop::kUnnamed);
}

TEST_CASE("a PermanentFailure from an element UDF fails its item on the first try", "[permanent]") {
    for (const char* executor : {"threads", "inline"}) {
        for (Recovery recovery :
             {Recovery::Abort, Recovery::RetryBatch, Recovery::RetryTail, Recovery::IsolateTail}) {
            for (auto [batch, actors] : {std::pair{1u, 1u}, {4u, 1u}, {16u, 2u}}) {
                CAPTURE(executor, static_cast<int>(recovery), batch, actors);
                CallOptions o = opts(batch, actors);
                o.recovery = recovery;
                o.retries = 3;
                auto runs = std::make_shared<Runs>();
                const RunReport report = run_with(executor, o, [runs](Batch& b) {
                    ElementCall call(runs);
                    call.process(b);
                });
                check_only_root_1_failed(report, kReason);
                CHECK(runs->of(kBad) == 1);
                CHECK(runs->of(400) == 1);  // its batch-mates are not run again either
                CHECK(counters(report, "m").retries == 0);
            }
        }
    }
}

TEST_CASE("a PermanentFailure naming its item fails that item; the others run again",
          "[permanent]") {
    for (const char* executor : {"threads", "inline"}) {
        for (Recovery recovery :
             {Recovery::Abort, Recovery::RetryBatch, Recovery::RetryTail, Recovery::IsolateTail}) {
            for (auto [batch, actors] : {std::pair{1u, 1u}, {4u, 1u}, {16u, 2u}, {64u, 3u}}) {
                CAPTURE(executor, static_cast<int>(recovery), batch, actors);
                CallOptions o = opts(batch, actors);
                o.recovery = recovery;
                o.retries = 3;
                auto runs = std::make_shared<Runs>();
                const RunReport report = run_with(executor, o, batch_udf(runs, /*named=*/true));
                check_only_root_1_failed(report, kReason);
                CHECK(runs->of(kBad) == 1);
                // A batch-mate runs in the failed batch and once more after it.
                for (long page : {300L, 400L, 403L, 504L, 605L}) CHECK(runs->of(page) <= 2);
                CHECK(counters(report, "m").retries == 0);
            }
        }
    }
}

TEST_CASE("a PermanentFailure naming no item is isolated without retries", "[permanent]") {
    for (const char* executor : {"threads", "inline"}) {
        for (Recovery recovery :
             {Recovery::Abort, Recovery::RetryBatch, Recovery::RetryTail, Recovery::IsolateTail}) {
            for (auto [batch, actors] : {std::pair{1u, 1u}, {4u, 1u}, {16u, 2u}, {64u, 3u}}) {
                CAPTURE(executor, static_cast<int>(recovery), batch, actors);
                CallOptions o = opts(batch, actors);
                o.recovery = recovery;
                o.retries = 3;
                auto runs = std::make_shared<Runs>();
                const RunReport report = run_with(executor, o, batch_udf(runs, /*named=*/false));
                check_only_root_1_failed(report, kReason);
                CHECK(runs->alone_of(kBad) == 1);  // fails on its first failure alone
                CHECK(runs->of(kBad) <= 7);        // and halves on the way: 1 + log2(64)
            }
        }
    }
}

TEST_CASE("a PermanentFailure every batch throws fails each root after one run alone",
          "[permanent]") {
    // A certificate that never verifies: every item fails, each once by itself; none is retried.
    for (const char* executor : {"threads", "inline"}) {
        for (Recovery recovery : {Recovery::RetryBatch, Recovery::IsolateTail}) {
            for (auto [batch, actors] : {std::pair{1u, 1u}, {8u, 1u}, {64u, 2u}}) {
                CAPTURE(executor, static_cast<int>(recovery), batch, actors);
                CallOptions o = opts(batch, actors);
                o.recovery = recovery;
                o.retries = 3;
                auto runs = std::make_shared<Runs>();
                const RunReport report =
                    run_with(executor, o, batch_udf(runs, /*named=*/false, /*bad=*/-1));
                REQUIRE(report.roots.size() == 5);
                for (const RootResult& root : report.roots) {
                    CHECK(root.status == RootStatus::Failed);
                    CHECK(root.reason == kReason);
                }
                for (long x : {3L, 4L, 5L, 2L, 6L}) {
                    for (long i = 0; i < x; ++i) {
                        CAPTURE(100 * x + i);
                        CHECK(runs->alone_of(100 * x + i) == 1);
                    }
                }
            }
        }
    }
}

TEST_CASE("an ordinary exception under the same options is retried", "[permanent]") {
    CallOptions o = opts(1, 1);
    o.retries = 3;
    auto runs = std::make_shared<Runs>();
    const RunReport report = run_with("inline", o, [runs](Batch& b) {
        for (std::size_t g = 0; g < b.size(); ++g) {
            const long page = b.input(g, 0).get<long>();
            runs->count(page, b.size() == 1);
            if (page == kBad) throw std::runtime_error(kReason);
            b.set_output(g, 0, b.input(g, 0));
        }
    });
    check_only_root_1_failed(report, "udf error: " + kReason);
    CHECK(runs->of(kBad) == 4);  // the first failure and three retries
}
