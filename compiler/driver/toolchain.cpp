#include "driver/toolchain.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string_view>

namespace rop::driver {
namespace fs = std::filesystem;

namespace {

std::string env(const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr ? value : "";
}

std::string self_path() {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : self.string();
}

}  // namespace

bool on_path(const std::string& name) {
    if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0;
    const std::string path = env("PATH");
    std::string_view rest = path;
    while (true) {
        const std::size_t colon = rest.find(':');
        const std::string_view dir = rest.substr(0, colon);
        const fs::path candidate = fs::path(dir.empty() ? "." : std::string(dir)) / name;
        if (access(candidate.c_str(), X_OK) == 0) return true;
        if (colon == std::string_view::npos) return false;
        rest.remove_prefix(colon + 1);
    }
}

Toolchain find_toolchain() {
    Toolchain t;
    t.ropc_path = self_path();
    const fs::path prefix = fs::path(t.ropc_path).parent_path().parent_path();
    t.lib_dir = (prefix / "lib").string();
    std::error_code ec;
    if (fs::is_directory(prefix / "lib" / "rop" / "cache", ec)) {
        t.seed_dir = (prefix / "lib" / "rop" / "cache").string();
    }
    if (fs::is_regular_file(prefix / "include" / "rop" / "udf.h", ec) &&
        fs::is_regular_file(prefix / "include" / "rop" / "runtime" / "pipeline_main.h", ec)) {
        t.include_dirs = {(prefix / "include").string()};
        t.stdlib_include_dirs = t.include_dirs;
    } else {
        // The source tree: the include/ of each home an install merges into one include/rop.
        const fs::path source = ROP_SOURCE_DIR;
        const std::string api = (source / "api" / "include").string();
        const std::string stdlib = (source / "stdlib" / "include").string();
        t.include_dirs = {(source / "runtime" / "include").string(), api,
                          (source / "vocab" / "include").string(), stdlib};
        t.stdlib_include_dirs = {api, stdlib};
    }
    return t;
}

std::string find_host_compiler(const std::string& requested) {
    if (!requested.empty()) return requested;
    if (const std::string from_env = env("ROP_CXX"); !from_env.empty()) return from_env;
    for (const char* candidate : {"c++", "g++", "clang++"}) {
        if (on_path(candidate)) return candidate;
    }
    return "c++";
}

std::string cache_dir(const std::string& requested) {
    fs::path dir;
    if (!requested.empty()) {
        dir = requested;
    } else if (const std::string root = env("ROP_CACHE_DIR"); !root.empty()) {
        dir = root;
    } else if (const std::string xdg = env("XDG_CACHE_HOME"); !xdg.empty()) {
        dir = fs::path(xdg) / "rop";
    } else if (const std::string home = env("HOME"); !home.empty()) {
        dir = fs::path(home) / ".cache" / "rop";
    } else {
        dir = fs::temp_directory_path() / "rop-cache";
    }
    std::error_code ec;
    fs::create_directories(dir, ec);
    const fs::path absolute = fs::absolute(dir, ec);
    return ec ? dir.string() : absolute.lexically_normal().string();
}

}  // namespace rop::driver
