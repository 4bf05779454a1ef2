// --estimate through the pipeline binary's main (docs/runtime.md "Estimates"): the table on
// stdout, the JSON, no sink opened or written, and the flags' errors.
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "test_pipeline_main_demo.h"

using namespace rop::runtime;
using namespace rop::runtime::test;
using Catch::Matchers::ContainsSubstring;

namespace {

struct MainResult {
    int code = -1;
    std::string out, err;
};

MainResult run_main(PipelineDefinition def, std::vector<std::string> args) {
    Argv a(args);
    std::ostringstream out, err;
    MainResult r;
    r.code = pipeline_main(a.argc(), a.argv(), std::move(def), out, err, false);
    r.out = out.str();
    r.err = err.str();
    return r;
}

}  // namespace

TEST_CASE("estimate main: a table and JSON and no sink written", "[estimate][cli]") {
    DemoSinks sinks;
    const std::filesystem::path json = std::filesystem::temp_directory_path() /
                                       ("rop_estimate_" + std::to_string(::getpid()) + ".json");
    const MainResult r =
        run_main(demo_definition(sinks), {"--input", "1,2,3,4,5,6,7,8", "--estimate", "--sample",
                                          "50%", "--cores", "4", "--estimate-json", json.string()});
    INFO(r.err);
    CHECK(r.code == kExitOk);
    CHECK_THAT(r.out, ContainsSubstring("estimate: 8 roots, from a sample of 4"));
    CHECK_THAT(r.out, ContainsSubstring("predicted makespan"));
    CHECK_THAT(r.out, ContainsSubstring("bottleneck"));
    CHECK_THAT(r.out, ContainsSubstring("--set "));
    // Nothing opened, nothing written: the sample ran without the sinks.
    CHECK(sinks.totals_path.empty());
    CHECK(sinks.pages_path.empty());
    CHECK(sinks.totals.empty());
    std::ifstream in(json);
    REQUIRE(in);
    const nlohmann::json j = nlohmann::json::parse(in);
    CHECK(j["roots"] == 8);
    CHECK(j["sample_roots"] == 4);
    CHECK(j["cores"] == 4);
    CHECK(j["calls"].size() == 3);
    CHECK(j["makespan_s"].get<double>() >= 0);
    std::filesystem::remove(json);
}

TEST_CASE("estimate main: --sample and --cores errors", "[estimate][cli]") {
    DemoSinks sinks;
    for (const std::string bad : {"0%", "101%", "x", "%", "-2%"}) {
        const MainResult r = run_main(demo_definition(sinks), {"--estimate", "--sample", bad});
        CHECK(r.code == kExitUsage);
        CHECK_THAT(r.err, ContainsSubstring("--sample: expected a share of the roots"));
    }
    const MainResult r = run_main(demo_definition(sinks), {"--estimate", "--cores", "0"});
    CHECK(r.code == kExitUsage);
    CHECK_THAT(r.err, ContainsSubstring("--cores: expected a number of cores 1..65536, got '0'"));
}
