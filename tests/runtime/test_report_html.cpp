// --report-html (src/main/report_html.h): the page drawn from synthetic reports (a timeline row
// per Call, escaping, a bounded page for 100k batches, the failures, the estimate section only
// when filled, nothing that fetches), and pipeline_main writing it or refusing its path.
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "main/report_html.h"
#include "test_pipeline_main_demo.h"

using namespace rop::runtime;
using namespace rop::runtime::detail;
using Catch::Matchers::ContainsSubstring;

namespace {

std::size_t occurrences(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
        ++n;
    }
    return n;
}

// Whatever the report, the page asks for nothing: no address, no script, no external style.
void check_offline(const std::string& page) {
    for (const char* fetch :
         {"http://", "https://", "<script", "<img", "<link", "<iframe", "url(", "@import"}) {
        CAPTURE(fetch);
        CHECK(page.find(fetch) == std::string::npos);
    }
    CHECK_THAT(page, ContainsSubstring("Content-Security-Policy\" content=\"default-src 'none'"));
}

// The text between `<g class="timeline-row"` number `row` and its `</g>`.
std::string timeline_row(const std::string& page, std::size_t row) {
    std::size_t at = page.find("<g class=\"timeline-row\"");
    for (std::size_t i = 0; i < row && at != std::string::npos; ++i) {
        at = page.find("<g class=\"timeline-row\"", at + 1);
    }
    REQUIRE(at != std::string::npos);
    return page.substr(at, page.find("</g>", at) - at);
}

RunReport report_of(const std::vector<std::string>& calls) {
    RunReport r;
    r.pipeline = "demo";
    r.wall_s = 2;
    for (const std::string& name : calls) r.calls.push_back({.name = name});
    return r;
}

RootResult root(std::string name, RootStatus status, double latency_s, std::string call = {},
                std::string reason = {}) {
    RootResult r;
    r.name = std::move(name);
    r.status = status;
    r.latency_s = latency_s;
    r.failed_call = std::move(call);
    r.reason = std::move(reason);
    return r;
}

BatchRecord batch(CallId call, std::uint32_t actor, std::uint32_t size, double from_s,
                  double to_s) {
    return {call,
            actor,
            size,
            1,
            static_cast<std::int64_t>(from_s * 1e9),
            static_cast<std::int64_t>(to_s * 1e9),
            false};
}

std::string render(const RunReport& report, std::vector<PictureCall> calls = {},
                   RunEstimate estimate = {}) {
    RunPicture picture{&report, std::move(calls), nullptr, std::move(estimate), 0};
    const std::string page = render_report_html(picture);
    check_offline(page);
    CHECK(render_report_html(picture) == page);  // deterministic
    return page;
}

}  // namespace

TEST_CASE("report html: one timeline row per Call with its batches", "[runtime][html]") {
    RunReport r = report_of({"split", "m", "sum"});
    r.batches = {batch(0, 0, 1, 0.0, 0.1), batch(1, 1, 8, 0.1, 0.5), batch(1, 2, 4, 0.2, 0.6),
                 batch(1, 1, 8, 1.5, 1.9)};
    r.roots = {root("a", RootStatus::Ok, 1.2)};
    const std::string page = render(r, {{"split", 1, 1}, {"m", 8, 2}, {"sum", 4, 1}});
    CHECK(occurrences(page, "<g class=\"timeline-row\"") == 3);
    CHECK_THAT(page, ContainsSubstring("data-call=\"split\" data-batches=\"1\" data-lanes=\"1\""));
    CHECK_THAT(page, ContainsSubstring("data-call=\"m\" data-batches=\"3\" data-lanes=\"2\""));
    // A Call with no batch still has its row, empty.
    CHECK_THAT(page, ContainsSubstring("data-call=\"sum\" data-batches=\"0\" data-lanes=\"1\""));
    CHECK(occurrences(timeline_row(page, 2), "class=\"busy\"") == 0);
    // m: actor 1's two batches are 1 s apart (far more than a pixel): two rectangles, actor 2's
    // one; each says what it holds.
    CHECK(occurrences(timeline_row(page, 1), "class=\"busy\"") == 3);
    CHECK_THAT(timeline_row(page, 1), ContainsSubstring("<title>1 batches, 4 Grains"));
    // Batch fill: m's batches of 8, 4 and 8 with a cap of 8 (bins 40-50% and 90-100%).
    CHECK_THAT(page, ContainsSubstring("90-100%: 2 batches"));
    CHECK_THAT(page, ContainsSubstring("40-50%: 1 batches"));
    CHECK_THAT(page, ContainsSubstring("<section id=\"latency\">"));
    CHECK_THAT(page, ContainsSubstring("1 roots: p50 1.2 s, max 1.2 s</p>"));
}

TEST_CASE("report html: names and reasons are escaped", "[runtime][html]") {
    const std::string evil = "a<b>&\"c'";
    RunReport r = report_of({evil});
    r.pipeline = "<script>alert(1)</script>";
    r.batches = {batch(0, 0, 1, 0, 1)};
    r.roots = {root("x", RootStatus::Failed, 1, evil, "bad <img src=x> & \"worse\"")};
    const std::string page = render(r);
    CHECK(page.find(evil) == std::string::npos);
    CHECK(page.find("<script>") == std::string::npos);
    CHECK(page.find("<img") == std::string::npos);
    CHECK_THAT(page, ContainsSubstring("data-call=\"a&lt;b&gt;&amp;&quot;c&#39;\""));
    CHECK_THAT(page, ContainsSubstring("&lt;script&gt;alert(1)&lt;/script&gt;"));
    CHECK_THAT(page, ContainsSubstring("bad &lt;img src=x&gt; &amp; &quot;worse&quot;"));
}

TEST_CASE("report html: 100k batches give a bounded page", "[runtime][html]") {
    // Three Calls: one actor, four actors, and 40 actors (past 8 lanes: folded), their batches
    // in bursts. 100 s, bursts 0.5 s apart (5 px: apart in every row); 1000 s, bursts 1.2 s
    // apart (1.2 px: apart in a row of one lane, merged where lanes make it coarser).
    struct Bursts {
        double wall, period, busy;
    };
    for (const Bursts run : {Bursts{100, 1, 0.5}, Bursts{1000, 2.2, 1}}) {
        CAPTURE(run.wall);
        RunReport r = report_of({"one", "four", "forty"});
        r.wall_s = run.wall;
        const std::uint32_t actors[] = {1, 4, 40};
        const std::size_t per_burst =
            static_cast<std::size_t>(std::ceil(33'334 / std::floor(run.wall / run.period)));
        for (std::size_t i = 0; i < 100'000; ++i) {
            const CallId call = static_cast<CallId>(i % 3);
            const std::size_t k = i / 3;
            const double at = static_cast<double>(k / per_burst) * run.period +
                              static_cast<double>(k % per_burst) / per_burst * run.busy;
            r.batches.push_back(batch(call,
                                      static_cast<std::uint32_t>(10 * call + i % actors[call]), 8,
                                      at, at + run.busy / per_burst));
        }
        const std::string page = render(r, {{"one", 8, 1}, {"four", 8, 4}, {"forty", 8, 40}});
        CHECK(occurrences(page, "<g class=\"timeline-row\"") == 3);
        std::size_t rects[3] = {};
        for (std::size_t row = 0; row < 3; ++row) {
            CAPTURE(row);
            rects[row] = occurrences(timeline_row(page, row), "class=\"busy\"");
            CHECK(rects[row] <= 2000 + 8);  // ~2000 a row, however many batches
        }
        if (run.wall == 100) {  // a rectangle per burst and lane
            CHECK(rects[0] == 100);
            CHECK(rects[1] == 400);
            CHECK(rects[2] == 800);
        } else {
            CHECK(rects[0] > 400);  // 454 bursts
            CHECK(rects[1] == 4);
            CHECK(rects[2] == 8);
        }
        CHECK_THAT(page, ContainsSubstring("data-call=\"forty\" data-batches=\"33333\" "
                                           "data-lanes=\"8\""));
        CHECK_THAT(page, ContainsSubstring("+33 actors"));
        CHECK_THAT(page, ContainsSubstring("100000 batches drawn as "));
        CHECK(page.size() < 1'000'000);
    }
}

TEST_CASE("report html: failures by Call and reason", "[runtime][html]") {
    RunReport r = report_of({"split", "m"});
    r.roots = {root("a", RootStatus::Ok, 0.5),
               root("b", RootStatus::Failed, 0.7, "m", "bad page 701"),
               root("c", RootStatus::Failed, 0.8, "m", "bad page 701"),
               root("d", RootStatus::Failed, 0.9, "split", "cannot open"),
               root("e", RootStatus::Failed, 0.1, "", "run aborted: m: boom")};
    RootResult resumed = root("f", RootStatus::Failed, 0, "m", "from an earlier run");
    resumed.resumed = true;
    r.roots.push_back(resumed);
    r.calls[1].failed = 2;
    r.calls[1].retries = 3;
    r.calls[1].retried_items = 12;
    const std::string page = render(r);
    CHECK_THAT(page, ContainsSubstring("<tr class=\"failure\"><td>m</td><td class=\"text\">bad "
                                       "page 701</td><td>2</td></tr>"));
    CHECK_THAT(page, ContainsSubstring("<tr class=\"failure\"><td>split</td><td class=\"text\">"
                                       "cannot open</td><td>1</td></tr>"));
    CHECK_THAT(page, ContainsSubstring("<td>(no Call: the run)</td><td class=\"text\">run "
                                       "aborted: m: boom</td><td>1</td>"));
    CHECK(page.find("from an earlier run") == std::string::npos);  // not this run's failure
    CHECK(occurrences(page, "<tr class=\"failure\">") == 3);
    CHECK_THAT(page, ContainsSubstring("<tr><td>m</td><td>2</td><td>0</td><td>3 (12)</td>"));

    RunReport fine = report_of({"m"});
    fine.roots = {root("a", RootStatus::Ok, 0.5)};
    CHECK_THAT(render(fine), ContainsSubstring("No root failed in this run."));
}

TEST_CASE("report html: the failure tally stays bounded", "[runtime][html]") {
    FailureTally tally;
    for (int i = 0; i < 1000; ++i) {
        tally.add(root("r", RootStatus::Failed, 1, "m", "bad page " + std::to_string(i)));
    }
    tally.add(root("r", RootStatus::Failed, 1, "m", std::string(5000, 'x')));
    tally.add(root("r", RootStatus::Ok, 1));
    CHECK(tally.failed() == 1001);
    const std::vector<FailureTally::Row> rows = tally.rows();
    REQUIRE(rows.size() == FailureTally::kMaxRows + 1);
    CHECK(rows.front().reason.empty());  // "other reasons", the most roots: first
    CHECK(rows.front().roots == 1001 - FailureTally::kMaxRows);
    FailureTally long_reason;
    long_reason.add(root("r", RootStatus::Failed, 1, "m", std::string(5000, 'x')));
    CHECK(long_reason.rows().front().reason.size() == FailureTally::kMaxReason);
}

TEST_CASE("report html: the estimate section only when an estimate is given", "[runtime][html]") {
    RunReport r = report_of({"m", "sum"});
    r.wall_s = 10;
    r.batches = {batch(0, 0, 4, 0, 4), batch(0, 1, 4, 1, 5)};
    r.roots = {root("a", RootStatus::Ok, 2), root("b", RootStatus::Ok, 4)};
    r.peak_live_bytes = 2048;
    const std::vector<PictureCall> calls = {{"m", 4, 2}, {"sum", 1, 1}};
    const std::string without = render(r, calls);
    CHECK(without.find("id=\"estimate\"") == std::string::npos);
    CHECK(without.find("predicted") == std::string::npos);

    RunEstimate e;
    e.makespan_s = 8;
    e.peak_memory_bytes = 1024;
    e.p50_commit_s = 1;
    e.calls = {{"m", 10, 0.5}, {"gone", 1, std::nullopt}};
    const std::string with = render(r, calls, e);
    CHECK_THAT(with, ContainsSubstring("<section id=\"estimate\"><h2>Predicted vs measured</h2>"));
    CHECK_THAT(with, ContainsSubstring("<td>makespan</td><td>8 s</td><td>10 s</td><td>1.25</td>"));
    CHECK_THAT(with, ContainsSubstring("<td>peak memory (payloads)</td><td>1.0 KiB</td><td>2.0 "
                                       "KiB</td><td>2.00</td>"));
    CHECK_THAT(with, ContainsSubstring("<td>time to commit p50</td><td>1 s</td><td>2 s</td>"));
    CHECK(with.find("time to commit p99") == std::string::npos);  // not predicted
    // m: busy 8 s of 10 s x 2 actors.
    CHECK_THAT(with, ContainsSubstring("<td>m busy</td><td>10 s</td><td>8 s</td><td>0.80</td>"));
    CHECK_THAT(with, ContainsSubstring("<td>m utilization</td><td>50%</td><td>40%</td>"));
    CHECK_THAT(with, ContainsSubstring("<td>gone busy</td><td>1 s</td><td>-</td><td>-</td>"));
    CHECK_THAT(with, ContainsSubstring("p50 predicted"));  // marked on the latency histogram
}

TEST_CASE("report html: a run with no roots and an aborted run", "[runtime][html]") {
    RunReport empty = report_of({"m"});
    empty.wall_s = 0;
    const std::string none = render(empty);
    CHECK(occurrences(none, "<g class=\"timeline-row\"") == 1);
    CHECK_THAT(none, ContainsSubstring("No root ran in this run."));
    CHECK_THAT(none, ContainsSubstring("No root failed in this run."));

    RunReport aborted = report_of({"m"});
    aborted.aborted = true;
    aborted.abort_reason = "call 'm': <boom>";
    aborted.batches = {batch(0, 0, 2, 0, 1.5)};
    aborted.roots = {root("a", RootStatus::Failed, 1.5, "", "run aborted: call 'm': <boom>")};
    const std::string page = render(aborted);
    CHECK_THAT(page, ContainsSubstring("<p class=\"banner\">Run aborted: call &#39;m&#39;: "
                                       "&lt;boom&gt;</p>"));
    CHECK(occurrences(page, "<tr class=\"failure\">") == 1);
}

TEST_CASE("report html: latencies the report only counted are drawn from its percentiles",
          "[runtime][html]") {
    RunReport r = report_of({"m"});
    for (int i = 1; i <= 1000; ++i) r.omitted.latency.add(0.001 * i);
    r.omitted.ok = 1000;
    const std::string page = render(r);
    CHECK_THAT(page, ContainsSubstring("1000 roots: p50 500 ms, p99 990 ms, max 1 s (drawn from "
                                       "its percentiles"));
    // Every root is in some bar: 30 bars of about 33 roots.
    CHECK(occurrences(page, " roots</title></rect>") == 30);
}

TEST_CASE("report html: pipeline_main writes the page or refuses its path", "[runtime][html]") {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("rop_report_html_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    auto run = [&](const std::string& html, std::ostringstream& err) {
        test::DemoSinks sinks;
        test::Argv a(
            {"--input", "1,7,3", "--journal", (dir / "j").string(), "--report-html", html});
        std::ostringstream out;
        return pipeline_main(a.argc(), a.argv(), test::demo_definition(sinks), out, err, false);
    };
    std::ostringstream err;
    CHECK(run((dir / "run.html").string(), err) == kExitFailedRoots);
    std::ifstream in(dir / "run.html");
    std::stringstream page;
    page << in.rdbuf();
    check_offline(page.str());
    CHECK(occurrences(page.str(), "<g class=\"timeline-row\"") == 3);
    CHECK_THAT(page.str(), ContainsSubstring("data-call=\"split\""));
    CHECK_THAT(page.str(), ContainsSubstring("<td>m</td><td class=\"text\">bad page 701</td>"));
    CHECK_THAT(page.str(), ContainsSubstring("peak resident memory"));

    // As --report's: a path that cannot be written is a usage error before the run.
    std::ostringstream refused;
    CHECK(run(dir.string(), refused) == kExitUsage);
    CHECK(refused.str() == "demo: error: --report-html: '" + dir.string() + "' is a directory\n");
    std::ostringstream nowhere;
    CHECK(run((dir / "no" / "such" / "run.html").string(), nowhere) == kExitUsage);
    CHECK_THAT(nowhere.str(), ContainsSubstring("demo: error: --report-html: "));
    std::filesystem::remove_all(dir);
}
