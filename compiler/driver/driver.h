// The build driver behind `ropc build`: the front half (front.h) over a pipeline, then its C++
// generated and compiled with the user's sources, concurrently, and linked with the runtime and
// the stdlib into one binary, with a content-hash cache so an unchanged rebuild costs a few file
// reads.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "driver/front.h"
#include "driver/toolchain.h"

namespace rop::driver {

// --emit: print one stage on stdout and build nothing.
enum class BuildEmit { None, Cpp, Plan };

struct BuildOptions {
    FrontOptions front;                // -I, -Werror, --max-errors, --color, --mpi (binding is on)
    std::string rop_path;              // the pipeline
    std::string output;                // -o: the binary to write (optional with --bundle)
    std::string cxx;                   // --cxx; empty: find_host_compiler's discovery
    BuildEmit emit = BuildEmit::None;  // --emit=cpp|plan
    std::string keep_cpp_dir;          // --keep-cpp DIR: also write the generated C++ there
    std::vector<std::string> sources;  // --src: more C++ files to compile and link
    std::string opt_level = "2";       // -O LEVEL
    std::size_t jobs = 0;              // -j N: compiles at once (0: one per core)
    bool verbose = false;              // -v: print the commands run and the cache decisions
    std::string bundle;                // --bundle DIR|FILE.tar.gz (bundle.h); -o is then optional
    bool static_link = false;          // --static: refused when a system library has no .a
    // --mpi is front.mpi: binding then asks every Call's item types for a codec (E0512), and the
    // binary links the MPI executor (librop_runtime_mpi.a, Open MPI; docs/cluster.md).
};

// `ropc warm`: the precompiled headers made ahead of the first build (build.cpp).
struct WarmOptions {
    std::string into;             // --into DIR: make them there (a seed); empty: in the cache
    std::string cxx;              // --cxx; empty: find_host_compiler's discovery
    std::string opt_level = "2";  // -O LEVEL of the builds that will use the image
    bool verbose = false;         // -v: the compiler commands
};

// Makes binding's prelude and generated.h's image in options.into (else the cache), as a
// build would find them there. Returns 0 when both are made or unchanged, 1 when one could
// not be made (why, on `err`), 2 when the compiler cannot be run.
int warm(const WarmOptions& options, std::ostream& out, std::ostream& err);

// Runs the whole build. Diagnostics and compiler errors go to `err`, --emit output to `out`.
// Returns 0 on success, 1 for errors in the pipeline or the C++ (mapped back to the .rop
// file), 2 for usage errors (unreadable files, no compiler).
int build(const BuildOptions& options, std::ostream& out, std::ostream& err);

}  // namespace rop::driver
