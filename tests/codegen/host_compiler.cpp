#include "host_compiler.h"

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace rop::codegen::test {

std::filesystem::path work_dir(std::string_view test_name) {
    std::filesystem::path dir = std::filesystem::path(ROP_CODEGEN_WORK_DIR) / test_name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

std::string shell_quote(std::string_view text) {
    std::string quoted = "'";
    for (char c : text) {
        if (c == '\'') {
            quoted += "'\\''";
        } else {
            quoted += c;
        }
    }
    return quoted + "'";
}

std::string host_cxx() {
    const char* override_cxx = std::getenv("ROP_CXX");
    return override_cxx != nullptr && *override_cxx != '\0' ? override_cxx : "c++";
}

std::string source_dir() { return ROP_SOURCE_DIR; }

std::string rop_include_flags() {
    std::string flags;
    for (const char* dir : {"runtime", "api", "vocab", "stdlib"}) {
        flags += " -I " + shell_quote(source_dir() + "/" + dir + "/include");
    }
    return flags;
}

CommandResult run_command(const std::string& command, const std::filesystem::path& log) {
    int status = std::system((command + " >" + shell_quote(log.string()) + " 2>&1").c_str());
    int exit_code = status;
    if (status != -1 && WIFEXITED(status)) exit_code = WEXITSTATUS(status);
    return {exit_code, read_file(log)};
}

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path.string());
    std::ostringstream content;
    content << in.rdbuf();
    return std::move(content).str();
}

void write_file(const std::filesystem::path& path, std::string_view content) {
    std::ofstream out(path, std::ios::binary);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    if (!out) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace rop::codegen::test
