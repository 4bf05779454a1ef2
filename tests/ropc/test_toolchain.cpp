// driver/toolchain.h: the host compiler and the cache directory are found one way for every
// subcommand — the explicit flag, then the environment, then the fallbacks, in that order.
#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <string>

#include "driver/toolchain.h"

using rop::driver::cache_dir;
using rop::driver::find_host_compiler;

namespace {

// Sets (or with nullptr unsets) an environment variable for one scope.
class ScopedEnv {
  public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = getenv(name)) {
            old_ = old;
            had_ = true;
        }
        if (value != nullptr) {
            setenv(name, value, 1);
        } else {
            unsetenv(name);
        }
    }
    ~ScopedEnv() {
        if (had_) {
            setenv(name_, old_.c_str(), 1);
        } else {
            unsetenv(name_);
        }
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

  private:
    const char* name_;
    std::string old_;
    bool had_ = false;
};

}  // namespace

TEST_CASE("toolchain: --cxx, then $ROP_CXX, then c++/g++/clang++ on PATH", "[toolchain]") {
    const ScopedEnv cxx("ROP_CXX", "from-env++");
    CHECK(find_host_compiler("/opt/my c++") == "/opt/my c++");
    CHECK(find_host_compiler("") == "from-env++");
    {
        const ScopedEnv empty("ROP_CXX", "");  // empty is unset
        const ScopedEnv path("PATH", "/nonexistent");
        CHECK(find_host_compiler("") == "c++");  // none found: the usual name, for the error
    }
    const ScopedEnv unset("ROP_CXX", nullptr);
    const std::string found = find_host_compiler("");
    CHECK((found == "c++" || found == "g++" || found == "clang++"));
}

TEST_CASE("toolchain: the cache is the request, $ROP_CACHE_DIR, $XDG_CACHE_HOME/rop, ~/.cache/rop",
          "[toolchain]") {
    namespace fs = std::filesystem;
    const fs::path root =
        fs::temp_directory_path() / ("rop-toolchain-test-" + std::to_string(getpid()));
    fs::remove_all(root);
    const ScopedEnv rop("ROP_CACHE_DIR", (root / "rop").c_str());
    const ScopedEnv xdg("XDG_CACHE_HOME", (root / "xdg").c_str());
    const ScopedEnv home("HOME", (root / "home").c_str());
    CHECK(cache_dir((root / "asked").string()) == (root / "asked").string());
    CHECK(cache_dir() == (root / "rop").string());
    CHECK(fs::is_directory(root / "rop"));  // created
    {
        const ScopedEnv unset("ROP_CACHE_DIR", nullptr);
        CHECK(cache_dir() == (root / "xdg" / "rop").string());
        const ScopedEnv no_xdg("XDG_CACHE_HOME", "");
        CHECK(cache_dir() == (root / "home" / ".cache" / "rop").string());
    }
    fs::remove_all(root);
}
