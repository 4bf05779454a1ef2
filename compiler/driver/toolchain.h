// Where ropc finds what a build needs, written once for every subcommand: rop's own headers and
// libraries, the host C++ compiler, and the content-hash cache (binding's precompiled headers
// live in its bind/ folder, builds in obj/, bin/, gen/ and pipelines/).
#pragma once

#include <string>
#include <vector>

namespace rop::driver {

// Where ropc finds rop's headers and libraries: an install (`<ropc dir>/../include` and
// `../lib`), else the source tree it was built from and the build tree's lib/.
struct Toolchain {
    std::vector<std::string> include_dirs;  // runtime, UDF API, vocabulary and stdlib headers
    // Where <rop/udf.h> and <rop/stdlib/*.h> live, which binding reads: an install's include/,
    // or the source tree's api/include and stdlib/include.
    std::vector<std::string> stdlib_include_dirs;
    std::string lib_dir;    // librop_runtime.a, librop_stdlib_*.a
    std::string ropc_path;  // this ropc (its identity is part of every cache key)
    // <lib_dir>/rop/cache when it exists: precompiled headers made when rop was built or
    // installed (`ropc warm --into`), in the cache's layout (bind/, pch/). Read, never written:
    // a build or check uses one the user's cache does not have yet, so even the first build
    // after an install finds them.
    std::string seed_dir;
};
Toolchain find_toolchain();

// The host C++ compiler: `requested` (--cxx) when given, else $ROP_CXX, else the first of c++,
// g++, clang++ on PATH (c++ when none is found, so the error names the usual one).
std::string find_host_compiler(const std::string& requested);

// `name` is a program on $PATH (or, with a '/', an executable file).
bool on_path(const std::string& name);

// The cache directory: `requested` (a test's override) when given, else $ROP_CACHE_DIR, else
// $XDG_CACHE_HOME/rop, else ~/.cache/rop, else a folder in the temp directory. Created when
// missing; returned absolute.
std::string cache_dir(const std::string& requested = "");

}  // namespace rop::driver
