// --estimate's sample and fit (src/estimate/estimate.h): the stratified sample, the least
// squares of a batch's cost, and the model a sample run's report gives.
#include <algorithm>
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <cmath>

#include "estimate/estimate.h"
#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;
using namespace rop::runtime::estimate;
using Catch::Approx;

TEST_CASE("estimate sample: 2% of the roots and at least 3", "[estimate]") {
    CHECK(choose_sample(1000, {}, 0.02, 3).size() == 20);
    CHECK(choose_sample(50, {}, 0.02, 3).size() == 3);
    CHECK(choose_sample(2, {}, 0.02, 3).size() == 2);
    const std::vector<std::size_t> picked = choose_sample(100, {}, 0.04, 3);
    // 4 strata by source order, one root from the middle of each.
    CHECK(picked == std::vector<std::size_t>{12, 37, 62, 87});
}

TEST_CASE("estimate sample: strata by size hold the smallest and the largest roots", "[estimate]") {
    // Sizes descending with the index: the strata by size run backwards through the input.
    std::vector<std::uint64_t> sizes(8);
    for (std::size_t i = 0; i < sizes.size(); ++i) sizes[i] = 1000 - i * 100;
    const std::vector<std::size_t> picked = choose_sample(8, sizes, 0.5, 3);
    CHECK(picked.size() == 4);
    CHECK(std::is_sorted(picked.begin(), picked.end()));
    // One from each pair of sizes: {7,6} {5,4} {3,2} {1,0}.
    for (std::size_t s = 0; s < 4; ++s) {
        CHECK(std::count_if(picked.begin(), picked.end(),
                            [&](std::size_t i) { return i / 2 == s; }) == 1);
    }
}

TEST_CASE("estimate fit: least squares of a + b n clamped at 0", "[estimate]") {
    auto [a, b] = fit_cost({{1, 1.5}, {2, 2.0}, {4, 3.0}});
    CHECK(a == Approx(1.0));
    CHECK(b == Approx(0.5));
    std::tie(a, b) = fit_cost({{4, 2.0}, {4, 2.0}});  // one size: all per grain
    CHECK(a == 0);
    CHECK(b == Approx(0.5));
    std::tie(a, b) = fit_cost({{1, 3.0}, {4, 1.0}});  // slower when smaller: a constant
    CHECK(a == Approx(2.0));
    CHECK(b == 0);
    std::tie(a, b) = fit_cost({{1, 0.0}, {2, 2.0}, {3, 4.0}});  // a < 0: through the origin
    CHECK(a == 0);
    CHECK(b == Approx(16.0 / 14.0));
}

TEST_CASE("estimate fit: the model of a sample run", "[estimate]") {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const DomainId page = b.add_domain("Page", doc);
    const PortId src = b.source("src");
    const PortId pages = b.add_port("pages", page);
    const PortId kept = b.add_port("kept", page);
    b.add_call({"split", CallKind::Expand, doc, {{src}}, {pages}, opts(1, 1), actor([](Batch& bt) {
                    for (std::size_t g = 0; g < bt.size(); ++g) {
                        for (long i = 0; i < 4; ++i) bt.emit_child(g, Value::of<long>(i));
                    }
                })});
    b.add_call({"even", CallKind::Filter, page, {{pages}}, {kept}, opts(4, 1), actor([](Batch& bt) {
                    for (std::size_t g = 0; g < bt.size(); ++g)
                        bt.set_keep(g, bt.input(g, 0).get<long>() % 2 == 0);
                })});
    const Plan plan = b.build();
    VecSource source({1, 2, 3});
    RunOptions options;
    options.keep_batches = true;
    const RunReport report = run(plan, source, options);
    const SimModel model = fit_model(plan, report);
    REQUIRE(model.calls.size() == 2);
    CHECK(model.calls[0].fanout == Approx(4.0));
    CHECK(model.calls[1].keep == Approx(0.5));
    CHECK(model.calls[0].fixed_s >= 0);
    CHECK(model.calls[1].per_item_s >= 0);
}

TEST_CASE("estimate fit: root weights come from the sampled fan-outs in equal shares",
          "[estimate]") {
    const std::vector<double> w = root_weights({10, 30}, 1000, 1);
    REQUIRE(w.size() == 1000);
    for (double x : w) CHECK((x == Approx(0.5) || x == Approx(1.5)));
    CHECK(std::count_if(w.begin(), w.end(), [](double x) { return x > 1; }) == 500);
    CHECK(root_weights({10, 30}, 1000, 1) == w);  // seeded: the same weights every time
    // Shuffled, not in the sample's order.
    CHECK(std::count_if(w.begin(), w.begin() + 100, [](double x) { return x > 1; }) > 20);
    CHECK(std::count_if(w.begin(), w.begin() + 100, [](double x) { return x > 1; }) < 80);
    // 3 roots from a sample of 2: the remainder is picked, and the mean stays 1.
    const std::vector<double> odd = root_weights({10, 30}, 3, 7);
    CHECK(odd[0] + odd[1] + odd[2] == Approx(3.0));
    CHECK(root_weights({}, 10, 1).empty());
    CHECK(root_weights({0, 0}, 10, 1).empty());
}

TEST_CASE("estimate fit: the fan-out's range is 2 standard errors of the mean", "[estimate]") {
    // Children 10, 20, 30: mean 20, sd 10; of 1000 roots: se = 10 / sqrt(3) x sqrt(1 - 3/1000).
    const std::optional<double> spread = fanout_spread({10, 20, 30}, 1000, 20);
    REQUIRE(spread);
    CHECK(*spread == Approx(2 * 10 / std::sqrt(3.0) * std::sqrt(1 - 0.003) / 20));
    CHECK(fanout_spread({10, 20, 30}, 3, 20).value() == Approx(0.0));  // all sampled: exact
    CHECK_FALSE(fanout_spread({10}, 100, 10));
    CHECK_FALSE(fanout_spread({0, 0}, 100, 0));
}
