// Stuck batches and streaming expands: a streaming expand that keeps emitting children is making
// progress however long it runs (a PDF streaming its pages), so the stuck check counts its time
// from its last child; one that stops emitting is flagged as any batch is. The expand paces its
// children with short sleeps (its work), never to wait for the runtime.
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;
using namespace std::chrono_literals;

namespace {

constexpr auto kStuckMin = 300ms;

// Opens once; a UDF waiting on it hangs until then (60 s at most: a broken test fails instead of
// hanging).
class Gate {
  public:
    void open() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            open_ = true;
        }
        opened_.notify_all();
    }
    void wait() {
        std::unique_lock<std::mutex> lock(mutex_);
        opened_.wait_for(lock, 60s, [this] { return open_; });
    }

  private:
    std::mutex mutex_;
    std::condition_variable opened_;
    bool open_ = false;
};

// Doc -> children (streamed by `split`, one actor) -> map "m" -> out.
Plan streaming_plan(ActorFactory split) {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const DomainId page = b.add_domain("Page", doc);
    const PortId src = b.source("src");
    const PortId pages = b.add_port("pages", page);
    const PortId out = b.add_port("out", page);
    b.add_call({"split", CallKind::Expand, doc, {{src}}, {pages}, opts(1, 1), std::move(split)});
    b.add_call({"m", CallKind::Map, page, {{pages}}, {out}, opts(1, 1), actor([](Batch& bt) {
                    for (std::size_t g = 0; g < bt.size(); ++g) {
                        bt.set_output(g, 0, bt.input(g, 0));
                    }
                })});
    return b.build();
}

RunOptions stuck_options(std::vector<StuckBatch>& flagged) {
    RunOptions options;
    options.stuck_min = kStuckMin;
    options.stuck_factor = 10;
    options.on_stuck = [&flagged](const StuckBatch& s) { flagged.push_back(s); };
    return options;
}

}  // namespace

TEST_CASE("stuck: a streaming expand still emitting children is not stuck",
          "[runtime][stuck][streaming]") {
    // One batch that runs 4 x the stuck minimum and emits a child every 5 ms: before the expand's
    // children counted as progress it was flagged at 300 ms (no batch of its Call had finished).
    long emitted = 0;
    const Plan plan = streaming_plan(actor([&emitted](Batch& b) {
        const auto start = std::chrono::steady_clock::now();
        for (std::size_t g = 0; g < b.size(); ++g) {
            while (std::chrono::steady_clock::now() - start < 4 * kStuckMin) {
                std::this_thread::sleep_for(5ms);
                b.emit_child(g, Value::of<long>(emitted++));
            }
        }
    }));
    std::vector<StuckBatch> flagged;
    VecSource source({1});
    const RunReport report = run(plan, source, stuck_options(flagged));
    CHECK(flagged.empty());
    CHECK(report.calls[0].stuck_batches == 0);
    CHECK(report.calls[1].grains == static_cast<std::uint64_t>(emitted));
    REQUIRE(report.roots.size() == 1);
    CHECK(report.roots[0].status == RootStatus::Ok);
}

TEST_CASE("stuck: a streaming expand that stops emitting is flagged",
          "[runtime][stuck][streaming]") {
    // Three children, then the UDF hangs until the stuck check has flagged it.
    auto gate = std::make_shared<Gate>();
    const Plan plan = streaming_plan(actor([gate](Batch& b) {
        for (std::size_t g = 0; g < b.size(); ++g) {
            for (long i = 0; i < 3; ++i) b.emit_child(g, Value::of<long>(i));
            gate->wait();
        }
    }));
    std::vector<StuckBatch> flagged;
    RunOptions options = stuck_options(flagged);
    options.on_stuck = [&flagged, gate](const StuckBatch& s) {
        flagged.push_back(s);
        gate->open();
    };
    VecSource source({1});
    const RunReport report = run(plan, source, options);
    REQUIRE(flagged.size() == 1);
    CHECK(flagged[0].call_name == "split");
    CHECK(flagged[0].running_s > 0.3);
    CHECK(report.calls[0].stuck_batches == 1);
    CHECK(report.calls[1].grains == 3);
    REQUIRE(report.roots.size() == 1);
    CHECK(report.roots[0].status == RootStatus::Ok);
}
