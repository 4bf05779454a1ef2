// BindContext: what bind_program's passes share while they bind one pipeline: the checked
// program, the diagnostics, the headers read and the UDFs they declare, and the item type known
// so far for each Port. Each E05xx check (bind/checks/) reads it and reports into it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bind/bind_program.h"
#include "bind/classify.h"
#include "bind/cxx_notes.h"
#include "sema/program.h"
#include "support/diagnostics.h"

namespace rop::bind {

// A header read for the pipeline: a `use` header or a stdlib module's.
struct Header {
    std::string path;     // as given to read_udfs (so declarations' locations name it)
    std::string include;  // as the generated file #includes it
    std::optional<std::size_t> use;
    bool used = false;  // a bound declaration comes from it
};

struct BindContext {
    BindContext(const sema::CheckedProgram& checked, const std::string& rop_path,
                const ProgramBindOptions& bind_options, DiagnosticEngine& engine);

    const sema::CheckedProgram& program;
    const ProgramBindOptions& options;
    DiagnosticEngine& diags;
    CxxNotes notes;
    std::string rop_dir;  // the `.rop` file's directory; empty: the current one
    BoundProgram out;     // what bind_program returns when no error was reported
    std::vector<Header> headers;
    std::vector<std::size_t> used_order;  // indices into headers, first use first
    // The item type of every Port, by PortId; empty while unknown (its producer did not bind),
    // so what reads it is not type-checked and one mistake is reported once.
    std::vector<std::optional<CxxType>> port_types;
    std::vector<const UdfDecl*> linted;  // UDFs the nondeterminism lint has reported on
    // Item types found without a codec under --mpi (canonical names), each reported once (E0512)
    // or left to E0306 (an `isolation process` Call's).
    std::vector<std::string> without_rank_codec;
    bool missing_header = false;   // a `use` header was not found (E0507)
    bool headers_stopped = false;  // Clang gave up at its error limit
};

// Helpers the checks share to find what to point at and to word their messages.

std::string in_quotes(std::string_view text);

// A `.rop` spelling of a C++ name: `mineru.fix_hyphens`, `std.pdf.render`.
std::string rop_name(const std::string& qualified);

// Can an item of type `got` be passed where `want` is expected?
bool flows(const CxxType& got, const CxxType& want);

// The C++ parameter input `index` binds to (a sink's is its write()'s); null when there is none.
const UdfParam* input_param(const UdfDecl& decl, const Binding& binding, std::size_t index);

// The range to point at for "produced here": the producing Call's operator, or the whole
// statement for broadcast and a reduce without one.
SourceRange producer_range(const BindContext& ctx, sema::PortId port);

// The `"path"` of `use` statement number `use` (the statement's last token).
SourceRange use_range(const BindContext& ctx, std::size_t use);

}  // namespace rop::bind
