// Test helpers that hand generated C++ to the host compiler (`c++` from PATH, or $ROP_CXX) and
// run what it builds, with file and shell plumbing kept out of the test bodies.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace rop::codegen::test {

struct CommandResult {
    int exit_code;
    std::string output;  // stdout and stderr together
};

// A fresh, empty folder under the build tree for one test's generated files.
std::filesystem::path work_dir(std::string_view test_name);

std::string shell_quote(std::string_view text);
std::string host_cxx();
std::string source_dir();  // the repository root
// " -I DIR" for each folder of rop's headers in the source tree (runtime, UDF API, vocabulary,
// stdlib), as ropc passes them to the host compiler.
std::string rop_include_flags();

CommandResult run_command(const std::string& command, const std::filesystem::path& log);

std::string read_file(const std::filesystem::path& path);
void write_file(const std::filesystem::path& path, std::string_view content);

}  // namespace rop::codegen::test
