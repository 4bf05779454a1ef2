// One open `.rop` document as the server holds it: its text, what the front half made of it
// (diagnostics, sema's tables, the binding when it ran) and the names it writes. Shared by the
// protocol loop (server.cpp) and the features that answer requests about it (features.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "driver/front.h"
#include "lsp/positions.h"
#include "lsp/symbols.h"
#include "lsp/udf_index.h"

namespace rop::lsp {

using json = nlohmann::json;

struct Document {
    std::string uri;
    std::string path;  // from the URI: `use` paths are relative to its folder
    std::string text;
    std::int64_t version = 0;

    // Rebuilt by every analysis; `sources` also holds the C++ headers binding's notes point into.
    std::unique_ptr<SourceManager> sources;
    FileId file = 0;
    driver::FrontResult front;
    SymbolIndex symbols;
    // A binding made for hover when the server does not bind as it checks: run once per text
    // the first time a stream's C++ type is asked for. Empty when binding reported errors.
    std::optional<std::optional<bind::BoundProgram>> hover_binding;
};

// What every feature may use besides the document.
struct Context {
    driver::FrontOptions front;  // as `ropc check` with the server's -I and --bind
    driver::Toolchain toolchain;
    UdfIndex* udfs = nullptr;
};

// Runs the front half over `doc.text` (as `ropc check` would over the file) and indexes it.
void analyze(Document& doc, const Context& context);
// The `textDocument/publishDiagnostics` params for `doc`.
json diagnostics_params(const Document& doc);

// The results of textDocument/hover, definition and completion at `position` (null: none).
json hover(Document& doc, Position position, Context& context);
json definition(Document& doc, Position position, Context& context);
json completion(Document& doc, Position position, Context& context);
// textDocument/formatting: one edit to `ropc fmt`'s layout ([] when already canonical), or
// nothing when the text does not parse. textDocument/codeAction: a quick fix for each fix-it of
// a diagnostic over [begin, end].
std::optional<json> formatting(const Document& doc);
// textDocument/documentSymbol: the streams and Domains the file defines, in source order.
json document_symbols(const Document& doc);
json code_actions(const Document& doc, Position begin, Position end);

// An LSP Range for `range` of `sources` (any file it holds).
json to_lsp_range(const SourceManager& sources, SourceRange range);
// An LSP Location: the file's URI and the range.
json to_lsp_location(const SourceManager& sources, SourceRange range);

}  // namespace rop::lsp
