// The link of a pipeline's binary: what follows its objects on the command line, in order (the
// `// rop-link:` libraries, the MPI executor, the runtime, Open MPI's flags, -pthread, a bundle's
// RPATH, -static, LLVM's linker when there is one), and the link run itself. docs/build.md, "What
// gets compiled and linked".
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "driver/process.h"

namespace rop::driver {

struct LinkSettings {
    std::string cxx;           // the C++ compiler, which links
    std::string lib_dir;       // Toolchain::lib_dir: rop's own static libraries
    bool mpi = false;          // --mpi: the MPI executor and Open MPI
    bool static_link = false;  // --static: refused when a system library has no .a
    bool bundle = false;       // --bundle: the binary finds its libraries in ../lib
};

struct LinkLine {
    std::vector<std::string> libs;  // after the objects, in order
    // rop's own archives among them, in order: what the fast path's manifest checks.
    std::vector<std::string> archives;
    std::string error;  // why there is no link line (a library missing); `libs` is then empty
};

// The link line for the `// rop-link:` tokens of a bound pipeline (BoundProgram::link): `rop_*`
// tokens are lib_dir/lib<token>.a, any other is -l<token>.
LinkLine link_line(const std::vector<std::string>& rop_link, const LinkSettings& settings);

// Runs `cxx objects libs -o output`; when `libs` asks for lld and the compiler does not know
// -fuse-ld, once more with its own linker. `verbose` gets each command (and why it is rerun).
ProcessResult run_link(const std::string& cxx, const std::vector<std::string>& objects,
                       const std::vector<std::string>& libs, const std::string& output,
                       const std::function<void(const std::string&)>& verbose);

}  // namespace rop::driver
