// The C++ facts ropc needs about a UDF, as plain values: its parameters, return type, class
// constructor and nondeterminism findings. Filled by read_udfs (udf_reader.h); no Clang types.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rop::bind {

// A point in a C++ header. Lines and columns are 1-based; line 0 means "no location".
struct SourceLoc {
    std::string file;
    std::uint32_t line = 0;
    std::uint32_t column = 0;

    bool valid() const { return line != 0; }
    bool operator==(const SourceLoc&) const = default;
};

// "file:line:col", or just "file" without a line.
std::string to_string(const SourceLoc& loc);

// What a type is, as far as the UDF conventions care (docs/udfs.md). Which forms matter depends
// on the position: a std::vector is a Vector everywhere, but only an expand's return treats it
// as a sequence of children; elsewhere classification sees it as an ordinary value.
enum class TypeForm : std::uint8_t {
    Value,       // anything else: a payload type (Doc, std::string, int, ...)
    Void,        // void
    Bool,        // bool
    Vector,      // std::vector<T>              args = {T}
    Span,        // std::span<T>                args = {T}, with T's own const
    Optional,    // std::optional<T>            args = {T}
    Pointer,     // T*                          args = {T}, with T's own const
    Tuple,       // std::tuple<A, B, ...>       args = {A, B, ...}
    Emitter,     // rop::Emitter<T>             args = {T}
    Ordinals,    // rop::Ordinals (written through that alias)
    Skipped,     // rop::Skipped: std::span<const rop::SkippedChild>
    Parent,      // rop::Parent<T>              args = {T}
    ItemResult,  // rop::ItemResult<T>         args = {T}: a value or that item's failure
};

enum class RefKind : std::uint8_t { None, LValue, RValue };

// One C++ type. Two types are the same when their canonical names are (same_type in types.h):
// typedefs, const and references do not matter.
struct CxxType {
    std::string spelling;   // as written, with cv and reference: "const std::vector<Page> &"
    std::string name;       // readable, fully qualified, without top-level cv/ref: "std::string"
    std::string canonical;  // canonical, without top-level cv/ref: "std::basic_string<char>"
    TypeForm form = TypeForm::Value;
    RefKind ref = RefKind::None;
    bool is_const = false;      // top-level const, after the reference is stripped
    std::vector<CxxType> args;  // element types for the forms that have them (see TypeForm)
};

// What kind of `.rop` value a named argument takes (docs/udfs.md, "Named arguments"), and the
// kind of a value written in a `.rop` file.
enum class ArgKind : std::uint8_t {
    Integer,   // integer types
    Float,     // float, double (an integer literal fits too)
    Bool,      // bool
    String,    // std::string, std::string_view, const char*
    Duration,  // std::chrono::duration<...>
    Enum,      // an enum: a bare identifier naming an enumerator
    List,      // std::vector<T>
    Other,     // anything else: left to the C++ compiler
};

struct UdfParam {
    std::string name;  // empty when the declaration leaves it unnamed
    CxxType type;
    bool has_default = false;
    std::string default_text;  // the default's source text ("144", "\"eng\""), when it has one
    ArgKind arg_kind = ArgKind::Other;
    std::vector<std::string> enumerators;  // ArgKind::Enum: the identifiers it accepts
    SourceLoc location;                    // the parameter's name (or its type when unnamed)
};

// An obvious source of nondeterminism in a UDF's body (or in a helper it calls).
struct NondeterminismFinding {
    std::string udf;     // qualified name of the UDF
    std::string what;    // "std::random_device", "rand()", "std::chrono::system_clock::now()",
                         // "time()", "getenv()", "iteration over std::unordered_map"
    SourceLoc location;  // where it occurs
    std::string via;     // empty, or the helper the UDF calls whose body holds it
};

// A public member function a source or sink class is called through (`next`, `write`), or that
// a Call running on a pool calls (`with vlm.layout(...)`).
struct UdfMethod {
    std::string name;  // "next", "layout"
    std::vector<UdfParam> params;
    CxxType result;
    SourceLoc location;         // the method's name
    SourceLoc result_location;  // where its return type is written
};

// A function, or a class with an operator() (or, for sources and sinks, with a `next` or
// `write` member function), declared in one of the headers read.
struct UdfDecl {
    std::string qualified_name;  // "mineru::fix_hyphens" (no leading ::)
    std::string name;            // "fix_hyphens"
    bool is_class = false;

    // A function's parameters and return type; for a class, those of its operator().
    std::vector<UdfParam> params;
    CxxType result;

    // Class UDFs: the constructor that takes the Call's named arguments (its actor setup).
    std::vector<UdfParam> ctor_params;
    std::size_t constructor_count = 0;    // public constructors other than copy/move
    std::size_t call_operator_count = 0;  // public operator() overloads (binding needs one)
    // Source and sink classes (docs/udfs.md): every public, non-static `next` and `write`
    // member function, in declaration order (binding needs exactly one of the kind it uses).
    std::vector<UdfMethod> next_methods;
    std::vector<UdfMethod> write_methods;
    // Every public, non-static member function with a name (no operator, constructor or
    // template), in declaration order: what a Call running on a pool of this class may call
    // (`with vlm.layout(...)`; binding needs exactly one of the name it uses).
    std::vector<UdfMethod> methods;
    // A record source or sink of std.io (an alias of rop::stdlib::io::JsonlSource<T>,
    // CsvSource<T>, JsonlSink<T> or CsvSink<T>): its record type T, whose rop::Fields table
    // codegen writes.
    std::optional<CxxType> record_type;
    bool record_csv = false;  // CsvSource, CsvSink: the fields are scalars or optional scalars
    // A class named by an alias of a class template specialization: where the template is
    // declared (its header is used too: #included and linked by its `// rop-link:` line).
    SourceLoc template_location;

    SourceLoc location;         // the declaration's name
    SourceLoc result_location;  // where the return type is written
    bool has_body = false;      // defined in the header (so the lint could look at it)
    std::vector<NondeterminismFinding> nondeterminism;
};

// A type declared in a header read (struct, class, enum, alias): what `.rop` type names map to.
struct UdfType {
    std::string qualified_name;  // "mineru::Doc"
    std::string canonical;       // compare with CxxType::canonical
    SourceLoc location;
};

// How an item type crosses a process boundary (an `isolation process` Call, docs/udfs.md): the
// codec ropc found or can derive for it, or why there is none.
enum class CodecKind : std::uint8_t {
    Builtin,  // a standard type rop/codec.h encodes (numbers, strings, containers of codec types)
    User,     // a rop::Codec specialization the headers declare
    Fields,   // a struct of public fields with codecs: ropc generates a rop::FieldsCodec
    None,     // no codec: `problem` says why
};

// How a record source or sink (std.io's JsonlSource, CsvSource, JsonlSink) maps one field of a
// struct: `problem` is empty when it can (text, a number, bool, std::optional or std::vector of
// such, a struct), else why not ("has type 'std::map<...>', which ..."); `scalar`: one CSV cell
// holds it (text, a number, bool, or std::optional of one).
struct RecordField {
    std::string problem;
    bool scalar = false;
    SourceLoc location;  // the field's declaration
};

struct TypeCodec {
    std::string name;       // fully qualified, as generated C++ spells it: "demo::Page"
    std::string canonical;  // compare with CxxType::canonical
    CodecKind kind = CodecKind::None;
    // Fields: the public non-static data members, in declaration order, and how a record maps
    // each (same order).
    std::vector<std::string> fields;
    std::vector<RecordField> record_fields;
    // The headers specialize rop::Fields for this type (a hand-written field table, rop/fields.h):
    // codegen writes none and ropc leaves the mapping to the C++ compiler.
    bool user_fields = false;
    // The canonical names of the Fields types this one's codec uses (its own fields' types, the
    // elements of its containers), each of which needs its generated codec too.
    std::vector<std::string> needs;
    // None: the field that has no codec, as a path from this type ("meta.cache"; empty when the
    // type itself has none), that field's type, what is wrong with it ("has no codec", "is
    // private", ...) and where the field is declared.
    std::string problem_field;
    std::string problem_type;
    std::string problem;
    bool problem_is_field = false;  // `problem` is about the field ("is private"), not its type
    SourceLoc problem_location;
};

// A problem reading headers: a missing file or a C++ error, with clang's message.
struct BindError {
    SourceLoc location;  // file only (line 0) for a header that cannot be read
    std::string message;
    // The header read_udfs was given that `location` is in or (through #includes) included
    // from; empty when unknown (a Clang crash, a location outside every given header).
    std::string header;
    // Clang hit its error limit right after this error and stopped: what follows it in the
    // headers was not read (so names declared there are not known either).
    bool stopped_after = false;
};

}  // namespace rop::bind
