// The pipeline binary's observability (docs/runtime.md "Observability"): log lines in text and
// JSON with levels and UTC timestamps, each failed root logged once; Prometheus metrics written
// to a textfile and served over HTTP; the report's who/where/when fields; progress that shows
// failed roots and fits the terminal; the flags in --help and their errors.
#include <unistd.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <future>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "main/metrics.h"
#include "test_pipeline_main_demo.h"

using namespace rop::runtime;
using namespace rop::runtime::test;
using namespace std::chrono_literals;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;

namespace {

// A fresh directory under the system temp dir, removed at the end of the test.
struct TempDir {
    TempDir() {
        static int n = 0;
        path = std::filesystem::temp_directory_path() /
               ("rop_observability_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
        std::filesystem::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    std::filesystem::path path;
};

struct MainResult {
    int code = -1;
    std::string err;
};

MainResult run_main(PipelineDefinition def, const TempDir& dir, std::vector<std::string> args) {
    args.push_back("--journal=" + (dir.path / "demo.journal").string());
    Argv a(args);
    std::ostringstream out;
    std::ostringstream err;
    MainResult r;
    r.code = pipeline_main(a.argc(), a.argv(), std::move(def), out, err, false);
    r.err = err.str();
    return r;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

std::string slurp(const std::filesystem::path& path) {
    std::ifstream in(path);
    REQUIRE(in);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// From the clock the log's timestamps come from: std::time can read a coarse clock a tick behind
// it, and a line logged just after a second begins would then look later than `after`.
std::string utc_now() {
    const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    return buf;
}

const std::regex kTimestamp(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$)");

// Prometheus text format 0.0.4, as far as these metrics use it: every line a HELP or TYPE
// comment or a sample `name{labels} value`; a sample's family has its TYPE before it. Returns
// the samples: "name{labels}" -> value.
std::map<std::string, double> parse_metrics(const std::string& text) {
    static const std::regex sample(
        R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*)\} (\S+)$)");
    static const std::regex help(R"(^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) \S.*$)");
    static const std::regex type(R"(^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge)$)");
    std::map<std::string, double> samples;
    std::set<std::string> typed;
    std::set<std::string> helped;
    REQUIRE_FALSE(text.empty());
    CHECK(text.back() == '\n');
    for (const std::string& line : lines_of(text)) {
        std::smatch m;
        if (std::regex_match(line, m, help)) {
            helped.insert(m[1]);
        } else if (std::regex_match(line, m, type)) {
            typed.insert(m[1]);
        } else {
            INFO(line);
            REQUIRE(std::regex_match(line, m, sample));
            CHECK(typed.count(m[1]) == 1);
            CHECK(helped.count(m[1]) == 1);
            CHECK_THAT(m[2].str(), StartsWith("pipeline=\"demo\""));
            samples[m[1].str() + "{" + m[2].str() + "}"] = std::stod(m[3]);
        }
    }
    return samples;
}

}  // namespace

TEST_CASE("observability: text log lines, the failed root logged once", "[runtime][cli][log]") {
    DemoSinks sinks;
    TempDir dir;
    const std::string before = utc_now();
    const MainResult r = run_main(demo_definition(sinks), dir, {"--input", "1,7,2"});
    const std::string after = utc_now();
    CHECK(r.code == kExitFailedRoots);
    static const std::regex line_re(
        R"(^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z) (ERROR|WARN |INFO |DEBUG) (.*)$)");
    std::vector<std::string> levels;
    std::vector<std::string> messages;
    for (const std::string& line : lines_of(r.err)) {
        std::smatch m;
        if (line.starts_with("  ")) continue;  // the summary's continuation lines
        INFO(line);
        REQUIRE(std::regex_match(line, m, line_re));
        // Second resolution is enough: the timestamp is UTC and of this run.
        CHECK(m[1].str().substr(0, 19) >= before);
        CHECK(m[1].str().substr(0, 19) <= after);
        levels.push_back(m[2]);
        messages.push_back(m[3]);
    }
    REQUIRE(messages.size() == 4);
    CHECK(levels == std::vector<std::string>{"INFO ", "ERROR", "ERROR", "INFO "});
    CHECK(messages[0] == "demo: run started (version 0.1.0), input docs=1,7,2");
    CHECK(messages[1] == "demo: root doc7 failed: call 'm': bad page 701");
    CHECK(messages[2] == "demo: 1 failed of 3 roots");
    CHECK_THAT(messages[3], StartsWith("demo: run ended: 3 roots (2 ok, 0 dropped, 1 failed) in "));
    CHECK_THAT(r.err, ContainsSubstring("demo: 1 failed of 3 roots\n  doc7: call 'm': bad page "
                                        "701\n"));
}

TEST_CASE("observability: JSON log lines", "[runtime][cli][log]") {
    DemoSinks sinks;
    TempDir dir;
    const MainResult r =
        run_main(demo_definition(sinks), dir, {"--input", "1,7,2", "--log-format", "json"});
    CHECK(r.code == kExitFailedRoots);
    std::vector<nlohmann::json> records;
    for (const std::string& line : lines_of(r.err)) {
        INFO(line);
        records.push_back(nlohmann::json::parse(line));  // every line one JSON object
        const nlohmann::json& j = records.back();
        REQUIRE(j.is_object());
        CHECK(std::regex_match(j["ts"].get<std::string>(), kTimestamp));
        CHECK(j["pipeline"] == "demo");
        CHECK(j["msg"].is_string());
    }
    REQUIRE(records.size() == 4);
    CHECK(records[0]["event"] == "run_started");
    CHECK(records[0]["level"] == "info");
    CHECK(records[0]["version"] == "0.1.0");
    CHECK(records[0]["inputs"] == nlohmann::json{{"docs", "1,7,2"}});
    CHECK(records[1]["event"] == "root_failed");
    CHECK(records[1]["level"] == "error");
    CHECK(records[1]["root"] == "doc7");
    CHECK(records[1]["call"] == "m");
    CHECK(records[1]["reason"] == "bad page 701");
    CHECK(records[1]["attempts"] == 1);
    CHECK(records[2]["event"] == "failed_roots");
    CHECK(records[2]["msg"] == "demo: 1 failed of 3 roots\n  doc7: call 'm': bad page 701");
    CHECK(records[3]["event"] == "run_ended");
    CHECK(records[3]["ok"] == 2);
    CHECK(records[3]["failed"] == 1);
    CHECK(records[3]["exit_code"] == kExitFailedRoots);
}

TEST_CASE("observability: --log-level", "[runtime][cli][log]") {
    TempDir dir;
    DemoSinks quiet;
    const MainResult e =
        run_main(demo_definition(quiet), dir, {"--input", "1,7,2", "--log-level", "error"});
    CHECK(e.code == kExitFailedRoots);
    CHECK(e.err.find(" INFO ") == std::string::npos);
    CHECK(e.err.find("run started") == std::string::npos);
    const std::vector<std::string> lines = lines_of(e.err);
    REQUIRE(lines.size() == 3);
    CHECK_THAT(lines[0], ContainsSubstring(" ERROR demo: root doc7 failed: call 'm': "));
    CHECK_THAT(lines[1], ContainsSubstring(" ERROR demo: 1 failed of 3 roots"));
    CHECK(lines[2] == "  doc7: call 'm': bad page 701");

    DemoSinks ok;
    CHECK(run_main(demo_definition(ok), dir, {"--log-level", "warn"}).err.empty());

    DemoSinks loud;
    const MainResult d = run_main(demo_definition(loud), dir, {"--log-level", "debug"});
    CHECK(d.code == kExitOk);
    for (const char* root : {"doc1", "doc2", "doc3"}) {
        const std::string needle = std::string(" DEBUG demo: root ") + root + " ok in ";
        CHECK(d.err.find(needle) != std::string::npos);
        CHECK(d.err.find(needle) == d.err.rfind(needle));  // once
    }
}

TEST_CASE("observability: --metrics-file holds the final values, written atomically",
          "[runtime][cli][metrics]") {
    DemoSinks sinks;
    TempDir dir;
    const auto metrics = dir.path / "demo.prom";
    const auto report = dir.path / "report.json";
    const MainResult r = run_main(demo_definition(sinks), dir,
                                  {"--input", "1,7,2", "--metrics-file", metrics.string(),
                                   "--report", report.string(), "--log-level", "error"});
    CHECK(r.code == kExitFailedRoots);
    const std::map<std::string, double> m = parse_metrics(slurp(metrics));
    const nlohmann::json j = nlohmann::json::parse(slurp(report));
    auto at = [&](const std::string& key) {
        INFO(key);
        REQUIRE(m.count(key) == 1);
        return m.at(key);
    };
    CHECK(at(R"(rop_roots_total{pipeline="demo",status="ok"})") == j["summary"]["ok"]);
    CHECK(at(R"(rop_roots_total{pipeline="demo",status="failed"})") == j["summary"]["failed"]);
    CHECK(at(R"(rop_roots_total{pipeline="demo",status="dropped"})") == 0);
    CHECK(at(R"(rop_roots_done{pipeline="demo"})") == 3);
    CHECK(at(R"(rop_roots_inflight{pipeline="demo"})") == 0);
    CHECK(at(R"(rop_roots_expected{pipeline="demo"})") == 3);  // the source's size hint
    REQUIRE(j["calls"].size() == 3);
    for (const nlohmann::json& c : j["calls"]) {
        const std::string call = ",call=\"" + c["name"].get<std::string>() + "\"}";
        const std::string p = "{pipeline=\"demo\"";
        CHECK(at("rop_call_grains_total" + p + call) == c["grains"]);
        CHECK(at("rop_call_batches_total" + p + call) == c["batches"]);
        CHECK(at("rop_call_failed_total" + p + call) == c["failed"]);
        CHECK(at("rop_call_retries_total" + p + call) == c["retries"]);
        CHECK(at("rop_call_infra_retries_total" + p + call) == c["infra_retries"]);
        CHECK(at("rop_call_batch_fill" + p + call) == c["mean_batch_fill"].get<double>());
        CHECK(at("rop_call_batch_seconds" + p + call) == c["median_batch_s"].get<double>());
        CHECK(c["median_batch_s"].get<double>() > 0);  // every Call ran batches
    }
    CHECK(at(R"(rop_call_grains_total{pipeline="demo",call="m"})") == 10);  // 1 + 7 + 2 pages
    CHECK(at(R"(rop_call_failed_total{pipeline="demo",call="m"})") == 1);
    // Temp file + rename: only the metrics, the report and the journal are left.
    std::set<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path)) {
        names.insert(entry.path().filename().string());
    }
    CHECK(names == std::set<std::string>{"demo.journal", "demo.prom", "report.json"});
}

TEST_CASE("observability: metric values print as Prometheus clients print them",
          "[runtime][cli][metrics]") {
    // The shortest text that reads back as the same double, exponent form from 1e+06 (Go's
    // strconv.FormatFloat(v, 'g', -1, 64), which client_golang uses), and NaN and +Inf.
    const std::vector<std::pair<double, std::string>> table = {
        {0.1, "0.1"},
        {1.0 / 3, "0.3333333333333333"},
        {0.00012, "0.00012"},
        {0.00001, "1e-05"},
        {2, "2"},
        {123456, "123456"},
        {1e6, "1e+06"},
        {1234567, "1.234567e+06"},
        {std::numeric_limits<double>::quiet_NaN(), "NaN"},
        {std::numeric_limits<double>::infinity(), "+Inf"},
    };
    for (const auto& [value, text] : table) {
        INFO(text);
        Progress p;
        p.elapsed_s = value;
        p.calls.resize(1);
        p.calls[0].mean_batch_fill = value;
        const std::vector<ProgressCall> calls = {{"m", false}};
        const std::string metrics = detail::render_metrics("demo", p, {}, calls);
        CHECK_THAT(metrics,
                   ContainsSubstring("\nrop_elapsed_seconds{pipeline=\"demo\"} " + text + "\n"));
        CHECK_THAT(metrics,
                   ContainsSubstring("\nrop_call_batch_fill{pipeline=\"demo\",call=\"m\"} " + text +
                                     "\n"));
        if (!std::isnan(value)) CHECK(std::stod(text) == value);
    }
}

namespace {

// GET `target` from 127.0.0.1:port with Beast: status and body.
std::pair<int, std::string> http_get(std::uint16_t port, const std::string& target) {
    namespace http = boost::beast::http;
    boost::asio::io_context io;
    boost::asio::ip::tcp::socket socket(io);
    socket.connect({boost::asio::ip::make_address_v4("127.0.0.1"), port});
    http::request<http::empty_body> request(http::verb::get, target, 11);
    request.set(http::field::host, "127.0.0.1");
    http::write(socket, request);
    boost::beast::flat_buffer buffer;
    http::response<http::string_body> response;
    http::read(socket, buffer, response);
    if (response.result() == http::status::ok) {
        CHECK(response[http::field::content_type] == "text/plain; version=0.0.4; charset=utf-8");
    }
    return {static_cast<int>(response.result_int()), response.body()};
}

// An ostream buffer whose text another thread may read while it is written.
class SharedBuf : public std::stringbuf {
  public:
    std::string text() {
        std::lock_guard lock(mu_);
        return seen_;
    }

  protected:
    int sync() override {
        std::lock_guard lock(mu_);
        seen_ = str();
        return 0;
    }

  private:
    std::mutex mu_;
    std::string seen_;
};

}  // namespace

TEST_CASE("observability: --metrics-port serves /metrics while the run lasts",
          "[runtime][cli][metrics]") {
    DemoSinks sinks;
    TempDir dir;
    PipelineDefinition def = demo_definition(sinks, "1,3");
    // Page 301 waits until the test has scraped, so that the run is still going.
    std::promise<void> open;
    std::shared_future<void> opened = open.get_future().share();
    def.plan.calls[1].factory = actor([opened](Batch& bt) {
        for (std::size_t g = 0; g < bt.size(); ++g) {
            const long x = bt.input(g, 0).get<long>();
            if (x == 301) opened.wait_for(20s);
            bt.set_output(g, 0, Value::of<long>(2 * x));
        }
    });
    SharedBuf buf;
    std::ostream err(&buf);
    int code = -1;
    std::thread runner([&] {
        Argv a({"--metrics-port", "0", "--log-format", "json", "--journal",
                (dir.path / "j.journal").string()});
        std::ostringstream out;
        code = pipeline_main(a.argc(), a.argv(), std::move(def), out, err, false);
    });
    // The port chosen is logged before the run starts.
    std::optional<std::uint16_t> port;
    for (int i = 0; i < 1000 && !port; ++i) {
        for (const std::string& line : lines_of(buf.text())) {
            const nlohmann::json j = nlohmann::json::parse(line);
            if (j.value("event", "") == "metrics") port = j["metrics_port"].get<std::uint16_t>();
        }
        if (!port) std::this_thread::sleep_for(10ms);
    }
    if (!port) open.set_value();
    REQUIRE(port);
    CHECK(*port > 0);

    const auto [status, body] = http_get(*port, "/metrics");
    CHECK(status == 200);
    const std::map<std::string, double> m = parse_metrics(body);
    CHECK(m.count(R"(rop_roots_inflight{pipeline="demo"})") == 1);
    // The first snapshot comes after a second; before it, every Call is there at zero.
    CHECK(m.count(R"(rop_call_grains_total{pipeline="demo",call="m"})") == 1);
    CHECK(m.count(R"(rop_call_failed_total{pipeline="demo",call="sum"})") == 1);
    CHECK(http_get(*port, "/other").first == 404);

    open.set_value();
    runner.join();
    CHECK(code == kExitOk);
    // Stopped at the end: nothing listens on the port any more.
    boost::asio::io_context io;
    boost::asio::ip::tcp::socket socket(io);
    boost::system::error_code ec;
    socket.connect({boost::asio::ip::make_address_v4("127.0.0.1"), *port}, ec);
    CHECK(ec == boost::asio::error::connection_refused);
}

TEST_CASE("observability: the report says which pipeline ran, where and when",
          "[runtime][cli][report]") {
    DemoSinks sinks;
    TempDir dir;
    const auto report = dir.path / "report.json";
    PipelineDefinition def = demo_definition(sinks);
    def.rop_hash = "sha256:0123abcd";
    CHECK(run_main(std::move(def), dir, {"--report", report.string()}).code == kExitOk);
    const nlohmann::json j = nlohmann::json::parse(slurp(report));
    CHECK(j["pipeline"] == "demo");
    CHECK(j["rop_version"] == "0.1.0");
    CHECK(j["rop_hash"] == "sha256:0123abcd");
    char host[256] = {};
    REQUIRE(::gethostname(host, sizeof host - 1) == 0);
    CHECK(j["host"] == std::string(host));
    const std::string started = j["started_at"];
    const std::string ended = j["ended_at"];
    CHECK(std::regex_match(started, kTimestamp));
    CHECK(std::regex_match(ended, kTimestamp));
    CHECK(started <= ended);

    // Without a hash in the definition (ropc does not stamp one yet): null.
    DemoSinks plain;
    CHECK(run_main(demo_definition(plain), dir, {"--report", report.string()}).code == kExitOk);
    CHECK(nlohmann::json::parse(slurp(report))["rop_hash"].is_null());
    // run() called directly knows none of it.
    const nlohmann::json bare = nlohmann::json::parse(RunReport{}.to_json());
    for (const char* key : {"pipeline", "rop_version", "rop_hash", "host", "started_at"}) {
        CHECK(bare[key].is_null());
    }
}

TEST_CASE("observability: progress shows failed roots and fits the terminal",
          "[runtime][cli][progress]") {
    Progress p;
    p.roots_admitted = 5;
    p.roots_done = 4;
    p.roots_total = 10;
    p.elapsed_s = 2;
    p.calls.push_back({});
    p.calls[0].name = "ocr_pages_with_a_long_name";
    p.calls[0].grains = 40;
    const std::vector<ProgressCall> calls{{"ocr_pages_with_a_long_name", false}};
    const std::vector<std::string> lines = render_progress(p, calls, 2);
    REQUIRE(lines.size() == 2);
    CHECK_THAT(lines[0], StartsWith("roots 4/10 done, 2 failed, 1 in flight, 2.0s, ETA "));
    CHECK(render_progress(p, calls)[0].find("failed") == std::string::npos);  // none: not said

    CHECK(fit_width("roots 4/10 done", 10) == "roots 4/1");  // 9 columns, the 10th kept free
    CHECK(fit_width("roots", 10) == "roots");
    CHECK(fit_width("0123456789", 10) == "012345678");
    CHECK(fit_width("abc", 0) == "abc");
    CHECK(fit_width("d\xc3\xa9j\xc3\xa0 vu", 4) == "d\xc3\xa9j");  // UTF-8 kept whole
    for (const std::string& line : lines) CHECK(fit_width(line, 30).size() <= 29);
}

TEST_CASE("observability: the flags in --help and their errors", "[runtime][cli]") {
    DemoSinks sinks;
    const PipelineDefinition def = demo_definition(sinks);
    Argv help_args({"--help"});
    const ParseOutcome parsed = parse_pipeline_args(help_args.argc(), help_args.argv(), def);
    REQUIRE(parsed.args);
    const std::string help = pipeline_help(def, *parsed.args);
    for (const char* flag : {"  --log-level LEVEL  ", "  --log-format FORMAT  ",
                             "  --metrics-file FILE  ", "  --metrics-port PORT  "}) {
        CHECK_THAT(help, ContainsSubstring(flag));
    }
    auto error_of = [&](std::vector<std::string> args) {
        Argv a(args);
        const ParseOutcome p = parse_pipeline_args(a.argc(), a.argv(), def);
        CHECK_FALSE(p.args);
        return p.error;
    };
    CHECK(error_of({"--log-level", "loud"}) ==
          "--log-level: expected error, warn, info or debug, got 'loud'");
    CHECK_THAT(error_of({"--log-level", "eror"}), ContainsSubstring("did you mean 'error'?"));
    CHECK(error_of({"--log-format", "xml"}) == "--log-format: expected text or json, got 'xml'");
    CHECK(error_of({"--metrics-port", "70000"}) ==
          "--metrics-port: expected a port 0..65535 (0: any free one), got '70000'");
    CHECK(error_of({"--metrics-file="}) == "'--metrics-file' needs a value: --metrics-file FILE");
    Argv ok(
        {"--log-level=debug", "--log-format=json", "--metrics-port=9464", "--metrics-file=m.prom"});
    const ParseOutcome p = parse_pipeline_args(ok.argc(), ok.argv(), def);
    REQUIRE(p.args);
    CHECK(p.args->log_level == LogLevel::Debug);
    CHECK(p.args->log_format == LogFormat::Json);
    CHECK(p.args->metrics_port == std::optional<std::uint16_t>(9464));
    CHECK(p.args->metrics_file == "m.prom");
}
