// driver/process.h: the one way ropc starts the compiler and linker. No shell: each argv word
// reaches the program as it is; both output streams are captured; a missing program is a spawn
// error, not an exit status; run_parallel runs every task, at most `jobs` at once.
#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "driver/process.h"

using rop::driver::command_line;
using rop::driver::run_parallel;
using rop::driver::run_process;

TEST_CASE("process: words reach the program unchanged, without a shell", "[process]") {
    const std::vector<std::string> words = {"a b", "it's", "$(echo no)", "; exit 7", "*", ""};
    std::vector<std::string> argv = {"printf", "[%s]"};
    argv.insert(argv.end(), words.begin(), words.end());
    const auto result = run_process(argv);
    CHECK(result.exit_code == 0);
    CHECK(result.spawn_error.empty());
    CHECK(result.output == "[a b][it's][$(echo no)][; exit 7][*][]");
}

TEST_CASE("process: stdout and stderr are captured, the exit status kept", "[process]") {
    const auto result = run_process({"sh", "-c", "echo out; echo err >&2; exit 3"});
    CHECK(result.exit_code == 3);
    CHECK(result.output == "out\nerr\n");
    const auto killed = run_process({"sh", "-c", "kill -TERM $$"});
    CHECK(killed.exit_code == 128 + 15);
}

TEST_CASE("process: a program that does not exist is a spawn error", "[process]") {
    const auto result = run_process({"/no/such/program", "--version"});
    CHECK(result.exit_code == -1);
    CHECK(result.spawn_error == "No such file or directory");
    CHECK(run_process({}).exit_code == -1);
}

TEST_CASE("process: -v prints a command a shell would read back the same", "[process]") {
    CHECK(command_line({"c++", "-O2", "-Ia/b", "x.cpp"}) == "c++ -O2 -Ia/b x.cpp");
    CHECK(command_line({"c++", "-o", "out dir/it's bin", ""}) ==
          "c++ -o 'out dir/it'\\''s bin' ''");
    const auto echoed =
        run_process({"sh", "-c", "printf '[%s]' " + command_line({"a b", "it's", "$x", ""})});
    CHECK(echoed.output == "[a b][it's][$x][]");
}

TEST_CASE("process: run_parallel runs every task, at most `jobs` at a time", "[process]") {
    for (const std::size_t jobs : {std::size_t{1}, std::size_t{2}, std::size_t{3}}) {
        INFO("jobs " << jobs);
        std::vector<int> done(3 * jobs, 0);
        std::atomic<std::size_t> running{0};
        std::atomic<std::size_t> most{0};
        run_parallel(done.size(), jobs, [&](std::size_t i) {
            const std::size_t now = ++running;
            std::size_t seen = most.load();
            while (now > seen && !most.compare_exchange_weak(seen, now)) {
            }
            // Hold the slot until `jobs` tasks run at once (or 60 s pass, a guard against a hang
            // that only a run_parallel running fewer at once reaches: then the check fails).
            const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
            while (most.load() < jobs && std::chrono::steady_clock::now() < give_up) {
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
            --running;
            done[i] += 1;
        });
        CHECK(done == std::vector<int>(3 * jobs, 1));
        CHECK(most.load() == jobs);
    }
    // jobs 0: one per core; every task still runs once.
    std::atomic<int> count{0};
    run_parallel(5, 0, [&](std::size_t) { ++count; });
    CHECK(count.load() == 5);
}
