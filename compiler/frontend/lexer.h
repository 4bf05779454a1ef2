// The lexer: turns one file's text into tokens, reporting lexical errors (E0001-E0005) and
// skipping comments (`#` and `//` to end of line). Never fails: bad input becomes an Error token.
#pragma once

#include <vector>

#include "frontend/token.h"
#include "support/diagnostics.h"

namespace rop {

// All tokens of `file`, ending with exactly one Eof token. Error tokens (runs of invalid
// characters) are already reported; parse() drops them before parsing. When `comments` is given,
// the range of every comment (from its `#` or `//` to the end of its line, line end excluded) is
// appended to it in source order, for `ropc fmt`; the tokens are the same either way.
std::vector<Token> lex(FileId file, const SourceManager& sources, DiagnosticEngine& diags,
                       std::vector<SourceRange>* comments = nullptr);

}  // namespace rop
