// generate: a bound pipeline (BoundProgram) to one deterministic C++ file, filled from the
// templates in codegen_templates/: an actor class per Call that runs code and make_pipeline()
// with the static plan, each Call's options (once) and the source and sinks. The support code
// they use is the runtime's rop/runtime/generated.h; lines stay under 100 columns (wrap.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bind/bind_program.h"
#include "codegen/arguments.h"  // argument_expression, which the tests call too
#include "support/source_manager.h"

namespace rop::codegen {

struct GenerateOptions {
    // The file name the generated code will be compiled as: `#line` directives after each UDF
    // call point back at it (empty: no `#line` at all).
    std::string cpp_file;
    // The `.rop` path written into `#line` directives and the header comment; empty: the
    // SourceManager's name of the program's file.
    std::string rop_file;
    std::string version;  // what the binary's --version prints (ropc stamps its own)
    // The run report's rop_hash (PipelineDefinition::rop_hash): ropc build stamps
    // "sha256:<hex>" of the `.rop` text; empty: not set (the report says null).
    std::string rop_hash;
};

// A stretch of generated lines that belongs to one `.rop` statement: for mapping a C++ error in
// generated code (outside the `#line` regions) back to the pipeline.
struct LineMapEntry {
    std::uint32_t first_line = 0;  // 1-based, inclusive, in the generated file
    std::uint32_t last_line = 0;
    std::uint32_t rop_line = 0;
    std::uint32_t rop_column = 0;
    std::string call;  // the Call's `.rop` name
};

struct GeneratedCode {
    std::string code;
    std::vector<LineMapEntry> line_map;  // sorted by first_line
};

// Writes the pipeline's C++. Throws CodegenError (printer.h) on a BoundProgram it cannot
// translate (an internal error: bind_program only returns programs codegen supports).
GeneratedCode generate(const bind::BoundProgram& bound, const SourceManager& sources,
                       const GenerateOptions& options = {});

}  // namespace rop::codegen
