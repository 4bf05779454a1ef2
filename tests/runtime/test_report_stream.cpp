// A run's report without per-root memory (issue 32 item 2): RunOptions::on_root_result takes
// every root's result in source order as the run is done with it, the run keeps only the first
// few failures and counts the rest (the summary stays exact); ReportStream writes them into the
// --report file as they come; LatencySample keeps the percentiles in bounded memory.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <vector>

#include "main/report_stream.h"
#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;
namespace fs = std::filesystem;
using Catch::Matchers::ContainsSubstring;

namespace {

// Pages valued 100x+i; a page whose value ends in 37 fails its root.
void pass_or_fail_37(Batch& bt) {
    for (std::size_t g = 0; g < bt.size(); ++g) {
        const long v = bt.input(g, 0).get<long>();
        if (v % 100 == 37) {
            bt.fail_record(g, "page " + std::to_string(v));
        } else {
            bt.set_output(g, 0, bt.input(g, 0));
        }
    }
}

// The nearest-rank percentile of `values`, by sorting.
double nearest_rank(std::vector<double> values, std::size_t percent) {
    std::sort(values.begin(), values.end());
    return values[(percent * values.size() + 99) / 100 - 1];
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

struct TempDir {
    fs::path path;
    TempDir() {
        path = fs::temp_directory_path() / ("rop-report-stream-" + std::to_string(::getpid()));
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
};

}  // namespace

TEST_CASE("report: latencies are exact up to a million roots, then within 1%",
          "[runtime][report]") {
    std::mt19937_64 rng(7);
    std::lognormal_distribution<double> latency(-3.0, 1.5);  // seconds: 1 ms .. minutes
    for (const std::size_t n :
         {std::size_t{1}, std::size_t{2}, std::size_t{99}, std::size_t{1000}, LatencySample::kExact,
          LatencySample::kExact + 1, 3 * LatencySample::kExact}) {
        CAPTURE(n);
        std::vector<double> values(n);
        for (double& v : values) v = latency(rng);
        LatencySample sample;
        for (const double v : values) sample.add(v);
        CHECK(sample.size() == n);
        CHECK(sample.exact() == (n <= LatencySample::kExact));
        CHECK(sample.max() == *std::max_element(values.begin(), values.end()));
        for (const std::size_t p : {1u, 50u, 99u, 100u}) {
            CAPTURE(p);
            const double exact = nearest_rank(values, p);
            const double got = sample.percentile(p);
            if (sample.exact()) {
                CHECK(got == exact);
            } else {
                CHECK(std::abs(got - exact) <= 0.01 * exact);
                // Always a latency that happened.
                CHECK(std::find(values.begin(), values.end(), got) != values.end());
            }
        }
    }
    // Merging two samples (the report's listed roots into the counted ones) keeps both.
    LatencySample a, b;
    for (int i = 0; i < 10; ++i) a.add(i);
    for (int i = 10; i < 20; ++i) b.add(i);
    a.add(b);
    CHECK(a.size() == 20u);
    CHECK(a.percentile(50) == 9);
    CHECK(a.max() == 19);
}

TEST_CASE("report: on_root_result takes every root in source order; the run keeps a few failures",
          "[runtime][report]") {
    OneMap m(opts(16, 2), pass_or_fail_37);
    std::vector<long> values;
    for (long r = 0; r < 500; ++r) values.push_back(r % 50);  // 120 fail, 10 drop, 370 ok
    VecSource source(values);
    std::vector<RootResult> seen;
    RunOptions options;
    options.max_inflight_roots = 4;
    options.keep_failed_results = 3;
    options.on_root_result = [&](const RootResult& r) { seen.push_back(r); };
    const RunReport report = run(m.plan, source, options);
    REQUIRE(seen.size() == 500u);
    for (std::size_t r = 0; r < seen.size(); ++r) {
        CAPTURE(r);
        REQUIRE(seen[r].name == "root" + std::to_string(r));
        const long pages = values[r];
        REQUIRE(seen[r].status == (pages >= 38  ? RootStatus::Failed
                                   : pages == 0 ? RootStatus::Dropped
                                                : RootStatus::Ok));
    }
    // Kept: the first three failures, for a summary; counted: everything else.
    REQUIRE(report.roots.size() == 3u);
    CHECK(report.roots[0].name == "root38");
    CHECK(report.roots[2].name == "root40");
    CHECK(report.omitted.failed == 117u);
    CHECK(report.omitted.ok == 370u);
    CHECK(report.omitted.dropped == 10u);
    CHECK(report.failed_roots() == 120u);
    CHECK(report.total_roots() == 500u);
    const auto json = nlohmann::json::parse(report.summary_json());
    CHECK_FALSE(json.contains("roots"));
    CHECK(json["summary"] ==
          nlohmann::json{
              {"roots", 500}, {"ok", 370}, {"dropped", 10}, {"failed", 120}, {"resumed", 0}});
    CHECK(json["root_latency_s"]["n"] == 500);
}

TEST_CASE("report: ReportStream writes the roots as they come and the summary at the end",
          "[runtime][report]") {
    TempDir dir;
    const fs::path path = dir.path / "report.json";
    RunReport report;
    report.wall_s = 1.5;
    report.omitted.ok = 2;
    report.omitted.failed = 1;
    std::vector<RootResult> roots(3);
    roots[0].name = "a";
    roots[1].name = "b";
    roots[1].status = RootStatus::Failed;
    roots[1].failed_call = "m";
    roots[1].reason = "bad";
    roots[2].name = "c";
    roots[2].partial = true;
    for (const bool all : {true, false}) {
        CAPTURE(all);
        fs::remove(path);
        // A killed run's leftover (a pid that is gone) goes; a live process's stays.
        std::ofstream(dir.path / "report.json.tmp.999999999") << "{";
        const fs::path live = dir.path / ("report.json.tmp." + std::to_string(::getppid()));
        std::ofstream(live) << "{";
        std::string error;
        auto stream = detail::ReportStream::open(path.string(), all, error);
        REQUIRE(stream);
        CHECK(error.empty());
        CHECK_FALSE(fs::exists(dir.path / "report.json.tmp.999999999"));
        CHECK(fs::exists(live));
        fs::remove(live);
        CHECK_FALSE(fs::exists(path));  // only the temporary file until the end
        for (const RootResult& r : roots) stream->add(r);
        CHECK(stream->finish(report).empty());
        const auto json = nlohmann::json::parse(slurp(path));
        std::vector<std::string> names;
        for (const auto& r : json["roots"]) names.push_back(r["name"]);
        CHECK(names ==
              (all ? std::vector<std::string>{"a", "b", "c"} : std::vector<std::string>{"b", "c"}));
        CHECK(json["roots"][all ? 1 : 0]["reason"] == "bad");
        CHECK(json["wall_s"] == 1.5);
        CHECK(json["summary"]["roots"] == 3);
        CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 1);
    }
    // No roots at all: still a whole report.
    std::string error;
    auto empty = detail::ReportStream::open(path.string(), true, error);
    REQUIRE(empty);
    CHECK(empty->finish(RunReport{}).empty());
    CHECK(nlohmann::json::parse(slurp(path))["roots"].empty());
    // An unfinished stream (the run threw) leaves no file behind.
    {
        auto dropped = detail::ReportStream::open((dir.path / "other.json").string(), true, error);
        REQUIRE(dropped);
        dropped->add(roots[0]);
    }
    CHECK_FALSE(fs::exists(dir.path / "other.json"));
    CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 1);
    // A folder that does not exist: an error, no stream.
    CHECK_FALSE(detail::ReportStream::open((dir.path / "no" / "r.json").string(), true, error));
    CHECK_THAT(error, ContainsSubstring("cannot create"));
}
