// Placement (placement.h, docs/cluster.md "Placement"): actors spread over ranks by cores,
// whole GPUs to one actor each, shares packed onto one device, a clear error when devices run
// out, CPU actors when the job has no GPU; and the GPU count and pinning a test can simulate.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <cstdlib>
#include <string>
#include <thread>

#include "placement/gpu_devices.h"
#include "placement/sites.h"
#include "rop/runtime/gpu.h"
#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::detail;
using namespace rop::runtime::test;
using Catch::Matchers::ContainsSubstring;

namespace {

// One map Call per entry: {actors, gpus}.
Plan plan_of(const std::vector<std::pair<std::uint32_t, double>>& calls) {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    PortId in = b.source("src");
    for (std::size_t i = 0; i < calls.size(); ++i) {
        const PortId out = b.add_port("p" + std::to_string(i), doc);
        CallOptions o = opts(1, calls[i].first);
        o.gpus = calls[i].second;
        b.add_call(
            {"c" + std::to_string(i), CallKind::Map, doc, {{in}}, {out}, o, actor([](Batch&) {})});
        in = out;
    }
    return b.build();
}

RankInfo rank(int r, const std::string& host, unsigned cores, int gpus) {
    return RankInfo{r, host, cores, gpus, "test"};
}

// "rank:devices" per actor, e.g. "1:0 2:1 1:-".
std::string sites(const CallPlacement& p) {
    std::string out;
    for (const ActorSite& s : p.sites) {
        out += (out.empty() ? "" : " ") + std::to_string(s.rank) + ":";
        if (s.devices.empty()) out += "-";
        for (std::size_t i = 0; i < s.devices.size(); ++i)
            out += (i ? "," : "") + std::to_string(s.devices[i]);
    }
    return out;
}

}  // namespace

TEST_CASE("placement: the table of cases", "[placement]") {
    struct Case {
        const char* what;
        std::vector<std::pair<std::uint32_t, double>> calls;
        std::vector<RankInfo> ranks;
        std::vector<std::string> expected;  // per Call
    };
    const std::vector<Case> cases = {
        {"CPU actors alternate over equal ranks, Call after Call",
         {{3, 0}, {2, 0}},
         {rank(1, "a", 2, 0), rank(2, "a", 2, 0)},
         {"1:- 2:- 1:-", "2:- 1:-"}},
        {"a rank with 3x the cores takes 3x the actors",
         {{8, 0}},
         {rank(1, "a", 6, 0), rank(2, "b", 2, 0)},
         {"1:- 1:- 1:- 2:- 1:- 1:- 1:- 2:-"}},
        {"whole GPUs: each actor its own device, spread over nodes",
         {{4, 1}},
         {rank(1, "a", 2, 2), rank(2, "b", 2, 2)},
         {"1:0 2:0 1:1 2:1"}},
        {"two GPUs per actor: two devices of one node",
         {{2, 2}},
         {rank(1, "a", 2, 2), rank(2, "b", 2, 2)},
         {"1:0,1 2:0,1"}},
        {"shares pack onto one device, then the next",
         {{4, 0.5}},
         {rank(1, "a", 2, 2)},
         {"1:0 1:0 1:1 1:1"}},
        {"a node's devices serve whichever of its ranks is least loaded",
         {{2, 1}, {2, 0}},
         {rank(1, "a", 2, 2), rank(2, "a", 2, 2)},
         {"1:0 2:1", "1:- 2:-"}},
        {"a node without GPUs hosts the CPU Calls; GPU Calls go where devices are",
         {{2, 1}, {2, 0}},
         {rank(1, "cpu", 2, 0), rank(2, "gpu", 2, 2)},
         {"2:0 2:1", "1:- 1:-"}},
        {"no GPU in the job: Calls with gpus get CPU actors",
         {{2, 1}},
         {rank(1, "a", 2, 0), rank(2, "b", 2, 0)},
         {"1:- 2:-"}},
    };
    for (const Case& c : cases) {
        CAPTURE(c.what);
        const Plan plan = plan_of(c.calls);
        const Placement p = place(plan, c.ranks);
        REQUIRE(p.calls.size() == c.expected.size());
        for (std::size_t i = 0; i < c.expected.size(); ++i)
            CHECK(sites(p.calls[i]) == c.expected[i]);
    }
}

TEST_CASE("placement: more actors than devices is an error naming the Call and the GPUs",
          "[placement]") {
    const std::vector<RankInfo> ranks = {rank(1, "a", 2, 2), rank(2, "b", 2, 1)};
    CHECK_THROWS_WITH(place(plan_of({{4, 1}}), ranks),
                      "placement: call 'c0' asks for 4 actors with gpus 1 each; actor 4 finds no "
                      "free device (the job has 3 (a: 2, b: 1) GPUs; lower actors or gpus, or add "
                      "nodes)");
    // Shares: 3 x 0.5 take device 0 and half of device 1; 0.7 fits on neither.
    CHECK_THROWS_WITH(place(plan_of({{3, 0.5}, {2, 0.7}}), {rank(1, "a", 2, 2)}),
                      ContainsSubstring("call 'c1' asks for 2 actors with gpus 0.7 each; actor 1 "
                                        "finds no device with that share left"));
    CHECK_THROWS_AS(place(plan_of({{1, 0}}), {}), PlacementError);
}

TEST_CASE("placement: the error counts the devices earlier Calls hold", "[placement]") {
    // c0 holds two of the three devices, so c1's second actor finds none.
    CHECK_THROWS_WITH(place(plan_of({{2, 1}, {2, 1}}), {rank(1, "a", 2, 3)}),
                      "placement: call 'c1' asks for 2 actors with gpus 1 each; actor 2 finds no "
                      "free device (the job has 3 (a: 3) GPUs, of which earlier Calls hold 2 "
                      "('c0': 2 actors with gpus 1); lower actors or gpus, or add nodes)");
    // Shares and whole devices, a Call without gpus in between (it holds none).
    CHECK_THROWS_WITH(
        place(plan_of({{3, 0.5}, {2, 0}, {1, 1}, {1, 0.7}}), {rank(1, "a", 2, 3)}),
        "placement: call 'c3' asks for 1 actor with gpus 0.7 each; actor 1 finds no device with "
        "that share left (the job has 3 (a: 3) GPUs, of which earlier Calls hold 2.5 ('c0': 3 "
        "actors with gpus 0.5, 'c2': 1 actor with gpus 1); lower actors or gpus, or add nodes)");
}

TEST_CASE("placement: explain lists ranks, then each Call's actors per rank", "[placement]") {
    const Plan plan = plan_of({{3, 1}, {2, 0}});
    const std::vector<RankInfo> ranks = {rank(1, "a", 4, 2), rank(2, "b", 4, 1)};
    CHECK(explain(plan, place(plan, ranks), ranks) ==
          "placement: 2 ranks host actors: rank 1 (a, 4 cores, 2 GPUs); rank 2 (b, 4 cores, 1 "
          "GPUs)\n"
          "  c0: rank 1 x2 [gpu 0, gpu 1]; rank 2 x1 [gpu 0]\n"
          "  c1: rank 1 x1; rank 2 x1\n");
    const std::vector<RankInfo> none = {rank(1, "a", 4, 0)};
    CHECK_THAT(explain(plan, place(plan, none), none),
               ContainsSubstring("placement: no GPU in the job (test): Calls with gpus run on "
                                 "CPU actors\n"));
}

TEST_CASE("gpus: ROP_SIMULATE_GPUS counts devices and pins threads without a driver",
          "[placement]") {
    ::setenv("ROP_SIMULATE_GPUS", "3", 1);
    const GpuCount n = count_gpus();
    CHECK(n.devices == 3);
    CHECK(n.how == "ROP_SIMULATE_GPUS=3");
    std::vector<int> seen;
    std::string visible;
    std::thread t([&] {
        pin_thread({2, 1});
        seen = assigned_gpus();
        visible = visible_devices_of_thread();
    });
    t.join();
    CHECK(seen == std::vector<int>{2, 1});
    CHECK(visible == "2,1");
    CHECK(assigned_gpus().empty());  // per thread
    ::setenv("ROP_SIMULATE_GPUS", "two", 1);
    CHECK_THROWS_WITH(count_gpus(),
                      "ROP_SIMULATE_GPUS='two': expected a device count from 0 to 1024");
    ::unsetenv("ROP_SIMULATE_GPUS");
    // This machine has no NVIDIA driver (or no device): no GPUs, and the reason.
    const GpuCount real = count_gpus();
    if (real.devices == 0) CHECK_THAT(real.how, ContainsSubstring("no usable NVIDIA driver"));
}
