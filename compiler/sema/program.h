// CheckedProgram: a pipeline after every semantic check passed. Names are resolved to integer
// ids, every stream has its Domain, every Call its options with defaults filled in.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "rop/vocab/call_kind.h"
#include "sema/call_options.h"
#include "support/source_manager.h"

namespace rop::sema {

using DomainId = std::uint32_t;
using PortId = std::uint32_t;
using CallId = std::uint32_t;
using PoolId = std::uint32_t;

// A level of entities (Doc, Page, Region). The root Domain is declared by the source; every
// other one is opened by exactly one expand.
struct Domain {
    std::string name;
    std::optional<DomainId> parent;  // empty for the root
    std::uint32_t depth = 0;         // root = 0
    CallId opened_by = 0;            // the source (root) or the expand that opens it
    std::vector<DomainId> children;
    SourceRange range;  // where the name is declared
};

// One named stream: an output of one Call.
struct Port {
    std::string name;
    DomainId domain = 0;
    CallId producer = 0;
    std::uint32_t output_index = 0;
    SourceRange range;
};

// Sources and sinks are Calls here; the other five kinds are the stages' (ast::StageKind) and the
// runtime plan's: one enumeration (rop/vocab/call_kind.h).
using vocab::CallKind;
const char* to_string(CallKind kind);  // "source", "map", ...

struct CallInput {
    PortId port = 0;
    bool optional = false;  // `x?`: a DROPPED x reaches the UDF as "missing"
    SourceRange range;
};

// The operator a Call runs, as written; `with` is absent on broadcast and a plain reduce.
struct OpRef {
    std::string name;                 // "std.ocr.tesseract"
    std::vector<ast::Argument> args;  // named arguments, as written
    SourceRange range;
    SourceRange name_range;  // just the name (`std.ocr.tesseract`)
};

// Seam for UDF binding: a later pass (Clang LibTooling over `use` headers and the stdlib) binds
// each op name to a C++ signature. Sema leaves it empty.
// What ropc hashed of a Call's UDF code (bind/code_fingerprint.h): the plan shows it and
// codegen writes it into the CallSpec (rop::runtime::CodeFingerprint, the result store's key).
struct CodeFunction {
    std::string name;      // qualified: "wordcount::count_words"
    std::string location;  // relative to the `.rop` file's folder: "udfs/wordcount.cpp:12"
    std::string hash;      // hex XXH3-128 of its tokens
};
struct CodeFingerprint {
    std::string digest;  // hex XXH3-128 of the functions, the flags and any fallback
    std::vector<CodeFunction> functions;
    std::string flags;          // the result-changing compile flags that went in
    std::string fallback;       // non-empty: why whole translation units were hashed too
    bool volatile_udf = false;  // the nondeterminism lint (W0500) found something in it
};

struct OpBinding {
    std::string cpp_symbol;                // e.g. "rop::std_ocr::tesseract"
    std::vector<std::string> input_types;  // C++ parameter types, one per input
    std::vector<std::string> output_types;
    std::string udf_kind;  // "function", "class" or (a pooled Call) "method"; empty without a UDF
    std::string shape;     // how it is called: "element_map", "batch_map", ... (docs/build.md)
    bool batch = false;    // one call per batch (spans in, a vector out), not one per item
    std::optional<CodeFingerprint> code;  // `ropc build` and `ropc emit plan`, Calls with a UDF
};

struct Call {
    CallId id = 0;
    CallKind kind = CallKind::Map;
    // `with vlm.layout(stage: "a")` on pool `vlm`: op->name is "vlm.layout", its args the
    // method's named arguments; `method` is "layout".
    std::optional<OpRef> op;
    std::optional<PoolId> pool;
    std::string method;
    std::vector<CallInput> inputs;
    std::vector<PortId> outputs;
    DomainId domain = 0;  // the Domain its Grains live in (an expand: its input's)
    CallOptions options;  // defaults filled in; a pooled Call's placement options are its pool's
    std::vector<ast::Option> written;  // the options as written, for diagnostics at one of them
    std::optional<OpBinding> binding;  // empty until UDF binding runs
    SourceRange range;                 // the whole statement
};

// `pool vlm = my.Model(base_url: "...") actors 4 gpus 1;`: one set of actors, each holding one
// instance of a UDF class (its constructor runs once per actor), that several Calls share by
// calling named methods of it (docs/language.md, "pool").
struct Pool {
    PoolId id = 0;
    std::string name;                  // "vlm"
    OpRef op;                          // the class and its constructor's named arguments
    CallOptions options;               // the placement options set (kPoolOptions), defaults else
    std::vector<ast::Option> written;  // the options as written
    std::vector<CallId> calls;         // the Calls that run on it, in source order
    SourceRange range;                 // the whole statement
    SourceRange name_range;
};

// An expand and the reduces that fold its children back into the parent.
struct ExpandReducePair {
    DomainId child = 0;
    CallId expand = 0;
    std::vector<CallId> reduces;  // in source order; possibly none
};

struct CheckedProgram {
    FileId file = 0;
    std::string pipeline_name;
    std::vector<std::string> uses;        // `use` header paths, in source order
    std::vector<SourceRange> use_ranges;  // each `use` statement, same order as `uses`
    std::vector<Domain> domains;          // [0] is the root
    std::vector<Port> ports;
    std::vector<Call> calls;  // in source order (a topological order)
    std::vector<Pool> pools;  // in source order; each before the Calls that run on it
    CallId source = 0;
    std::vector<CallId> sinks;
    std::vector<ExpandReducePair> expand_reduce;
};

}  // namespace rop::sema
