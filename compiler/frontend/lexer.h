// The lexer: turns one file's text into tokens, reporting lexical errors (E0001-E0005) and
// skipping comments (`#` and `//` to end of line). Never fails: bad input becomes an Error token.
#pragma once

#include <vector>

#include "frontend/token.h"
#include "support/diagnostics.h"

namespace rop {

// All tokens of `file`, ending with exactly one Eof token. Error tokens (runs of invalid
// characters) are already reported; parse() drops them before parsing.
std::vector<Token> lex(FileId file, const SourceManager& sources, DiagnosticEngine& diags);

}  // namespace rop
