// The build driver behind `ropc build`: check, bind and generate a pipeline, then compile the
// generated C++ with the user's sources and link it with the runtime and the stdlib into one
// binary, with a content-hash cache so an unchanged rebuild costs a few file reads.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace rop::driver {

struct BuildOptions {
    std::string rop_path;                  // the pipeline
    std::string output;                    // -o: the binary to write
    std::string cxx;                       // --cxx / $ROP_CXX; empty: c++
    bool emit_cpp = false;                 // --emit=cpp: print the generated C++, build nothing
    std::string keep_cpp_dir;              // --keep-cpp DIR: also write the generated C++ there
    std::vector<std::string> include_dirs; // -I: more directories for `use` headers and sources
    std::vector<std::string> sources;      // --src: more C++ files to compile and link
    std::string opt_level = "2";           // -O LEVEL
    std::string cache_dir;                 // empty: $ROP_CACHE_DIR, $XDG_CACHE_HOME/rop, ~/.cache/rop
    bool color = false;                    // diagnostics in color
    bool verbose = false;                  // -v: print the commands run and the cache decisions
};

// Where ropc finds rop's headers and libraries: an install (`<ropc dir>/../include` and
// `../lib`), else the source tree it was built from and the build tree's lib/.
struct Toolchain {
    std::vector<std::string> include_dirs;  // runtime and stdlib headers (<rop/udf.h> among them)
    std::string stdlib_include_dir;         // where <rop/udf.h> and <rop/stdlib/*.h> live
    std::string lib_dir;                    // librop_runtime.a, librop_stdlib_*.a
    std::string ropc_path;                  // this ropc (its identity is part of every cache key)
};
Toolchain find_toolchain();

// The cache directory in use for `options` (created when missing).
std::string cache_dir(const BuildOptions& options);

// Runs the whole build. Diagnostics and compiler errors go to `err`, --emit=cpp to `out`.
// Returns 0 on success, 1 for errors in the pipeline or the C++ (mapped back to the .rop
// file), 2 for usage errors (unreadable files, no compiler).
int build(const BuildOptions& options, std::ostream& out, std::ostream& err);

}  // namespace rop::driver
