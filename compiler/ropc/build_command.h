// `ropc build PIPELINE.rop -o BINARY ...`: the command line of the build driver (driver.h).
#pragma once

#include <string>
#include <vector>

namespace rop::cli {

// `args` are the words after `build`. Returns the exit code.
int run_build(const std::vector<std::string>& args);

std::string build_help();

}  // namespace rop::cli
