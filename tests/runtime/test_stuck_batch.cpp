// Stuck batches: a batch running far past its Call's median (a UDF hanging in a Call without
// a timeout) is flagged once through RunOptions::on_stuck, marked in the progress lines (which
// then claim no ETA) and warned about on stderr by pipeline_main, with how to set a timeout.
// The UDFs block on a gate the test opens; thresholds are tens of milliseconds.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include "test_pipeline_main_demo.h"

using namespace rop::runtime;
using namespace rop::runtime::test;
using namespace std::chrono_literals;
using Catch::Matchers::ContainsSubstring;

namespace {

// Blocks UDF calls until opened. A watchdog opens it after 10 s, so a broken test fails its
// checks instead of hanging.
class Gate {
  public:
    Gate()
        : watchdog_([this] {
              std::unique_lock<std::mutex> lock(mu_);
              cv_.wait_for(lock, 10s, [this] { return open_; });
              open_ = true;
              cv_.notify_all();
          }) {}
    ~Gate() {
        open();
        watchdog_.join();
    }
    void open() {
        std::lock_guard<std::mutex> lock(mu_);
        open_ = true;
        cv_.notify_all();
    }
    void wait() {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return open_; });
    }

  private:
    std::mutex mu_;
    std::condition_variable cv_;
    bool open_ = false;
    std::thread watchdog_;
};

// An ostream buffer that calls `on_flush` with everything written so far at each flush.
class FlushWatch : public std::stringbuf {
  public:
    explicit FlushWatch(std::function<void(const std::string&)> on_flush)
        : on_flush_(std::move(on_flush)) {}

  protected:
    int sync() override {
        on_flush_(str());
        return 0;
    }

  private:
    std::function<void(const std::string&)> on_flush_;
};

}  // namespace

TEST_CASE("stuck: the rule is longer than the minimum and factor x the median",
          "[runtime][stuck]") {
    const auto min = 10'000ms;
    CHECK_FALSE(batch_stuck(9.0, 0.1, 10, min));   // under the minimum
    CHECK(batch_stuck(11.0, 0.1, 10, min));        // over both
    CHECK(batch_stuck(11.0, 0.0, 10, min));        // no batch finished yet: the minimum alone
    CHECK_FALSE(batch_stuck(11.0, 2.0, 10, min));  // a slow Call: 20 s would be normal
    CHECK(batch_stuck(21.0, 2.0, 10, min));
    CHECK_FALSE(batch_stuck(1e6, 0.1, 0, min));  // factor 0: detection off
}

TEST_CASE("stuck: progress marks the Call and claims no ETA", "[runtime][stuck][cli]") {
    Progress p;
    p.calls.resize(2);
    p.calls[0].grains = 6;
    p.calls[1].grains = 28;
    p.roots_total = 10;
    p.roots_admitted = 6;
    p.roots_done = 4;
    p.elapsed_s = 2.0;
    const std::vector<ProgressCall> calls = {{"split", true}, {"m", false}};
    CHECK(render_progress(p, calls) ==
          std::vector<std::string>{"roots 4/10 done, 2 in flight, 2.0s, ETA 3s",
                                   "  split    6/10  3.0/s  ETA 2s",
                                   "  m      28/~56   14/s  ETA 2s"});
    StuckBatch s;
    s.call = 1;
    s.running_s = 42.4;
    p.stuck.push_back(s);
    CHECK(render_progress(p, calls) ==
          std::vector<std::string>{"roots 4/10 done, 2 in flight, 2.0s, ETA ? (1 batch stuck)",
                                   "  split    6/10  3.0/s  ETA ?",
                                   "  m      28/~56   14/s  ETA ?  stuck: 1 batch 42s"});
    s.running_s = 125;
    p.stuck.push_back(s);
    CHECK(render_progress(p, calls)[2] ==
          "  m      28/~56   14/s  ETA ?  stuck: 2 batches, longest 2m05s");
    CHECK(render_progress(p, calls)[0] ==
          "roots 4/10 done, 2 in flight, 2.0s, ETA ? (2 batches stuck)");
}

TEST_CASE("stuck: the warning names the Call, the roots, the time and how to set a timeout",
          "[runtime][stuck][cli]") {
    StuckBatch s;
    s.grains = 3;
    s.roots = {"doc3", "doc4"};
    s.running_s = 42.4;
    s.median_s = 0.21;
    CHECK(stuck_warning(s, "ocr") ==
          "call 'ocr': a batch of 3 Grains (roots doc3, doc4) has run for 42s, the Call's median "
          "batch takes 210ms; it may be stuck. The Call has no timeout: set one with `timeout "
          "30s` on the Call in the .rop file, or run with --set ocr.timeout=30s, and a batch "
          "running past it is abandoned and replayed.");
    s.grains = 1;
    s.roots = {"doc3"};
    s.running_s = 12;
    s.median_s = 0;
    s.timeout = 3'600'000ms;
    CHECK(stuck_warning(s, "a,b") ==
          "call 'a,b': a batch of 1 Grain (root doc3) has run for 12s and no batch of this Call "
          "has finished yet; it may be stuck. It is abandoned and replayed at the Call's timeout "
          "(1h).");
    s.timeout = 0ms;
    CHECK_THAT(stuck_warning(s, "a,b"), ContainsSubstring("--set a.timeout=30s"));
    s.roots = {"r1", "r2", "r3", "r4", "r5", "r6", "r7"};
    CHECK_THAT(stuck_warning(s, "m"), ContainsSubstring("(roots r1, r2, r3, r4, r5 and 2 more)"));
}

TEST_CASE("stuck: a UDF that hangs is flagged once, listed in progress, then finishes",
          "[runtime][stuck]") {
    // Roots 0..5 into one root-Domain map, batch 1, one actor: 0, 1 and 2 finish at once
    // (the median), 3 blocks; 4 waits behind it on the actor (queued, not running: not stuck).
    auto gate = std::make_shared<Gate>();
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const PortId src = b.source("src");
    const PortId out = b.add_port("out", doc);
    b.add_call({"m", CallKind::Map, doc, {{src}}, {out}, opts(1, 1), actor([gate](Batch& bt) {
                    if (bt.input(0, 0).get<long>() == 3) gate->wait();
                    bt.set_output(0, 0, bt.input(0, 0));
                })});
    const Plan plan = b.build();

    std::vector<StuckBatch> flagged;
    std::vector<std::string> stuck_lines;
    RunOptions options;
    options.stuck_min = 50ms;
    options.stuck_factor = 10;
    options.progress_interval = 10ms;
    options.on_stuck = [&](const StuckBatch& s) { flagged.push_back(s); };
    options.on_progress = [&](const Progress& p) {
        if (p.stuck.empty() || !stuck_lines.empty()) return;
        stuck_lines = render_progress(p, progress_calls(plan));
        gate->open();  // seen: let the UDF return
    };
    VecSource source({0, 1, 2, 3, 4, 5});
    const RunReport report = run(plan, source, options);

    REQUIRE(flagged.size() == 1);
    CHECK(flagged[0].call == 0);
    CHECK(flagged[0].call_name == "m");
    CHECK(flagged[0].grains == 1);
    CHECK(flagged[0].roots == std::vector<std::string>{"root3"});
    CHECK(flagged[0].running_s >= 0.05);
    CHECK(flagged[0].median_s > 0);
    CHECK(flagged[0].median_s * options.stuck_factor <= flagged[0].running_s);
    CHECK(flagged[0].timeout.count() == 0);
    REQUIRE(stuck_lines.size() == 2);
    CHECK_THAT(stuck_lines[0], ContainsSubstring("ETA ? (1 batch stuck)"));
    CHECK_THAT(stuck_lines[1], ContainsSubstring("ETA ?  stuck: 1 batch "));
    CHECK(report.calls[0].stuck_batches == 1);
    for (const RootResult& r : report.roots) CHECK(r.status == RootStatus::Ok);
}

TEST_CASE("stuck: pipeline_main warns on stderr; --stuck-after sets the minimum",
          "[runtime][stuck][cli]") {
    auto gate = std::make_shared<Gate>();
    DemoSinks sinks;
    PipelineDefinition def = demo_definition(sinks, "3");
    def.plan.calls[1].factory = actor([gate](Batch& bt) {
        for (std::size_t g = 0; g < bt.size(); ++g) {
            const long x = bt.input(g, 0).get<long>();
            if (x == 301) gate->wait();
            bt.set_output(g, 0, Value::of<long>(2 * x));
        }
    });
    FlushWatch watch([gate](const std::string& text) {
        if (text.find("warning:") != std::string::npos) gate->open();
    });
    std::ostream err(&watch);
    std::ostringstream out;
    const std::string journal = (std::filesystem::temp_directory_path() /
                                 ("rop_stuck_" + std::to_string(::getpid()) + ".journal"))
                                    .string();
    Argv args({"--stuck-after", "50ms", "--journal", journal});
    const int code = pipeline_main(args.argc(), args.argv(), std::move(def), out, err, false);
    std::filesystem::remove(journal);
    CHECK(code == kExitOk);
    const std::string text = watch.str();
    CHECK_THAT(text, ContainsSubstring("demo: warning: call 'm': a batch of "));
    CHECK_THAT(text, ContainsSubstring("(root doc3) has run for "));
    CHECK_THAT(text, ContainsSubstring("it may be stuck. The Call has no timeout: set one with "
                                       "`timeout 30s` on the Call in the .rop file, or run with "
                                       "--set m.timeout=30s"));
    // Once, one line, at WARN (the run's start and end are logged at INFO around it).
    CHECK(std::count(text.begin(), text.end(), '\n') == 3);
    CHECK_THAT(text, ContainsSubstring("Z WARN  demo: warning: call 'm': a batch of "));
    CHECK(sinks.totals == std::vector<long>{2 * (300 + 301 + 302)});
}
