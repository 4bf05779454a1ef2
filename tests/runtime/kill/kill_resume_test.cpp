// "runtime: kill and resume": runs kill_pipeline as a child process, SIGKILLs it at random
// moments, reruns it with --resume until it finishes, and checks the outputs against an
// uninterrupted run: no root missing, none duplicated, no torn file. Then the clean stops:
// SIGINT / SIGTERM (once or twice) end the run with 130 / 143 and an "interrupted" report,
// and --resume finishes it with the same outputs.
//   kill_resume_test KILL_PIPELINE [ITERATIONS]     (seed: $ROP_KILL_SEED, else the clock)
// Even iterations run with --max-inflight-roots 1 (roots finish in source order, so the JSONL
// must be byte-identical); odd ones with 16 roots in flight (roots finish in any order, so the
// JSONL's lines are compared as a sorted list). The per-root files are always byte-identical.
// A root in flight at two kills, alone the second time, is blamed for them (a SIGKILL may be
// the OOM killer's: journal.h) and fails; --retry-failed then runs it again.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Starts the pipeline; returns its pid. stdout/stderr go to `log` (appended).
pid_t spawn(const std::string& binary, const std::vector<std::string>& args, const fs::path& log) {
    const pid_t pid = ::fork();
    if (pid < 0) {
        std::perror("fork");
        std::exit(2);
    }
    if (pid == 0) {
        std::FILE* f = std::fopen(log.c_str(), "a");
        if (f) {
            ::dup2(::fileno(f), 1);
            ::dup2(::fileno(f), 2);
        }
        std::vector<char*> argv;
        argv.push_back(const_cast<char*>(binary.c_str()));
        for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        ::execv(binary.c_str(), argv.data());
        std::_Exit(127);
    }
    return pid;
}

// Waits for the child, killing it with SIGKILL after `kill_after` (if set). Returns the exit
// code, or -1 when it was killed.
int wait_child(pid_t pid, std::optional<std::chrono::microseconds> kill_after) {
    const auto deadline = Clock::now() + kill_after.value_or(std::chrono::minutes(5));
    int status = 0;
    for (;;) {
        const pid_t r = ::waitpid(pid, &status, WNOHANG);
        if (r == pid) break;
        if (Clock::now() >= deadline) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            break;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return -1;
}

std::vector<std::string> args_for(const fs::path& dir, const fs::path& input, int inflight,
                                  bool resume) {
    std::vector<std::string> a = {"--input",
                                  input.string(),
                                  "--output",
                                  "totals=" + (dir / "totals.jsonl").string(),
                                  "--output",
                                  "pages=" + (dir / "pages").string(),
                                  "--max-inflight-roots",
                                  std::to_string(inflight),
                                  "--no-progress"};
    if (resume) a.push_back("--resume");
    return a;
}

std::vector<std::string> sorted_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::stringstream ss(text);
    for (std::string l; std::getline(ss, l);) lines.push_back(l);
    std::sort(lines.begin(), lines.end());
    return lines;
}

std::map<std::string, std::string> files_of(const fs::path& dir) {
    std::map<std::string, std::string> out;
    if (!fs::exists(dir)) return out;
    for (const auto& e : fs::directory_iterator(dir)) {
        out[e.path().filename().string()] = read_file(e.path());
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: kill_resume_test KILL_PIPELINE [ITERATIONS]\n";
        return 2;
    }
    const std::string binary = fs::absolute(argv[1]).string();
    const int iterations = argc > 2 ? std::atoi(argv[2]) : 20;
    unsigned seed = static_cast<unsigned>(Clock::now().time_since_epoch().count());
    if (const char* s = std::getenv("ROP_KILL_SEED")) seed = static_cast<unsigned>(std::stoul(s));
    std::cout << "kill and resume: seed " << seed << " (rerun with ROP_KILL_SEED=" << seed << "), "
              << iterations << " iterations" << std::endl;
    std::mt19937 rng(seed);

    const fs::path work =
        fs::temp_directory_path() / ("rop_kill_resume_" + std::to_string(::getpid()));
    fs::remove_all(work);
    fs::create_directories(work);
    const fs::path input = work / "input.txt";
    {
        std::ofstream in(input);
        for (int i = 0; i < 60; ++i)
            in << "doc" << (i < 10 ? "0" : "") << i << " " << (i * 37 % 23) << "\n";
    }

    // Uninterrupted reference runs (inflight 1 and 16), timed to place the kills.
    std::map<int, fs::path> reference;
    std::map<int, double> ref_s;
    for (int inflight : {1, 16}) {
        const fs::path dir = work / ("ref" + std::to_string(inflight));
        fs::create_directories(dir);
        const auto t0 = Clock::now();
        const int code = wait_child(
            spawn(binary, args_for(dir, input, inflight, false), dir / "log"), std::nullopt);
        ref_s[inflight] = std::chrono::duration<double>(Clock::now() - t0).count();
        if (code != 0) {
            std::cerr << "reference run failed with " << code << ":\n" << read_file(dir / "log");
            return 1;
        }
        reference[inflight] = dir;
    }
    std::cout << "reference runs: " << ref_s[1] << " s (1 in flight), " << ref_s[16]
              << " s (16 in flight)" << std::endl;
    if (sorted_lines(read_file(reference[1] / "totals.jsonl")).size() != 60) {
        std::cerr << "reference totals.jsonl does not have 60 lines\n";
        return 1;
    }

    int failures = 0, total_kills = 0, total_runs = 0;
    for (int it = 0; it < iterations; ++it) {
        const int inflight = it % 2 == 0 ? 1 : 16;
        const fs::path dir = work / ("run" + std::to_string(it));
        fs::create_directories(dir);
        int kills = 0, runs = 0, retries = 0;
        bool resume = false, retry_failed = false;
        for (;;) {
            // Kill the first run always, later ones with probability 1/2 (at most 6 kills).
            std::optional<std::chrono::microseconds> kill_after;
            if (kills < 6 && (!resume || rng() % 2 == 0)) {
                std::uniform_real_distribution<double> when(0.0, ref_s[inflight] * 0.9);
                kill_after = std::chrono::microseconds(static_cast<long>(when(rng) * 1e6));
            }
            std::vector<std::string> args = args_for(dir, input, inflight, resume);
            if (retry_failed) args.push_back("--retry-failed");
            args.insert(args.end(), {"--report", (dir / "report.json").string()});
            const int code = wait_child(spawn(binary, args, dir / "log"), kill_after);
            ++runs;
            retry_failed = false;
            if (code == -1) {
                ++kills;
            } else if (code == 3 && retries < 6 &&
                       read_file(dir / "report.json").find("killed (SIGKILL) ") !=
                           std::string::npos) {
                // A root in flight at two kills, the second time alone, is blamed for them
                // (the OOM killer's signal is SIGKILL too: journal.h). It wrote nothing, so
                // --retry-failed runs it again and nothing is written twice.
                ++retries;
                retry_failed = true;
            } else if (code != 0) {
                std::cerr << "iteration " << it << ": exit " << code << ":\n"
                          << read_file(dir / "log");
                return 1;
            } else {
                break;
            }
            resume = true;
        }
        total_kills += kills;
        total_runs += runs;
        const std::string got = read_file(dir / "totals.jsonl");
        const std::string want = read_file(reference[inflight] / "totals.jsonl");
        // A root run again by --retry-failed comes after the others: the same lines then.
        const bool jsonl_ok =
            inflight == 1 && retries == 0 ? got == want : sorted_lines(got) == sorted_lines(want);
        const bool files_ok = files_of(dir / "pages") == files_of(reference[inflight] / "pages");
        const bool ends_ok = !got.empty() && got.back() == '\n';
        std::cout << "iteration " << it << ": inflight " << inflight << ", " << kills << " kills, "
                  << retries << " roots blamed and retried, " << runs
                  << " runs: " << (jsonl_ok && files_ok && ends_ok ? "ok" : "MISMATCH")
                  << std::endl;
        if (!(jsonl_ok && files_ok && ends_ok)) {
            ++failures;
            std::cerr << "  totals.jsonl " << (jsonl_ok ? "ok" : "differs") << ", pages/ "
                      << (files_ok ? "ok" : "differs") << "; kept in " << dir << "\n";
        } else {
            fs::remove_all(dir);
        }
    }
    std::cout << total_kills << " kills over " << total_runs << " runs, " << failures
              << " mismatches" << std::endl;

    // Clean stops: SIGINT, SIGTERM, SIGINT twice, at a random moment. The run must end by
    // itself (exit 130 / 143, or 0 if it finished first) with a report saying it was
    // interrupted, and --resume must then give exactly the reference outputs.
    const int kSignalRuns = 6;
    for (int it = 0; it < kSignalRuns; ++it) {
        const int inflight = it % 2 == 0 ? 1 : 16;
        const int sig = it % 3 == 1 ? SIGTERM : SIGINT;
        const int times = it % 3 == 2 ? 2 : 1;
        const fs::path dir = work / ("signal" + std::to_string(it));
        fs::create_directories(dir);
        std::uniform_real_distribution<double> when(0.0, ref_s[inflight] * 0.8);
        std::vector<std::string> args = args_for(dir, input, inflight, false);
        args.insert(args.end(), {"--report", (dir / "report.json").string()});
        const pid_t pid = spawn(binary, args, dir / "log");
        // The handlers are in place once the run has started: it creates its journal then.
        const auto started_by = Clock::now() + std::chrono::seconds(20);
        while (!fs::exists(dir / "totals.jsonl.journal") && Clock::now() < started_by) {
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
        std::this_thread::sleep_for(std::chrono::microseconds(static_cast<long>(when(rng) * 1e6)));
        for (int k = 0; k < times; ++k) ::kill(pid, sig);
        const int code = wait_child(pid, std::chrono::seconds(60));  // SIGKILL: it hung
        const int want_code = sig == SIGTERM ? 143 : 130;
        const std::string report = read_file(dir / "report.json");
        // -1: ended by the signal itself. Only right if it came after the run was over
        // (pipeline_main had returned, its handlers gone): then the outputs are complete.
        bool ok = code == want_code || code == 0 || code == -1;
        if (code == want_code) {
            ok = ok && report.find("\"interrupted\": true") != std::string::npos;
            ok = ok && read_file(dir / "log").find("interrupted (") != std::string::npos;
            const int resumed = wait_child(
                spawn(binary, args_for(dir, input, inflight, true), dir / "log"), std::nullopt);
            ok = ok && resumed == 0;
        }
        const std::string got = read_file(dir / "totals.jsonl");
        const std::string want = read_file(reference[inflight] / "totals.jsonl");
        ok = ok && (inflight == 1 ? got == want : sorted_lines(got) == sorted_lines(want));
        ok = ok && files_of(dir / "pages") == files_of(reference[inflight] / "pages");
        std::cout << "signal " << it << ": " << (sig == SIGTERM ? "SIGTERM" : "SIGINT") << " x"
                  << times << ", inflight " << inflight << ", exit " << code << ": "
                  << (ok ? "ok" : "MISMATCH") << std::endl;
        if (!ok) {
            ++failures;
            std::cerr << "  kept in " << dir << ":\n" << read_file(dir / "log");
        }
    }
    if (failures == 0) fs::remove_all(work);
    return failures == 0 ? 0 : 1;
}
