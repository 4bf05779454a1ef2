// The file as `ropc fmt` sees it: statements and own-line comments in source order, each
// statement with the comments that belong to it. Private to rop::format.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "frontend/ast.h"
#include "frontend/token.h"

namespace rop::format::detail {

struct Entry {
    // Exactly one of the three is set: a statement, the header, or an own-line comment.
    const ast::Statement* statement = nullptr;
    const ast::PipelineDecl* header = nullptr;
    std::optional<SourceRange> comment;

    std::uint32_t first_line = 0;  // where the entry starts and ends in the source (1-based)
    std::uint32_t last_line = 0;   // a statement ends with its ';'

    // A statement's comments. One after its ';' on the same line is `trailing`; one inside it
    // that follows an argument (other than the last) stays with that argument; any other
    // comment inside it is written on its own line just before it, in source order.
    std::optional<SourceRange> trailing;
    std::vector<std::optional<SourceRange>> arg_comments;  // by argument index
    std::vector<SourceRange> hoisted;
};

// `tokens` and `comments` are the lexer's for the file `program` was parsed from, which parsed
// without errors (so every statement ends with a ';' token).
std::vector<Entry> entries(const ast::Program& program, const std::vector<Token>& tokens,
                           const std::vector<SourceRange>& comments, const SourceManager& sources);

}  // namespace rop::format::detail
