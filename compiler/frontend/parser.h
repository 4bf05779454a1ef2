// The parser: one .rop file to its syntax tree. Recursive descent over the lexer's tokens, with
// error recovery (skip to ';' or the next statement) so one run reports every independent error.
#pragma once

#include "frontend/ast.h"
#include "support/diagnostics.h"

namespace rop {

// Lexes and parses `file`. Syntax errors are reported to `diags` (E0001-E0099); statements
// that had one are left out of the result. Never throws, crashes or hangs on any input; list
// values nest at most kMaxListDepth deep.
ast::Program parse(FileId file, const SourceManager& sources, DiagnosticEngine& diags);

inline constexpr int kMaxListDepth = 32;

}  // namespace rop
