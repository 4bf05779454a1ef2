// --estimate through the pipeline binary's main (docs/runtime.md "Estimates"): the table on
// stdout, the JSON, no sink opened or written, and the flags' errors.
#include <unistd.h>

#include <algorithm>
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
    // A run's journal goes to the temp folder (the default would be next to the first sink's
    // output, in the test's working directory).
    const std::filesystem::path journal =
        std::filesystem::temp_directory_path() /
        ("rop_estimate_" + std::to_string(::getpid()) + ".journal");
    if (std::find(args.begin(), args.end(), "--estimate") == args.end()) {
        args.push_back("--journal=" + journal.string());
    }
    Argv a(args);
    std::ostringstream out, err;
    MainResult r;
    r.code = pipeline_main(a.argc(), a.argv(), std::move(def), out, err, false);
    r.out = out.str();
    r.err = err.str();
    std::filesystem::remove(journal);
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
    CHECK_THAT(r.out, ContainsSubstring("peak memory"));
    CHECK_THAT(r.out, ContainsSubstring("(this process: the sample's "));
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
    // The peak: the sample's resident memory plus the payload the run holds beyond it.
    CHECK(j["sample_peak_rss_bytes"].get<double>() > 1e6);
    CHECK(j["peak_rss_bytes"].get<double>() >= j["sample_peak_rss_bytes"].get<double>());
    CHECK(j["peak_live_bytes"].get<double>() > 0);
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

namespace {

std::filesystem::path temp_path(const std::string& name) {
    return std::filesystem::temp_directory_path() /
           ("rop_with_estimate_" + std::to_string(::getpid()) + "_" + name);
}

nlohmann::json read_json(const std::filesystem::path& path) {
    std::ifstream in(path);
    REQUIRE(in);
    return nlohmann::json::parse(in);
}

}  // namespace

// --with-estimate: the estimate --estimate-json wrote goes into the run's report beside what
// happened, scaled to the run's roots, and the HTML page sets it beside the run too.
TEST_CASE("estimate main: --with-estimate puts the prediction beside the run", "[estimate][cli]") {
    DemoSinks sinks;
    const auto json = temp_path("estimate.json");
    const auto report = temp_path("report.json");
    const auto html = temp_path("report.html");
    const MainResult made =
        run_main(demo_definition(sinks), {"--input", "1,2,3,4,5,6,8,10", "--estimate", "--sample",
                                          "50%", "--estimate-json", json.string()});
    REQUIRE(made.code == kExitOk);
    const nlohmann::json estimate = read_json(json);
    CHECK(estimate["format"] == "rop-estimate-1");
    REQUIRE(estimate["calls"].size() == 3);
    for (const auto& c : estimate["calls"]) CHECK(c["grains"].get<double>() > 0);

    // The same input: the prediction as made. Half the roots: its work and times halved. (The
    // demo fails a 7.)
    for (const auto& [input, scale] : {std::pair{"1,2,3,4,5,6,8,10", 1.0}, {"1,2,3,4", 0.5}}) {
        CAPTURE(input);
        DemoSinks run_sinks;
        const MainResult r =
            run_main(demo_definition(run_sinks),
                     {"--input", input, "--with-estimate", json.string(), "--report",
                      report.string(), "--report-html", html.string(), "--no-progress"});
        INFO(r.err);
        REQUIRE(r.code == kExitOk);
        const nlohmann::json j = read_json(report);
        REQUIRE(j.contains("estimate"));
        const nlohmann::json& e = j["estimate"];
        CHECK(e["file"] == json.string());
        CHECK(e["estimated_roots"] == 8);
        CHECK(e["roots"] == (scale == 1.0 ? 8 : 4));
        CHECK(std::abs(e["makespan_s"]["predicted"].get<double>() -
                       estimate["makespan_s"].get<double>() * scale) < 1e-9);
        CHECK(e["makespan_s"]["measured"] == j["wall_s"]);
        // Peak memory is the process's, not scaled with the roots; measured: this process's.
        CHECK(e["peak_rss_bytes"]["predicted"] == estimate["peak_rss_bytes"]);
        CHECK(e["peak_rss_bytes"]["measured"] == j["peak_rss_bytes"]);
        CHECK(j["peak_rss_bytes"].get<double>() > 1e6);
        REQUIRE(e["calls"].size() == 3);
        for (std::size_t c = 0; c < 3; ++c) {
            const auto& call = e["calls"][c];
            CHECK(call["name"] == estimate["calls"][c]["name"]);
            CHECK(std::abs(call["grains"]["predicted"].get<double>() -
                           estimate["calls"][c]["grains"].get<double>() * scale) < 1e-9);
            CHECK(call["grains"]["measured"].get<double>() > 0);
            CHECK(call["busy_s"]["measured"] == j["calls"][c]["busy_s"]);
            CHECK(j["calls"][c]["busy_s"].get<double>() > 0);  // every Call ran batches
        }
        // What the ETA said: at least the end's reading, which says the run is over.
        REQUIRE(j.contains("eta"));
        REQUIRE(!j["eta"].empty());
        CHECK(j["eta"].back()["end_s"].get<double>() == j["eta"].back()["at_s"].get<double>());
        std::ifstream page(html);
        std::stringstream text;
        text << page.rdbuf();
        CHECK_THAT(text.str(), ContainsSubstring("Predicted vs measured"));
        CHECK_THAT(text.str(), ContainsSubstring("<tr class=\"estimate\"><td>makespan</td>"));
        CHECK_THAT(text.str(),
                   ContainsSubstring("<tr class=\"estimate\"><td>peak memory (resident)</td>"));
    }
    // Without it: no estimate in the report, and the page has no such section.
    DemoSinks plain_sinks;
    const MainResult plain =
        run_main(demo_definition(plain_sinks), {"--input", "1,2,3", "--report", report.string(),
                                                "--report-html", html.string(), "--no-progress"});
    REQUIRE(plain.code == kExitOk);
    CHECK_FALSE(read_json(report).contains("estimate"));
    std::ifstream page(html);
    std::stringstream text;
    text << page.rdbuf();
    CHECK_THAT(text.str(), !ContainsSubstring("Predicted vs measured"));
    for (const auto& p : {json, report, html}) std::filesystem::remove(p);
}

TEST_CASE("estimate main: a wrong --with-estimate file stops the run before it starts",
          "[estimate][cli]") {
    const auto file = temp_path("bad.json");
    struct Case {
        const char* what;
        std::string text;  // the file's content; "" with no file
        std::string says;
    };
    const Case cases[] = {
        {"no file", "", "cannot read it"},
        {"not JSON", "{oops", "not JSON (an --estimate-json file?)"},
        {"not an estimate", R"({"roots": 3})", "not an estimate of this rop"},
        {"a field missing",
         R"({"format": "rop-estimate-1", "roots": 3, "cores": 2, "makespan_s": 1})",
         "a field is missing or of the wrong type"},
        {"another pipeline's",
         R"({"format": "rop-estimate-1", "roots": 3, "cores": 2, "makespan_s": 1,
             "first_root_s": 0.1, "p50_commit_s": 0.1, "p99_commit_s": 0.2,
             "calls": [{"name": "ocr", "grains": 3, "busy_s": 1, "utilization": 0.5}]})",
         "an estimate of another pipeline (its Calls: ocr; this pipeline's: "},
    };
    for (const Case& c : cases) {
        CAPTURE(c.what);
        std::filesystem::remove(file);
        if (!c.text.empty()) std::ofstream(file) << c.text;
        DemoSinks sinks;
        const MainResult r = run_main(demo_definition(sinks),
                                      {"--input", "1,2,3", "--with-estimate", file.string()});
        CHECK(r.code == kExitUsage);
        CHECK_THAT(r.err, ContainsSubstring("--with-estimate: " + file.string() + ": " + c.says));
        CHECK(sinks.totals.empty());  // nothing ran
    }
    std::filesystem::remove(file);
}

TEST_CASE("estimate main: --estimate's flags without it and --with-estimate with it are refused",
          "[estimate][cli]") {
    DemoSinks sinks;
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--input", "1", "--sample", "5%"}, "--sample is for --estimate"},
        {{"--input", "1", "--cores", "4"}, "--cores is for --estimate"},
        {{"--input", "1", "--estimate-json", "x.json"}, "--estimate-json is for --estimate"},
        {{"--input", "1", "--estimate", "--with-estimate", "x.json"},
         "--with-estimate is for a run"},
    };
    for (const auto& [args, says] : cases) {
        CAPTURE(says);
        const MainResult r = run_main(demo_definition(sinks), args);
        CHECK(r.code == kExitUsage);
        CHECK_THAT(r.err, ContainsSubstring(says));
    }
}
