// The code fingerprint of every Call with a UDF (issue 29; docs/build.md, "Code fingerprints"),
// written into each Call's binding (sema::OpBinding::code) for the plan and the generated
// CallSpec. `ropc build` and `ropc emit plan` run it after binding.
#pragma once

#include <string>
#include <vector>

#include "bind/bind_program.h"
#include "driver/toolchain.h"
#include "sema/program.h"

namespace rop::driver {

// The C++ files `ropc build` compiles with a pipeline: each `use "X.hpp"`'s sibling X.cpp (when
// it exists), then the --src files; each once, absolute.
std::vector<std::string> pipeline_sources(const sema::CheckedProgram& program,
                                          const bind::BoundProgram& bound,
                                          const std::string& rop_path,
                                          const std::vector<std::string>& include_dirs,
                                          const std::vector<std::string>& src_files);

struct FingerprintInputs {
    std::string rop_path;
    std::vector<std::string> sources;       // pipeline_sources
    std::vector<std::string> include_dirs;  // -I of the user's files (the .rop's folder first)
    std::vector<std::string> flags;         // what the user's files are compiled with
};

// Fills binding.code of every bound Call with a UDF. A stdlib operator (`std.`) is keyed by rop's
// version and its name: its code is in rop's libraries, which Clang does not read.
void attach_fingerprints(sema::CheckedProgram& program, const bind::BoundProgram& bound,
                         const Toolchain& toolchain, const FingerprintInputs& inputs);

}  // namespace rop::driver
