// rop::count (rop/udf.h): what a UDF counts itself while its batch runs is summed per Call into
// the run report (CallCounters::udf_counters, "udf_counters" in the JSON), with either executor;
// outside a batch it goes nowhere.
#include <catch2/catch_test_macros.hpp>
#include <nlohmann/json.hpp>
#include <numeric>

#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;

TEST_CASE("udf counters: rop::count sums per Call into the report", "[runtime][report][counters]") {
    for (const char* executor : {"threads", "inline"}) {
        for (std::uint32_t cap : {1u, 5u, 32u}) {
            CAPTURE(executor, cap);
            PlanBuilder b;
            const DomainId doc = b.add_domain("Doc");
            const PortId src = b.source("src");
            const PortId mid = b.add_port("mid", doc);
            const PortId out = b.add_port("out", doc);
            b.add_call({"counted",
                        CallKind::Map,
                        doc,
                        {{src}},
                        {mid},
                        opts(cap, 2),
                        actor([](Batch& batch) {
                            for (std::size_t g = 0; g < batch.size(); ++g) {
                                const long x = batch.input(g, 0).get<long>();
                                rop::count("http_retries", static_cast<std::uint64_t>(x % 3));
                                rop::count("items");
                                batch.set_output(g, 0, Value::of<long>(x));
                            }
                        })});
            b.add_call(
                {"plain", CallKind::Map, doc, {{mid}}, {out}, opts(cap, 1), actor([](Batch& batch) {
                     for (std::size_t g = 0; g < batch.size(); ++g) {
                         batch.set_output(g, 0, batch.input(g, 0));
                     }
                 })});
            const Plan plan = b.build();
            std::vector<long> roots(20);
            std::iota(roots.begin(), roots.end(), 0L);  // x % 3 sums to 19 over 0..19
            VecSource source(roots);
            RunOptions options;
            options.executor = executor;
            const RunReport report = run(plan, source, options);
            REQUIRE(report.calls.size() == 2);
            CHECK(report.calls[0].udf_counters ==
                  std::map<std::string, std::uint64_t>{{"http_retries", 19}, {"items", 20}});
            CHECK(report.calls[1].udf_counters.empty());
            const auto j = nlohmann::json::parse(report.to_json());
            CHECK(j["calls"][0]["udf_counters"]["http_retries"] == 19);
            CHECK(j["calls"][0]["udf_counters"]["items"] == 20);
            CHECK_FALSE(j["calls"][1].contains("udf_counters"));
        }
    }
    // Outside a batch there is no sink: nothing happens.
    CHECK(rop::current_counter_sink() == nullptr);
    rop::count("ignored", 5);
}
