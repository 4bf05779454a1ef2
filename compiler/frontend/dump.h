// Text dumps of the front end's stages for `ropc --emit=tokens|ast` and for tests.
#pragma once

#include <string>
#include <vector>

#include "frontend/ast.h"
#include "frontend/token.h"

namespace rop {

// One token per line: `line:col kind 'text'`, e.g. `3:8 kw_map 'map'`; the Eof token last.
std::string dump_tokens(const std::vector<Token>& tokens, const SourceManager& sources);

// The syntax tree as indented JSON; every node has "kind" and "range" ("line:col-line:col",
// end exclusive).
std::string dump_ast_json(const ast::Program& program, const SourceManager& sources);

}  // namespace rop
