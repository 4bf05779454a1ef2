// bind_program: the pass after sema. Reads the pipeline's `use` headers and the stdlib operator
// headers with Clang (read_udfs), binds every Call, source and sink to a C++ declaration, checks
// its shape against the primitive, its named arguments against the parameters, and the type flow
// from stage to stage. Problems are E05xx diagnostics at the `.rop` location, with a note at the
// C++ declaration. The result is what codegen needs to write the pipeline's C++.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bind/classify.h"
#include "bind/udf_library.h"
#include "frontend/ast.h"
#include "sema/program.h"
#include "support/diagnostics.h"
#include "support/source_manager.h"

namespace rop::bind {

struct ProgramBindOptions {
    // Where <rop/udf.h> and <rop/stdlib/*.h> live (the source tree's api/include and
    // stdlib/include, or an install's include/). Every rop/stdlib/*.h there is read, so `std.`
    // names resolve.
    std::vector<std::string> stdlib_include_dirs;
    // Extra -I directories for the `use` headers. The `.rop` file's own directory is always
    // searched first (a `use` path is relative to the `.rop` file).
    std::vector<std::string> include_dirs;
    std::string resource_dir;   // Clang's; empty: the one ropc was built against
    std::string pch_cache_dir;  // see ReadOptions::pch_cache_dir; empty: no cache
    std::string pch_seed_dir;   // see ReadOptions::pch_seed_dir; empty: none
    bool pch_mark_used = true;  // see ReadOptions::pch_mark_used
    bool lint = true;           // the nondeterminism lint (a warning per finding)
    // `--mpi` (ropc build and check): every Call's actors may run on another rank, so the items of
    // every Call cross as bytes and each item type needs a codec (E0512), not only those of an
    // `isolation process` Call (E0306).
    bool every_call_crosses = false;
    // Where notes that point into a C++ header load it, so they render as
    // `udfs/x.hpp:12:1: note: declared here` with the line (the SourceManager `diags` renders
    // with). Null: such notes point nowhere and start their message with `file:line:col: `.
    SourceManager* sources = nullptr;
};

// One `name: value` argument of a Call (or source, sink), matched to its C++ parameter.
struct BoundArgument {
    UdfParam param;                      // the parameter it binds to: name, type, kind, default
    std::optional<ast::Argument> value;  // as written in the `.rop` file; empty: the C++ default
};

// How one sema Call is bound. Index i of BoundProgram::calls is sema Call i.
struct BoundCall {
    sema::CallId call = 0;
    // The declaration bound; null for broadcast and a reduce without a UDF. Points into
    // BoundProgram::library, or for a Call that runs on a pool into BoundProgram::pool_methods:
    // the method as a function of its own ("ns::Model::layout"), whose trailing parameters
    // after the inputs are the Call's named arguments, as a function UDF's are.
    const UdfDecl* decl = nullptr;
    std::optional<sema::PoolId> pool;  // the pool it runs on (BoundProgram::pools)
    // Shape, inputs (how a missing item is passed), outputs, emitter/ordinals/parent positions.
    // For a source: shape Source, no inputs, outputs = {T of `std::optional<T> next()`}.
    // For a sink: shape Sink, inputs = {T of `write(const rop::RootKey&, std::span<const T>)`}.
    // For broadcast / plain reduce: shape is meaningless, outputs = the flowing type.
    Binding binding;
    // The named arguments in C++ parameter order: a function's parameters after its inputs and
    // runtime parameters; a class's constructor parameters (for sources and sinks the first of
    // these is the input/output path, overridable with --input/--output).
    std::vector<BoundArgument> arguments;
    std::vector<CxxType> input_types;   // the item type arriving on each input, in input order
    std::vector<CxxType> output_types;  // one per output port
};

// How one sema Pool is bound: its class and its constructor's arguments. Index i of
// BoundProgram::pools is sema Pool i.
struct BoundPool {
    const UdfDecl* decl = nullptr;         // the class: in library.decls or library.pool_classes
    std::vector<BoundArgument> arguments;  // the constructor's, in C++ parameter order
};

struct BoundProgram {
    const sema::CheckedProgram* program = nullptr;
    UdfLibrary library;
    std::vector<BoundCall> calls;  // one per sema Call, same index (sources and sinks too)
    std::vector<BoundPool> pools;  // one per sema Pool, same index
    // The methods pooled Calls bind to, each as a function of its own (BoundCall::decl).
    std::vector<std::unique_ptr<UdfDecl>> pool_methods;
    std::vector<CxxType> port_types;  // the item type of every Port, by PortId
    // Headers the generated file #includes, as paths the C++ compiler finds with `include_dirs`
    // below: the `use` headers, then <rop/stdlib/MODULE.h> for each stdlib module used, in
    // first-use order.
    std::vector<std::string> includes;
    std::vector<std::string> include_dirs;  // -I directories those need (the .rop dir first)
    // The `// rop-link:` tokens of the headers whose declarations are used, deduplicated, in
    // first-use order: `rop_*` are rop's own static libraries (lib/lib<name>.a), any other
    // token is a system library passed as -l<token>.
    std::vector<std::string> link;
};

// Binds `program` (checked by sema) read from `rop_path`. Returns nothing when an error was
// reported; warnings (the lint) do not stop it.
std::optional<BoundProgram> bind_program(const sema::CheckedProgram& program,
                                         const std::string& rop_path,
                                         const ProgramBindOptions& options,
                                         DiagnosticEngine& diags);

}  // namespace rop::bind
