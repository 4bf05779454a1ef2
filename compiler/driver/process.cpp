#include "driver/process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <thread>

extern char** environ;

namespace rop::driver {

ProcessResult run_process(const std::vector<std::string>& argv) {
    ProcessResult result;
    if (argv.empty()) {
        result.spawn_error = "no program given";
        return result;
    }
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        result.spawn_error = std::strerror(errno);
        return result;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    // The child writes both streams into the pipe; the dup2'd descriptors lose O_CLOEXEC.
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
    std::vector<std::string> words = argv;
    std::vector<char*> args;
    args.reserve(words.size() + 1);
    for (std::string& word : words) args.push_back(word.data());
    args.push_back(nullptr);
    pid_t child = 0;
    const int spawned = posix_spawnp(&child, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (spawned != 0) {
        close(fds[0]);
        result.spawn_error = std::strerror(spawned);
        return result;
    }
    char buffer[4096];
    while (true) {
        const ssize_t n = read(fds[0], buffer, sizeof buffer);
        if (n > 0) {
            result.output.append(buffer, static_cast<std::size_t>(n));
        } else if (n == 0 || errno != EINTR) {
            break;
        }
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) {
        result.exit_code = WEXITSTATUS(status);
    } else {
        result.exit_code = 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    }
    return result;
}

std::string command_line(const std::vector<std::string>& argv) {
    std::string out;
    for (const std::string& arg : argv) {
        if (!out.empty()) out += ' ';
        const bool plain = !arg.empty() && std::all_of(arg.begin(), arg.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("-_./=+:,@%", c);
        });
        if (plain) {
            out += arg;
            continue;
        }
        out += '\'';
        for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
        out += '\'';
    }
    return out;
}

void run_parallel(std::size_t count, std::size_t jobs,
                  const std::function<void(std::size_t)>& task) {
    if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
    jobs = std::min(jobs, count);
    if (jobs <= 1) {
        for (std::size_t i = 0; i < count; ++i) task(i);
        return;
    }
    std::atomic<std::size_t> next{0};
    std::vector<std::thread> workers;
    workers.reserve(jobs);
    for (std::size_t w = 0; w < jobs; ++w) {
        workers.emplace_back([&] {
            for (std::size_t i = next++; i < count; i = next++) task(i);
        });
    }
    for (std::thread& worker : workers) worker.join();
}

}  // namespace rop::driver
