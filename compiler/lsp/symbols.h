// The names a `.rop` file writes, where it writes them: every stream, Domain, operator, Call
// option and `use` path, read off the syntax tree. Hover, go-to-definition and completion look
// up the name under the cursor here; it needs no semantic check to pass, so it also works in a
// file with errors (sema's tables fill in Domains and types when the file checks clean).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/ast.h"

namespace rop::lsp {

enum class SymbolKind { Stream, Domain, Operator, Option, UsePath };

struct Occurrence {
    SymbolKind kind = SymbolKind::Stream;
    std::string name;  // `pages`, `Page`, `std.pdf.render`, `batch`, `udfs/x.hpp`
    SourceRange range;
    bool definition = false;  // a stream's `=` or `source`, a Domain's `source :` or `expand as`
};

// `pool NAME = CLASS(...)`: what an operator `NAME.METHOD` names.
struct PoolEntry {
    std::string name;        // `vlm`
    std::string class_name;  // `my.Model`, as written
};

struct SymbolIndex {
    std::vector<Occurrence> occurrences;  // in source order
    std::vector<ast::Use> uses;           // the `use` statements, in source order
    std::vector<PoolEntry> pools;         // the `pool` statements, in source order

    // The innermost occurrence whose range holds `offset` (its end included, so a cursor right
    // after a name still finds it), or null.
    const Occurrence* at(std::uint32_t offset) const;
    // Where `name` is first defined, or null.
    const Occurrence* definition(SymbolKind kind, std::string_view name) const;
};

SymbolIndex index_symbols(const ast::Program& program);

}  // namespace rop::lsp
