// Running the host compiler and linker: one helper that spawns a program from an argv vector
// without a shell (no quoting, so any byte may appear in a path) and captures what it prints,
// and a small pool that runs independent commands concurrently.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace rop::driver {

struct ProcessResult {
    int exit_code = -1;  // the program's exit status; 128+N when killed by signal N; -1 not run
    std::string output;  // its stdout and stderr together, in the order written
    std::string spawn_error;  // why it could not be started (exit_code is then -1)
};

// Runs argv[0] (looked up on $PATH when it has no '/') with `argv` and waits for it.
ProcessResult run_process(const std::vector<std::string>& argv);

// The command as a shell would need it typed (for -v): every word single-quoted when needed.
std::string command_line(const std::vector<std::string>& argv);

// Runs task(0) .. task(count - 1), at most `jobs` at a time (0: one per core), and returns when
// all are done. Tasks must not share mutable state; each writes only its own result slot.
void run_parallel(std::size_t count, std::size_t jobs,
                  const std::function<void(std::size_t)>& task);

}  // namespace rop::driver
