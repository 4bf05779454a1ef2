// Process-isolated actors (issue 12, docs/runtime.md "Process isolation"), end to end through
// pipeline_main: process_pipeline's map Call runs in worker processes and misbehaves on one page
// (segfault, abort, exit, unbounded allocation under the worker's memory limit, an exception, a
// hang past the Call's timeout), mixed in batches with other roots' pages, under random batch
// caps and actor counts. Only that page's root fails, with a reason naming what happened; every
// other root's total is byte-identical to a clean run's; nothing takes the driver down.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;

namespace {

struct TempDir {
    fs::path path;
    TempDir() {
        static int counter = 0;
        path = fs::temp_directory_path() /
               ("rop-process-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
};

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// The roots every test runs: "rN V" with V = N + 1; root r2 (V 3) has pages 3000..3004.
const std::vector<std::pair<std::string, long>>& roots() {
    static const std::vector<std::pair<std::string, long>> list = [] {
        std::vector<std::pair<std::string, long>> out;
        for (long n = 0; n < 12; ++n) out.emplace_back("r" + std::to_string(n), n + 1);
        return out;
    }();
    return list;
}

struct Run {
    int exit_code = -1;
    nlohmann::json report;
    std::map<std::string, std::string> totals;  // root name -> its line
    std::string err;
};

Run run_in(const TempDir& dir, const std::string& isolate, const std::string& poison,
           const std::vector<std::string>& sets, const std::string& extra = "") {
    if (!fs::exists(dir.path / "docs.txt")) {
        std::ofstream in(dir.path / "docs.txt");
        for (const auto& [name, value] : roots()) in << name << ' ' << value << '\n';
    }
    // Under a sanitizer the crash is the signal's, not the sanitizer's report (exit 1).
    std::string command =
        "ASAN_OPTIONS=handle_segv=0 TSAN_OPTIONS=handle_segv=0 "
        "ROP_TEST_ISOLATE='" +
        isolate + "' ROP_TEST_POISON='" + poison + "' '" + ROP_PROCESS_PIPELINE +
        "' --no-progress --commit-group 1" + " --input docs='" + (dir.path / "docs.txt").string() +
        "'" + " --output totals='" + (dir.path / "totals.txt").string() + "'" + " --report '" +
        (dir.path / "report.json").string() + "'";
    for (const std::string& s : sets) command += " --set " + s;
    fs::remove(dir.path / "report.json");
    command += extra + " > '" + (dir.path / "out.txt").string() + "' 2> '" +
               (dir.path / "err.txt").string() + "'";
    const int status = std::system(command.c_str());
    Run run;
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    run.err = slurp(dir.path / "err.txt");
    if (fs::exists(dir.path / "report.json")) {
        run.report = nlohmann::json::parse(slurp(dir.path / "report.json"));
    }
    std::istringstream lines(slurp(dir.path / "totals.txt"));
    for (std::string line; std::getline(lines, line);) {
        run.totals[line.substr(0, line.find(' '))] = line;
    }
    return run;
}

Run run_pipeline(const std::string& isolate, const std::string& poison,
                 const std::vector<std::string>& sets) {
    TempDir dir;
    return run_in(dir, isolate, poison, sets);
}

const Run& clean_threads() {
    static const Run run = run_pipeline("", "", {});
    return run;
}

const nlohmann::json* root_of(const Run& run, const std::string& name) {
    for (const nlohmann::json& r : run.report["roots"]) {
        if (r["name"] == name) return &r;
    }
    return nullptr;
}

}  // namespace

TEST_CASE("isolated map and reduce: the same totals as in threads", "[process]") {
    const Run& clean = clean_threads();
    REQUIRE(clean.exit_code == 0);
    REQUIRE(clean.totals.size() == roots().size());
    for (const char* isolate : {"m", "m,sum", "split,m"}) {
        CAPTURE(isolate);
        const Run isolated = run_pipeline(isolate, "", {"m.batch=3", "m.actors=2"});
        CHECK(isolated.exit_code == 0);
        CHECK(isolated.totals == clean.totals);
    }
}

TEST_CASE("a worker that dies or misbehaves fails only the root of the page that did it",
          "[process]") {
    const Run& clean = clean_threads();
    REQUIRE(clean.exit_code == 0);
    struct Case {
        std::string how;
        std::string reason;  // what the failed root's reason starts with or contains
        bool starts;
        std::vector<std::string> sets;
    };
    const std::vector<Case> cases = {
        {"segv", "infra: worker killed by SIGSEGV (after ", true, {}},
        {"abort", "infra: worker killed by SIGABRT (after ", true, {}},
        {"exit", "infra: worker exited with status 7 (after ", true, {}},
        {"alloc",
         "udf error: out of memory (the worker's limit is 512 MiB): an allocation failed with ",
         true,
         {}},
        // A bad_alloc of the UDF's own is not the memory limit (issue 32).
        {"badalloc",
         "udf error: std::bad_alloc, thrown by the UDF: no allocation failed (",
         true,
         {}},
        {"throw", "page 3001 is bad", false, {}},
        // Not an ordinary error: no "udf error", no retry; it crosses the wire with its item.
        {"permanent", "page 3001 cannot be read", true, {}},
        {"hang",
         "infra: timeout after 3000 ms (actor abandoned) (after ",
         true,
         {"m.timeout=3s", "m.infra_retries=1"}},  // 3 s: a loaded TSan run took 1 s for a page
    };
    std::mt19937 random(12);
    for (const Case& c : cases) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
        if (c.how == "alloc") continue;  // no memory limit under a sanitizer (its shadow memory)
#endif
        const std::uint32_t batch = std::vector<std::uint32_t>{1, 3, 8, 64}[random() % 4];
        const std::uint32_t actors = 1 + random() % 3;
        CAPTURE(c.how, batch, actors);
        std::vector<std::string> sets = c.sets;
        sets.push_back("m.batch=" + std::to_string(batch));
        sets.push_back("m.actors=" + std::to_string(actors));
        const Run run = run_pipeline("m", "3001:" + c.how, sets);
        INFO(run.err);
        CHECK(run.exit_code == 3);  // some roots failed; the run itself went on
        const nlohmann::json* bad = root_of(run, "r2");
        REQUIRE(bad != nullptr);
        CHECK((*bad)["status"] == "failed");
        CHECK((*bad)["call"] == "m");
        const std::string reason = (*bad)["reason"];
        if (c.starts) {
            CHECK_THAT(reason, StartsWith(c.reason));
        } else {
            CHECK_THAT(reason, ContainsSubstring(c.reason));
        }
        for (const auto& [name, value] : roots()) {
            if (name == "r2") continue;
            CAPTURE(name);
            const nlohmann::json* r = root_of(run, name);
            REQUIRE(r != nullptr);
            CHECK((*r)["status"] == "ok");
            CHECK(run.totals.count(name) == 1);
            if (run.totals.count(name)) CHECK(run.totals.at(name) == clean.totals.at(name));
        }
        CHECK(run.totals.count("r2") == 0);
    }
}

TEST_CASE("an isolated streaming expand that dies after emitting fails only its root",
          "[process]") {
    const Run& clean = clean_threads();
    REQUIRE(clean.exit_code == 0);
    // Root r2 (value 3) streams page 3000, then its split worker dies or throws.
    for (const auto& [how, reason] : std::vector<std::pair<std::string, std::string>>{
             {"segv", "infra: worker killed by SIGSEGV (after "}, {"throw", "page 3 is bad"}}) {
        for (const std::string batch : {"1", "8"}) {
            CAPTURE(how, batch);
            const Run run = run_pipeline("split", "-3:" + how, {"split.batch=" + batch});
            INFO(run.err);
            CHECK(run.exit_code == 3);
            const nlohmann::json* bad = root_of(run, "r2");
            REQUIRE(bad != nullptr);
            CHECK((*bad)["status"] == "failed");
            CHECK((*bad)["call"] == "split");
            CHECK_THAT(std::string((*bad)["reason"]), ContainsSubstring(reason));
            CHECK(run.totals.count("r2") == 0);
            for (const auto& [name, value] : roots()) {
                if (name == "r2") continue;
                CAPTURE(name);
                REQUIRE(run.totals.count(name) == 1);
                CHECK(run.totals.at(name) == clean.totals.at(name));
            }
        }
    }
}

TEST_CASE("an isolated actor that cannot be built stops the run once, with its reason",
          "[process]") {
    const Run run = run_pipeline("m", "0:setup", {"m.actors=3"});
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.err, ContainsSubstring("model data not found (page 0)"));
    // One message, not one per root or per actor.
    std::size_t count = 0;
    for (std::size_t at = run.err.find("model data not found"); at != std::string::npos;
         at = run.err.find("model data not found", at + 1)) {
        ++count;
    }
    CHECK(count == 1);
}

TEST_CASE(
    "without isolation, a crash names its batch, and --resume fails the root that crashes "
    "twice",
    "[process][crash]") {
    TempDir dir;
    const std::vector<std::string> sets = {"m.batch=8", "m.actors=1"};
    // 1: the batch holding page 3001 brings the process down; its roots are named and journaled.
    const Run first = run_in(dir, "", "3001:segv", sets);
    CHECK(first.exit_code == 128 + 11);
    CHECK_THAT(first.err, ContainsSubstring("process_pipeline: crashed: SIGSEGV in call 'm', a "
                                            "batch of "));
    CHECK_THAT(first.err, ContainsSubstring("r2"));
    CHECK_THAT(first.err, ContainsSubstring("stack trace:"));
    const std::string journal = slurp(dir.path / "totals.txt.journal");
    CHECK_THAT(journal, ContainsSubstring("\"call\":\"m\",\"signal\":\"SIGSEGV\"}"));
    // 2: --resume runs each blamed root alone; r2 brings the process down again, alone.
    const Run second = run_in(dir, "", "3001:segv", sets, " --resume");
    CHECK(second.exit_code == 128 + 11);
    CHECK_THAT(second.err, ContainsSubstring("from root r2\n"));
    // 3: r2 crashed twice: it fails without running; every other root finishes.
    const Run third = run_in(dir, "", "3001:segv", sets, " --resume");
    CHECK(third.exit_code == 3);
    const nlohmann::json* bad = root_of(third, "r2");
    REQUIRE(bad != nullptr);
    CHECK((*bad)["status"] == "failed");
    CHECK((*bad)["reason"] == "crashed the process twice (last: call 'm': SIGSEGV)");
    for (const auto& [name, value] : roots()) {
        if (name == "r2") continue;
        CAPTURE(name);
        const nlohmann::json* r = root_of(third, name);
        REQUIRE(r != nullptr);
        CHECK((*r)["status"] == "ok");
    }
    // A fourth resume has nothing left to run, and r2 stays failed.
    const Run fourth = run_in(dir, "", "3001:segv", sets, " --resume");
    CHECK(fourth.exit_code == 3);
    const nlohmann::json* still = root_of(fourth, "r2");
    REQUIRE(still != nullptr);
    CHECK((*still)["reason"] == "crashed the process twice (last: call 'm': SIGSEGV)");
    // Fixed (no more poison), --retry-failed gives r2 another try: it runs, once.
    const Run fifth = run_in(dir, "", "", sets, " --retry-failed");
    CHECK(fifth.exit_code == 0);
    const nlohmann::json* fixed = root_of(fifth, "r2");
    REQUIRE(fixed != nullptr);
    CHECK((*fixed)["status"] == "ok");
    CHECK_FALSE(fixed->contains("resumed"));
    REQUIRE(fifth.totals.count("r2") == 1);
    CHECK(fifth.totals.at("r2") == clean_threads().totals.at("r2"));
    CHECK(fifth.totals.size() == 1u);  // (the test sink starts afresh each run) only r2 ran
}

// The kernel's OOM killer sends SIGKILL, which leaves no crash line: the journal's watermark
// tells which roots were in flight (journal.h), --resume runs each of them alone, and the one
// that is killed again alone fails; everything else is written. The same for a UDF that calls
// _Exit (no signal at all).
TEST_CASE(
    "without isolation, a process killed without a crash line (SIGKILL, exit) is finished "
    "by --resume: the culprit fails, every other root is written",
    "[process][crash][kill]") {
    for (const std::string how : {"kill", "exit"}) {
        DYNAMIC_SECTION(how) {
            TempDir dir;
            const std::vector<std::string> sets = {"m.batch=8", "m.actors=2"};
            const std::string poison = "3001:" + how;
            const int died = how == "kill" ? 128 + 9 : 7;
            // 1: the process dies mid-run, with several roots in flight.
            const Run first = run_in(dir, "", poison, sets, " --max-inflight-roots 6");
            CHECK(first.exit_code == died);
            const std::string journal = slurp(dir.path / "totals.txt.journal");
            CHECK_THAT(journal, ContainsSubstring("{\"admitted\":"));
            CHECK_THAT(journal, !ContainsSubstring("\"crashed\""));
            CHECK_THAT(journal, !ContainsSubstring("{\"ended\":true}"));
            // 2: the roots that were in flight run alone, one after another: the innocent ones
            // finish, r2 dies again, alone (the journal names the Call it was in).
            const Run second = run_in(dir, "", poison, sets, " --resume --max-inflight-roots 6");
            CHECK(second.exit_code == died);
            const std::string journal2 = slurp(dir.path / "totals.txt.journal");
            CHECK_THAT(journal2, ContainsSubstring("{\"begin\":\"resume\"}"));
            CHECK_THAT(journal2, ContainsSubstring("{\"running\":[\"m\"]}"));
            // 3: r2 was killed twice: it fails without running; every other root finishes.
            const Run third = run_in(dir, "", poison, sets, " --resume --max-inflight-roots 6");
            CHECK(third.exit_code == 3);
            const nlohmann::json* bad = root_of(third, "r2");
            REQUIRE(bad != nullptr);
            CHECK((*bad)["status"] == "failed");
            // The journal names the Call only when it was the one Call of r2 with a batch in
            // flight: 'm' as a rule, but on a slow run (TSan) r2's streaming split may still be
            // emitting when m's batch dies, and two Calls in flight name none.
            const std::string call = (*bad)["call"].get<std::string>();
            CHECK((call == "m" || call.empty()));
            CHECK((*bad)["reason"] ==
                  "killed (SIGKILL) twice; perhaps out of memory (the process died without a "
                  "crash line while it ran)");
            CHECK_THAT(third.err,
                       ContainsSubstring(call.empty() ? std::string("r2: killed (SIGKILL) twice")
                                                      : "r2: call 'm': killed (SIGKILL) twice; "
                                                        "perhaps out of memory"));
            std::size_t ok = 0;
            for (const auto& [name, value] : roots()) {
                if (name == "r2") continue;
                CAPTURE(name);
                const nlohmann::json* r = root_of(third, name);
                REQUIRE(r != nullptr);
                CHECK((*r)["status"] == "ok");
                ++ok;
            }
            CHECK(ok == roots().size() - 1);
            CHECK_THAT(slurp(dir.path / "totals.txt.journal"),
                       ContainsSubstring("{\"ended\":true}"));
        }
    }
}

// A clean stop (SIGINT) is not a death: the roots it left in flight are not suspects, and
// --resume runs them together again.
TEST_CASE("a run stopped by a signal it handles blames no root", "[process][crash][kill]") {
    TempDir dir;
    {
        std::ofstream in(dir.path / "docs.txt");
        for (const auto& [name, value] : roots()) in << name << ' ' << value << '\n';
    }
    const fs::path journal = dir.path / "totals.txt.journal";
    // Page 3001 hangs, so the run is still going when the journal shows its first batch.
    const std::string command =
        "ROP_TEST_POISON=3001:hang '" + std::string(ROP_PROCESS_PIPELINE) +
        "' --no-progress --commit-group 1 --stop-grace 1ms --max-inflight-roots 6 --set m.batch=8"
        " --input docs='" +
        (dir.path / "docs.txt").string() + "' --output totals='" +
        (dir.path / "totals.txt").string() + "' 2>/dev/null & pid=$!; until grep -qs admitted '" +
        journal.string() +
        "' || ! kill -0 $pid 2>/dev/null; do sleep 0.05; done; "
        "kill -INT $pid; wait $pid";
    const int status = std::system(command.c_str());
    CHECK(WEXITSTATUS(status) == 130);
    CHECK_THAT(slurp(journal), ContainsSubstring("{\"ended\":true}"));
    const Run second = run_in(dir, "", "", {"m.batch=8"}, " --resume");
    CHECK(second.exit_code == 0);
    CHECK_THAT(slurp(journal), !ContainsSubstring("\"running\""));  // nothing ran alone
}

// A shared pool (ROP_TEST_POOL, docs/runtime.md "Shared pools"): m and sum on one pool "model",
// in threads or in worker processes; one instance of its class per pool actor, whatever Call.
TEST_CASE(
    "a shared pool in threads or in worker processes: the same totals and one instance per "
    "pool actor",
    "[process][pools]") {
    const Run& clean = clean_threads();
    REQUIRE(clean.exit_code == 0);
    struct Env {
        Env(const fs::path& instances) {
            ::setenv("ROP_TEST_POOL", "2", 1);
            ::setenv("ROP_TEST_SHOW_INSTANCES", instances.c_str(), 1);
        }
        ~Env() {
            ::unsetenv("ROP_TEST_POOL");
            ::unsetenv("ROP_TEST_SHOW_INSTANCES");
        }
    };
    for (const char* isolate : {"", "model"}) {
        for (const char* actors : {"1", "3"}) {
            CAPTURE(isolate, actors);
            TempDir dir;
            const Env env(dir.path / "instances.txt");
            const Run run = run_in(dir, isolate, "", {std::string("model.actors=") + actors},
                                   " --set m.batch=1 --set sum.batch=1");
            INFO(run.err);
            CHECK(run.exit_code == 0);
            CHECK(run.totals == clean.totals);
            // Each instance noted once: at most one per pool actor, never one per Call.
            std::istringstream lines(slurp(dir.path / "instances.txt"));
            std::set<std::string> pids;
            int instances = 0;
            for (std::string line; std::getline(lines, line); ++instances) pids.insert(line);
            CHECK(instances >= 1);
            CHECK(instances <= std::stoi(actors));
            // In worker processes, each instance is in its own worker: one per pool actor.
            if (std::string(isolate) == "model") CHECK(pids.size() == std::size_t(instances));
            for (const char* call : {"m", "sum"}) {
                bool found = false;
                for (const nlohmann::json& c : run.report["calls"]) {
                    if (c["name"] != call) continue;
                    found = true;
                    CHECK(c["grains"].get<int>() > 0);
                }
                CHECK(found);
            }
        }
    }
}

TEST_CASE("a shared pool's worker that dies fails only the root of the page that did it",
          "[process][pools]") {
    const Run& clean = clean_threads();
    REQUIRE(clean.exit_code == 0);
    TempDir dir;
    ::setenv("ROP_TEST_POOL", "2", 1);
    const Run run = run_in(dir, "model", "3001:segv", {"m.batch=3"});
    ::unsetenv("ROP_TEST_POOL");
    INFO(run.err);
    CHECK(run.exit_code == 3);
    const nlohmann::json* bad = root_of(run, "r2");
    REQUIRE(bad != nullptr);
    CHECK((*bad)["status"] == "failed");
    CHECK((*bad)["call"] == "m");
    CHECK_THAT((*bad)["reason"].get<std::string>(),
               StartsWith("infra: worker killed by SIGSEGV (after "));
    for (const auto& [name, value] : roots()) {
        if (name == "r2") continue;
        CAPTURE(name);
        CHECK(run.totals.count(name) == 1);
        if (run.totals.count(name)) CHECK(run.totals.at(name) == clean.totals.at(name));
    }
}

TEST_CASE("shared pool --set: its actors are set on the pool and never on one of its Calls",
          "[process][pools][set]") {
    ::setenv("ROP_TEST_POOL", "2", 1);
    struct Case {
        std::string set;
        int exit_code;
        std::string message;
    };
    const std::vector<Case> table = {
        {"model.actors=3", 0, ""},
        {"m.actors=3", 2,
         "--set m.actors: 'm' runs on pool 'model', whose actors its Calls share (--set "
         "model.actors=3)"},
        {"sum.memory_mb=64", 2, "runs on pool 'model', whose memory_mb its Calls share"},
        {"model.batch=3", 2,
         "--set model.batch: 'model' is a pool, which takes its placement options"},
        {"model.actors=0", 2, "--set model.actors"},
        {"m.batch=2", 0, ""},
    };
    for (const Case& c : table) {
        CAPTURE(c.set);
        TempDir dir;
        const Run run = run_in(dir, "", "", {c.set});
        CHECK(run.exit_code == c.exit_code);
        if (!c.message.empty()) CHECK_THAT(run.err, ContainsSubstring(c.message));
    }
    // --help lists the pool, its actors and the Calls it serves.
    TempDir dir;
    const std::string help = (dir.path / "help.txt").string();
    REQUIRE(std::system(("'" + std::string(ROP_PROCESS_PIPELINE) +
                         "' --help --set model.actors=3 > '" + help + "' 2>&1")
                            .c_str()) == 0);
    CHECK_THAT(slurp(help), ContainsSubstring("Shared pools (--set POOL.actors=N") &&
                                ContainsSubstring("  model  3 actors  serves m, sum\n"));
    ::unsetenv("ROP_TEST_POOL");
}
