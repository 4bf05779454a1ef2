// The C++ compiler's output on a failed build, re-rendered for a pipeline author: locations in
// the generated file become the `.rop` line of the Call they belong to (through the generator's
// line map and the `#line` directives), the user's header and source locations stay as they are.
#pragma once

#include <string>
#include <vector>

#include "codegen/generate.h"
#include "support/source_manager.h"

namespace rop::driver {

struct CxxErrorContext {
    std::string generated_name;  // the generated file's base name (as `#line` spells it)
    std::string rop_file;        // the `.rop` path as the generated `#line`s spell it
    const std::vector<codegen::LineMapEntry>* line_map = nullptr;
    const SourceManager* sources = nullptr;  // for the `.rop` source line under a message
    FileId rop_id = 0;
};

// Rewrites GCC/Clang diagnostics text (`-fdiagnostics-color=never`).
std::string render_cxx_errors(const std::string& compiler_output, const CxxErrorContext& context);

}  // namespace rop::driver
