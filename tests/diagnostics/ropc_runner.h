// Runs the built ropc as a child process and captures what it prints: the CLI tests check exit
// codes, stdout and stderr exactly as a user or CI job would see them.
#pragma once

#include <string>
#include <vector>

namespace rop::test {

struct RopcResult {
    int exit_code = -1;
    std::string out;  // stdout
    std::string err;  // stderr
};

// `args` are passed to ropc as separate words (no shell); runs in `working_dir`.
RopcResult run_ropc(const std::vector<std::string>& args,
                    const std::string& working_dir = ROP_GOLDEN_DIR);

std::string read_file(const std::string& path);

}  // namespace rop::test
