// The syntax tree of one .rop file, exactly as written: no names resolved, no Domains inferred.
// Every node carries the SourceRange it was parsed from, so every later check can point at it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "rop/vocab/call_kind.h"
#include "support/source_manager.h"

namespace rop::ast {

struct Ident {
    std::string name;
    SourceRange range;
};

// `std.pdf.render` or `fix_hyphens`.
struct QualifiedName {
    std::vector<Ident> parts;
    SourceRange range;
    std::string str() const;  // parts joined with '.'
};

// A literal: argument values and option values.
struct Value {
    enum class Kind { String, Int, Float, Bool, Duration, Ident, List };
    Kind kind = Kind::Int;
    std::string text;            // String: decoded contents; Ident: the word
    std::int64_t int_value = 0;  // Int; Duration: milliseconds
    double float_value = 0;      // Float
    bool bool_value = false;     // Bool
    std::vector<Value> items;    // List
    SourceRange range;
};

// `name: value` inside an operator's parentheses.
struct Argument {
    Ident name;
    Value value;
    SourceRange range;
};

// The operator (stdlib op or user UDF) a statement runs: `std.ocr.tesseract(lang: "eng")`.
struct OpRef {
    QualifiedName name;
    std::vector<Argument> args;
    bool has_parens = false;
    SourceRange range;
};

// A trailing Call option: `batch 48`, `recovery isolate_tail`, `timeout 30s`.
struct Option {
    Ident name;
    Value value;
    SourceRange range;
};

// A reference to a stream; `optional` is the trailing `?` (optional input of a Call).
struct InputRef {
    Ident name;
    bool optional = false;
    SourceRange range;
};

// What a stage writes first: map, filter, expand, broadcast or reduce (a source and a sink are
// statements of their own). The one Call-kind enumeration sema, bind, codegen and the runtime
// use too (rop/vocab/call_kind.h).
using StageKind = vocab::CallKind;

// `outs = <kind> inputs [as|to Domain] [with op] options... ;`
//   map (a, b?) with f batch 8        filter x with pred        expand d as Page with split
//   broadcast title to Page           reduce x to Doc [with join]
// Several outputs: `(text, boxes) = map pages with ocr;` (a multi-output Call).
struct Stage {
    std::vector<Ident> outputs;
    StageKind kind = StageKind::Map;
    SourceRange kind_range;  // the keyword
    std::vector<InputRef> inputs;
    bool parenthesized_inputs = false;
    std::optional<Ident> domain;  // expand `as D`, broadcast/reduce `to D`
    std::optional<OpRef> op;      // `with ...`
    std::vector<Option> options;
    SourceRange range;
};

// `source docs : Doc = std.files(glob: "in/*.pdf") options... ;`
struct Source {
    Ident name;
    Ident domain;
    OpRef op;
    std::vector<Option> options;
    SourceRange range;
};

// `sink out -> std.markdown_dir(path: "out");` or `sink (a, b) -> op;`
struct Sink {
    std::vector<InputRef> inputs;
    OpRef op;
    std::vector<Option> options;
    SourceRange range;
};

// `pool vlm = my.Model(base_url: "...") actors 4 gpus 1;`: one set of actors, each holding one
// instance of a UDF class, which several Calls share (`with vlm.layout(stage: "a")`). `pool` is
// a word only at the start of a statement (`pool NAME`), not a reserved keyword: a stream may
// still be called `pool`.
struct Pool {
    Ident name;
    OpRef op;  // the class and its constructor's named arguments
    std::vector<Option> options;
    SourceRange keyword_range;  // the word `pool`
    SourceRange range;
};

// `use "udfs/mineru.hpp";`
struct Use {
    std::string path;
    SourceRange range;
};

struct PipelineDecl {
    Ident name;
    SourceRange range;
};

// A statement's range runs from its first token to its last, without the terminating ';'.
using Statement = std::variant<Use, Source, Stage, Sink, Pool>;

struct Program {
    FileId file = 0;
    std::optional<PipelineDecl> header;
    std::vector<Statement> statements;  // in source order; statements with syntax errors omitted
};

const char* to_string(StageKind kind);  // "map", "filter", ...
const char* to_string(Value::Kind kind);

}  // namespace rop::ast
