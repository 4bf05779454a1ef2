// pipeline_main run in-process on the demo pipeline (expand -> map -> reduce): exit codes 0, 3,
// 1 and 2, the stderr summary, --set reaching the plan, --report parsed back, progress output.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "test_pipeline_main_demo.h"

using namespace rop::runtime;
using namespace rop::runtime::test;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::EndsWith;
using Catch::Matchers::StartsWith;

namespace {

struct MainResult {
    int code = -1;
    std::string out;
    std::string err;
};

std::filesystem::path scratch_dir();

// The ERROR and WARN log lines of `err` with the level in front instead of the timestamp
// ("ERROR demo: 1 failed of 3 roots"), with their continuation lines; INFO and DEBUG lines and
// anything else (progress) left out.
std::string warnings_and_errors(const std::string& err) {
    static const std::regex prefix(
        R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (ERROR|WARN |INFO |DEBUG) )");
    std::istringstream in(err);
    std::string line;
    std::string out;
    bool keep = false;
    while (std::getline(in, line)) {
        std::smatch m;
        if (std::regex_search(line, m, prefix)) {
            std::string level = m[1];
            while (level.back() == ' ') level.pop_back();
            keep = level == "ERROR" || level == "WARN";
            if (keep) out += level + " " + m.suffix().str() + "\n";
        } else if (keep && line.starts_with("  ")) {
            out += line + "\n";
        } else {
            keep = false;
        }
    }
    return out;
}

// Runs the demo in-process. Unless the test names one, the journal goes to a scratch directory
// (the default, next to the first sink's output, would land in the test's working directory).
MainResult run_demo(DemoSinks& sinks, std::vector<std::string> args, bool tty = false,
                    std::string default_input = "1,2,3") {
    if (std::find_if(args.begin(), args.end(), [](const std::string& s) {
            return s.starts_with("--journal");
        }) == args.end()) {
        args.push_back("--journal=" + (scratch_dir() / "demo.journal").string());
    }
    Argv a(args);
    std::ostringstream out;
    std::ostringstream err;
    MainResult o;
    o.code = pipeline_main(a.argc(), a.argv(), demo_definition(sinks, std::move(default_input)),
                           out, err, tty);
    o.out = out.str();
    o.err = err.str();
    return o;
}

// A fresh directory under the system temp dir, removed at the end of the test.
struct TempDir {
    TempDir() {
        path =
            std::filesystem::temp_directory_path() /
            ("rop_pipeline_main_" + std::to_string(::getpid()) + "_" + std::to_string(counter()++));
        std::filesystem::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    static int& counter() {
        static int n = 0;
        return n;
    }
    std::filesystem::path path;
};

std::filesystem::path scratch_dir() {
    static TempDir dir;
    return dir.path;
}

nlohmann::json read_json(const std::filesystem::path& path) {
    std::ifstream in(path);
    REQUIRE(in);
    return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE("pipeline_main: exit 0 when every root is ok", "[runtime][cli]") {
    DemoSinks sinks;
    const MainResult o = run_demo(sinks, {"--output", "totals=t.txt"});
    CHECK(o.code == kExitOk);
    CHECK(o.out.empty());
    // Not a terminal, no --progress: only the run's start and end are logged (at INFO).
    CHECK(warnings_and_errors(o.err).empty());
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 2);
    CHECK_THAT(o.err, ContainsSubstring(" INFO  demo: run ended: 3 roots (3 ok, 0 dropped, "
                                        "0 failed) in "));
    std::vector<long> totals = sinks.totals;
    std::sort(totals.begin(), totals.end());
    // 1 -> 100; 2 -> 200+201; 3 -> 300+301+302; doubled.
    CHECK(totals == std::vector<long>{200, 802, 1806});
    CHECK(sinks.pages.size() == 6);
    CHECK(sinks.totals_path == "t.txt");
    CHECK(sinks.pages_path == "pages.txt");
}

TEST_CASE("pipeline_main: --input overrides the default source input", "[runtime][cli]") {
    DemoSinks sinks;
    const MainResult o = run_demo(sinks, {"--input", "4"});
    CHECK(o.code == kExitOk);
    CHECK(sinks.totals == std::vector<long>{2 * (400 + 401 + 402 + 403)});

    TempDir dir;
    const auto list = dir.path / "list.txt";
    std::ofstream(list) << "1\n2\n";
    DemoSinks from_file;
    CHECK(run_demo(from_file, {"--input", "docs=@" + list.string()}).code == kExitOk);
    CHECK(from_file.totals.size() == 2);
}

TEST_CASE("pipeline_main: --set reaches the plan", "[runtime][cli]") {
    DemoSinks wide;
    CHECK(run_demo(wide, {"--input", "40", "--set", "m.batch=1"}).code == kExitOk);
    CHECK(wide.max_map_batch.load() == 1);
    CHECK(wide.totals.size() == 1);

    // --set edits the options of the plan the run gets, Call by Call; the hidden
    // --rop-dump-options prints them (every option of the table) and runs nothing.
    DemoSinks sinks;
    Argv a({"--rop-dump-options", "--set", "m.actors=3", "--set", "sum.recovery=retry_tail"});
    std::ostringstream out;
    std::ostringstream err;
    CHECK(pipeline_main(a.argc(), a.argv(), demo_definition(sinks), out, err, false) == kExitOk);
    const std::string dump = out.str();
    CHECK_THAT(dump, ContainsSubstring("\nm.actors=3\n"));
    CHECK_THAT(dump, ContainsSubstring("\nm.batch=16\n"));  // as compiled
    CHECK_THAT(dump, ContainsSubstring("\nsum.recovery=retry_tail\n"));
    CHECK_THAT(dump, ContainsSubstring("\nm.recovery=isolate_tail\n"));  // the default
    CHECK_THAT(dump, ContainsSubstring("\nsum.timeout=none\n"));
    CHECK(err.str().empty());
    CHECK(sinks.totals.empty());
}

TEST_CASE("pipeline_main: exit 3 with failed roots and a stderr summary", "[runtime][cli]") {
    DemoSinks sinks;
    TempDir dir;
    const auto report = dir.path / "report.json";
    const MainResult o = run_demo(sinks, {"--input", "1,7,2", "--report", report.string()});
    CHECK(o.code == kExitFailedRoots);
    // The failed root logged as it happened, then the summary at the end.
    CHECK(warnings_and_errors(o.err) ==
          "ERROR demo: root doc7 failed: call 'm': bad page 701\n"
          "ERROR demo: 1 failed of 3 roots\n  doc7: call 'm': bad page 701\n");
    std::vector<long> totals = sinks.totals;
    std::sort(totals.begin(), totals.end());
    CHECK(totals == std::vector<long>{200, 802});

    const nlohmann::json j = read_json(report);
    CHECK(j["aborted"] == false);
    CHECK(j["summary"]["roots"] == 3);
    CHECK(j["summary"]["ok"] == 2);
    CHECK(j["summary"]["failed"] == 1);
    REQUIRE(j["roots"].size() == 3);
    CHECK(j["roots"][1]["name"] == "doc7");
    CHECK(j["roots"][1]["status"] == "failed");
    CHECK(j["roots"][1]["call"] == "m");
    CHECK(j["roots"][1]["reason"] == "bad page 701");
    CHECK(j["roots"][0]["status"] == "ok");
    REQUIRE(j["calls"].size() == 3);
    CHECK(j["calls"][1]["name"] == "m");
    CHECK(j["calls"][1]["failed"] == 1);
    // Written through a temp file and renamed: nothing else is left in the directory.
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path)) {
        (void)entry;
        ++files;
    }
    CHECK(files == 1);
}

TEST_CASE("pipeline_main: the failure summary lists the first few", "[runtime][cli]") {
    RunReport report;
    for (int i = 0; i < 9; ++i) {
        RootResult r;
        r.name = "r" + std::to_string(i);
        if (i % 4 != 0) {
            r.status = RootStatus::Failed;
            r.failed_call = "ocr";
            r.reason = "bad " + std::to_string(i);
        }
        report.roots.push_back(r);
    }
    report.roots[3].failed_call.clear();
    report.roots[3].reason = "run aborted: x";
    CHECK(failure_summary(report, 3) ==
          "6 failed of 9 roots\n"
          "  r1: call 'ocr': bad 1\n"
          "  r2: call 'ocr': bad 2\n"
          "  r3: run aborted: x\n"
          "  ... and 3 more (see --report)\n");
    CHECK(failure_summary(RunReport{}).empty());
}

TEST_CASE("pipeline_main: exit 1 when the run aborts", "[runtime][cli]") {
    DemoSinks sinks;
    TempDir dir;
    const auto report = dir.path / "report.json";
    const MainResult o = run_demo(
        sinks, {"--input", "9,1", "--set", "m.recovery=abort", "--report", report.string()});
    CHECK(o.code == kExitAborted);
    const std::string errors = warnings_and_errors(o.err);
    // A root that ends failed before the abort stops the run is logged once as it ends (doc9,
    // when its other pages are done in time: under TSan they may not be, and a root the abort
    // leaves unfinished is in the summary and the report only); the abort comes last.
    const std::string doc9 =
        "ERROR demo: root doc9 failed: call 'm': udf error (abort): boom on 902\n";
    if (const std::size_t at = errors.find(doc9); at != std::string::npos) {
        CHECK(errors.find(doc9, at + 1) == std::string::npos);
    }
    // The last line, whole (it may be the only one, when doc9 was not logged).
    CHECK_THAT("\n" + errors, EndsWith("\nERROR demo: aborted: call 'm': boom on 902\n"));
    std::size_t lines = 0;
    std::istringstream in(errors);
    for (std::string line; std::getline(in, line); ++lines) {
        if (!line.starts_with("ERROR demo: aborted: ")) {
            CHECK_THAT(line, StartsWith("ERROR demo: root doc"));
        }
    }
    CHECK(lines <= 3);  // doc9, doc1 (if it had not finished), the abort
    const nlohmann::json j = read_json(report);
    CHECK(j["aborted"] == true);
    CHECK_THAT(j["abort_reason"].get<std::string>(), ContainsSubstring("boom on 902"));

    // The same input under the default recovery (isolate_tail) fails only that root: exit 3.
    DemoSinks isolated;
    const MainResult o3 = run_demo(isolated, {"--input", "9,1"});
    CHECK(o3.code == kExitFailedRoots);
    CHECK_THAT(warnings_and_errors(o3.err),
               ContainsSubstring("ERROR demo: 1 failed of 2 roots\n  doc9: call 'm': "));
}

TEST_CASE("pipeline_main: exit 2 on usage errors, one line", "[runtime][cli]") {
    const std::vector<std::pair<std::vector<std::string>, std::string>> table = {
        {{"--progres"}, "demo: error: unknown flag '--progres'; did you mean '--progress'?\n"},
        {{"--set", "m.batch=0"}, "demo: error: --set m.batch: 0 is out of range 1..65536\n"},
        {{"--input", "1,x"}, "demo: error: input 'docs': 'x' is not a number\n"},
        {{"--input", "@/nonexistent/list"},
         "demo: error: input 'docs': cannot open '/nonexistent/list'\n"},
        {{"--output", "pages=/unwritable"},
         "demo: error: output 'pages': cannot create '/unwritable'\n"},
        {{"--report", "/nonexistent/dir/r.json"},
         "demo: error: --report: directory '/nonexistent/dir' does not exist\n"},
        {{"--trace", "/nonexistent/dir/t.json"},
         "demo: error: --trace: directory '/nonexistent/dir' does not exist\n"},
        {{"--journal", "/nonexistent/dir/j"},
         "demo: error: --journal: directory '/nonexistent/dir' does not exist\n"},
    };
    for (const auto& [args, message] : table) {
        INFO(args.front());
        DemoSinks sinks;
        const MainResult o = run_demo(sinks, args);
        CHECK(o.code == kExitUsage);
        CHECK(o.err == message);
        CHECK(o.out.empty());
        CHECK(sinks.totals.empty());
    }
    DemoSinks sinks;
    const MainResult o = run_demo(sinks, {}, false, "");
    CHECK(o.code == kExitUsage);
    CHECK(o.err == "demo: error: no input for source 'docs'; use --input docs=PATH\n");
}

TEST_CASE("pipeline_main: the files the run writes are checked before it starts",
          "[runtime][cli]") {
    // As their writers will write them: not a directory, and a file can be made beside them
    // (the report's and the metrics' temp file; a 250-character name fits, its temp file's not).
    const TempDir dir;
    const std::string d = dir.path.string();
    const std::string long_name = d + "/" + std::string(250, 'r');
    const std::string temp = long_name + ".tmp." + std::to_string(::getpid());
    const std::vector<std::pair<std::vector<std::string>, std::string>> table = {
        {{"--report", d}, "demo: error: --report: '" + d + "' is a directory\n"},
        {{"--report", long_name},
         "demo: error: --report: cannot create '" + temp + "': File name too long\n"},
        {{"--metrics-file", d}, "demo: error: --metrics-file: '" + d + "' is a directory\n"},
        {{"--metrics-file", long_name},
         "demo: error: --metrics-file: cannot create '" + temp + "': File name too long\n"},
        {{"--trace", d}, "demo: error: --trace: '" + d + "' is a directory\n"},
        {{"--journal", d}, "demo: error: --journal: '" + d + "' is a directory\n"},
    };
    for (const auto& [args, message] : table) {
        CAPTURE(args);
        DemoSinks sinks;
        const MainResult o = run_demo(sinks, args);
        CHECK(o.code == kExitUsage);
        CHECK(o.err == message);
        CHECK(sinks.totals.empty());
    }
    CHECK(std::filesystem::is_empty(dir.path));  // no temp file left behind
}

TEST_CASE("pipeline_main: without the MPI executor, mpi is refused before anything runs",
          "[runtime][cli][mpi]") {
    // This test binary does not link rop_runtime_mpi (a `ropc build` without --mpi neither).
    {
        DemoSinks sinks;
        for (const char* flag : {"--placement", "--executor"}) {  // (the older spelling)
            CAPTURE(flag);
            const MainResult o = run_demo(sinks, {flag, "mpi"});
            CHECK(o.code == kExitUsage);
            CHECK(o.err ==
                  "demo: error: --placement mpi: this binary was built without the MPI executor; "
                  "build it with `ropc build --mpi` (docs/cluster.md)\n");
            CHECK(sinks.totals.empty());
        }
    }
    // Started by mpirun with 3 ranks: each would run the whole pipeline; refused, on every rank.
    ::setenv("OMPI_COMM_WORLD_SIZE", "3", 1);
    DemoSinks sinks;
    const MainResult o = run_demo(sinks, {});
    ::unsetenv("OMPI_COMM_WORLD_SIZE");
    CHECK(o.code == kExitUsage);
    CHECK(o.err ==
          "demo: error: started by an MPI launcher with 3 ranks, but this binary was "
          "built without the MPI executor; build it with `ropc build --mpi` "
          "(docs/cluster.md)\n");
    CHECK(sinks.totals.empty());
    // One rank (mpirun -np 1) is a plain run.
    ::setenv("OMPI_COMM_WORLD_SIZE", "1", 1);
    DemoSinks one;
    const MainResult single = run_demo(one, {"--explain-placement"});
    ::unsetenv("OMPI_COMM_WORLD_SIZE");
    CHECK(single.code == kExitOk);
    CHECK_THAT(single.err,
               ContainsSubstring("placement: one process (threads executor): every actor runs "
                                 "here\n"));
    CHECK(one.totals.size() == 3);
}

TEST_CASE("pipeline_main: --help and --version print and exit 0", "[runtime][cli]") {
    DemoSinks sinks;
    const MainResult help = run_demo(sinks, {"--help"});
    CHECK(help.code == kExitOk);
    CHECK(help.err.empty());
    CHECK_THAT(help.out, StartsWith("Usage: demo [FLAGS]\n"));
    CHECK_THAT(help.out, ContainsSubstring("  docs  1,2,3  Doc: numbers\n"));
    CHECK(sinks.totals.empty());  // nothing ran
    const MainResult version = run_demo(sinks, {"--version"});
    CHECK(version.code == kExitOk);
    CHECK(version.out == "demo 0.1.0 (demo.rop)\n");
}

TEST_CASE("pipeline_main: progress on stderr, plain and on a terminal", "[runtime][cli]") {
    DemoSinks plain;
    const MainResult o = run_demo(plain, {"--progress"});
    CHECK(o.code == kExitOk);
    // At least the final snapshot, one line per Call plus the roots line, all finished.
    CHECK_THAT(o.err, ContainsSubstring("] roots 3/3 done, 0 in flight, "));
    CHECK_THAT(o.err, ContainsSubstring("] split  3/3"));
    CHECK_THAT(o.err, ContainsSubstring("] m      6/6"));
    CHECK(o.err.find('\x1b') == std::string::npos);

    DemoSinks tty;
    const MainResult t = run_demo(tty, {}, true);  // on by default on a terminal
    CHECK(t.code == kExitOk);
    CHECK_THAT(t.err, ContainsSubstring("\x1b[2Kroots 3/3 done, 0 in flight, "));
    CHECK_THAT(t.err, ContainsSubstring("\x1b[2K  sum    3/3"));

    DemoSinks off;
    const std::string quiet = run_demo(off, {"--no-progress"}, true).err;
    CHECK(quiet.find('\x1b') == std::string::npos);
    CHECK(quiet.find("roots 3/3 done") == std::string::npos);
}

TEST_CASE("pipeline_main: --trace, --report and the admission limits", "[runtime][cli]") {
    DemoSinks sinks;
    TempDir dir;
    const auto trace = dir.path / "trace.json";
    const auto report = dir.path / "report.json";
    CHECK(run_demo(sinks, {"--trace", trace.string(), "--report=" + report.string(),
                           "--max-inflight-roots", "1", "--max-payload-mb", "1"})
              .code == kExitOk);
    const nlohmann::json t = read_json(trace);
    REQUIRE(t.contains("traceEvents"));
    CHECK_FALSE(t["traceEvents"].empty());
    const nlohmann::json r = read_json(report);
    CHECK(r["peak_inflight_roots"] == 1);
    CHECK(r["summary"]["ok"] == 3);
}

TEST_CASE("pipeline_main: a malformed definition is an internal error, exit 1", "[runtime][cli]") {
    auto run_def = [](PipelineDefinition def) {
        Argv a({});
        std::ostringstream out;
        std::ostringstream err;
        const int code = pipeline_main(a.argc(), a.argv(), std::move(def), out, err, false);
        CHECK(code == kExitAborted);
        return err.str();
    };
    DemoSinks sinks;
    PipelineDefinition no_source = demo_definition(sinks);
    no_source.sources.clear();
    CHECK(run_def(std::move(no_source)) ==
          "demo: internal error: the runtime runs exactly one source, the definition has 0\n");
    PipelineDefinition extra_call = demo_definition(sinks);
    extra_call.calls.push_back({"x", CallKind::Map, "x", {}});
    CHECK(run_def(std::move(extra_call)) ==
          "demo: internal error: the plan has 3 Calls, the definition documents 4\n");
    CHECK(sinks.totals.empty());
}

TEST_CASE("pipeline_main: --resume continues from the journal; a throwing sink fails its root",
          "[runtime][cli][journal]") {
    TempDir dir;
    const std::string journal = (dir.path / "j.journal").string();
    DemoSinks first;
    const MainResult a = run_demo(first, {"--input", "1,7,2", "--journal", journal});
    CHECK(a.code == kExitFailedRoots);  // doc7: page 701 fails
    DemoSinks second;
    const auto report = dir.path / "r.json";
    const MainResult b = run_demo(second, {"--input", "1,7,2,3", "--journal", journal, "--resume",
                                           "--report", report.string()});
    CHECK(b.code == kExitFailedRoots);  // doc7's earlier failure is still reported
    // doc7 did not run again: only the summary names it.
    CHECK_THAT(warnings_and_errors(b.err),
               StartsWith("ERROR demo: 1 failed of 4 roots\n  doc7: call 'm': bad page 701"));
    CHECK(second.totals == std::vector<long>{1806});  // only doc3 ran
    const nlohmann::json r = read_json(report);
    CHECK(r["roots"][0]["resumed"] == true);
    CHECK_FALSE(r["roots"][3].contains("resumed"));

    DemoSinks sinks;
    PipelineDefinition def = demo_definition(sinks, "1,2,3");
    def.sinks[0].open = [](const std::string&) {
        RootSinkBinding binding;
        binding.write_root = [](const RootKey& key, std::span<const Value>) {
            if (key.name == "doc2") throw std::runtime_error("disk full");
        };
        return binding;
    };
    Argv argv({"--journal", (dir.path / "k.journal").string()});
    std::ostringstream out, err;
    CHECK(pipeline_main(argv.argc(), argv.argv(), std::move(def), out, err, false) ==
          kExitFailedRoots);
    CHECK(warnings_and_errors(err.str()) ==
          "ERROR demo: root doc2 failed: sink totals: disk full\n"
          "ERROR demo: 1 failed of 3 roots\n  doc2: sink totals: disk full\n");
}

TEST_CASE("pipeline_main: --retry-failed runs the journal's failed roots again; --report-roots",
          "[runtime][cli][journal]") {
    TempDir dir;
    const std::string journal = (dir.path / "j.journal").string();
    const auto report = dir.path / "r.json";
    DemoSinks first;
    CHECK(run_demo(first, {"--input", "1,7,2", "--journal", journal}).code == kExitFailedRoots);
    std::sort(first.totals.begin(), first.totals.end());
    CHECK(first.totals == std::vector<long>{200, 802});
    CHECK(std::find(first.pages.begin(), first.pages.end(), 1400) == first.pages.end());
    CHECK(first.pages.size() == 3u);  // doc7 (pages 700..706, 701 failed) wrote nothing
    // Its page 701 still fails: run again, failed again, journaled again, written never.
    DemoSinks second;
    const MainResult b =
        run_demo(second, {"--input", "1,7,2", "--journal", journal, "--retry-failed", "--report",
                          report.string(), "--report-roots", "failed"});
    CHECK(b.code == kExitFailedRoots);
    CHECK_THAT(warnings_and_errors(b.err),
               StartsWith("ERROR demo: root doc7 failed: call 'm': bad page 701\n"
                          "ERROR demo: 1 failed of 3 roots\n  doc7: call 'm': bad page 701"));
    CHECK(second.totals.empty());
    const nlohmann::json r = read_json(report);
    REQUIRE(r["roots"].size() == 1u);  // the ok roots are counted, not listed
    CHECK(r["roots"][0]["name"] == "doc7");
    CHECK_FALSE(r["roots"][0].contains("resumed"));  // it ran
    CHECK(r["summary"]["roots"] == 3);
    CHECK(r["summary"]["ok"] == 2);
    CHECK(r["summary"]["resumed"] == 2);
}

TEST_CASE("pipeline_main: --retry-failed with --cache runs a failed root again from the store",
          "[runtime][cli][journal][cache]") {
    // Page 701 fails doc7 each time. The retry runs doc7 alone; its pages that ran before come
    // from the store, and only 701 runs again (a failure is never stored).
    TempDir dir;
    const std::string journal = (dir.path / "j.journal").string();
    const std::string store = (dir.path / "store").string();
    const auto report = dir.path / "r.json";
    DemoSinks first;
    CHECK(run_demo(first, {"--input", "1,7,2", "--journal", journal, "--cache", store, "--report",
                           report.string()})
              .code == kExitFailedRoots);
    const auto m_cache = [&](const nlohmann::json& r) {
        for (const nlohmann::json& c : r["calls"]) {
            if (c["name"] == "m") return c["cache"];
        }
        return nlohmann::json();
    };
    CHECK(m_cache(read_json(report))["hits"] == 0);
    CHECK(m_cache(read_json(report))["misses"] == 10);  // pages of doc1, doc7 and doc2
    DemoSinks second;
    const MainResult b = run_demo(second, {"--input", "1,7,2", "--journal", journal, "--cache",
                                           store, "--retry-failed", "--report", report.string()});
    CHECK(b.code == kExitFailedRoots);
    CHECK_THAT(warnings_and_errors(b.err),
               StartsWith("ERROR demo: root doc7 failed: call 'm': bad page 701\n"));
    const nlohmann::json r = read_json(report);
    CHECK(m_cache(r)["hits"] == 6);    // 700 and 702..706, from the store
    CHECK(m_cache(r)["misses"] == 1);  // 701 ran again, and failed again
    CHECK(r["summary"]["resumed"] == 2);
    CHECK(second.totals.empty());
}

TEST_CASE("pipeline_main: the default journal sits next to the first sink's output",
          "[runtime][cli][journal]") {
    DemoSinks sinks;
    const PipelineDefinition def = demo_definition(sinks);
    auto journal_for = [&](std::vector<std::string> args) {
        Argv a(args);
        const ParseOutcome p = parse_pipeline_args(a.argc(), a.argv(), def);
        REQUIRE(p.args);
        return p.args->journal_path.empty() ? default_journal_path(def, *p.args)
                                            : p.args->journal_path;
    };
    CHECK(journal_for({}) == "totals.txt.journal");
    CHECK(journal_for({"--output", "totals=out/t.jsonl"}) == "out/t.jsonl.journal");
    CHECK(journal_for({"--output", "totals=out/pages/"}) == "out/pages.journal");
    CHECK(journal_for({"--journal", "x.j"}) == "x.j");
    PipelineDefinition no_sinks = demo_definition(sinks);
    no_sinks.sinks.clear();
    Argv a({"--resume"});
    std::ostringstream out, err;
    CHECK(pipeline_main(a.argc(), a.argv(), std::move(no_sinks), out, err, false) == kExitUsage);
    CHECK(err.str() ==
          "demo: error: --resume: the pipeline has no sink; name a journal with --journal FILE\n");
}
