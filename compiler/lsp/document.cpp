#include "lsp/document.h"

#include "frontend/parser.h"

namespace rop::lsp {

namespace {

// LSP's DiagnosticSeverity: Error 1, Warning 2, Information 3, Hint 4.
int lsp_severity(Severity severity) {
    switch (severity) {
        case Severity::Fatal:
        case Severity::Error: return 1;
        case Severity::Warning: return 2;
        case Severity::Note: return 3;
    }
    return 1;
}

json to_json(Position position) {
    return {{"line", position.line}, {"character", position.character}};
}

}  // namespace

json to_lsp_range(const SourceManager& sources, SourceRange range) {
    return {{"start", to_json(to_position(sources, range.file, range.begin))},
            {"end", to_json(to_position(sources, range.file, range.end))}};
}

json to_lsp_location(const SourceManager& sources, SourceRange range) {
    return {{"uri", path_to_uri(sources.name(range.file))},
            {"range", to_lsp_range(sources, range)}};
}

void analyze(Document& doc, const Context& context) {
    doc.sources = std::make_unique<SourceManager>();
    doc.file = doc.sources->add_buffer(doc.path, doc.text);
    doc.front = driver::run_front(doc.file, *doc.sources, context.front, context.toolchain);
    // The names as written, also in a file sema rejects (statements with syntax errors are
    // left out of the tree); its diagnostics are already the front half's.
    DiagnosticEngine scratch(*doc.sources);
    doc.symbols = index_symbols(parse(doc.file, *doc.sources, scratch));
    doc.hover_binding.reset();
}

json diagnostics_params(const Document& doc) {
    const SourceManager& sources = *doc.sources;
    json list = json::array();
    for (const Diagnostic& d : doc.front.diagnostics) {
        json item;
        std::string message = d.message;
        if (d.range.file == doc.file) {
            item["range"] = to_lsp_range(sources, d.range);
        } else {
            // Reported inside another file (a C++ header): shown at the top of the pipeline,
            // its own place named, as the text renderer names it.
            const LineCol at = sources.line_col(d.range.file, d.range.begin);
            message = sources.name(d.range.file) + ":" + std::to_string(at.line) + ":" +
                      std::to_string(at.column) + ": " + message;
            item["range"] = {{"start", {{"line", 0}, {"character", 0}}},
                             {"end", {{"line", 0}, {"character", 0}}}};
        }
        item["severity"] = lsp_severity(d.severity);
        item["code"] = std::string(diag_info(d.id).code);
        item["source"] = "ropc";
        item["message"] = message;
        json related = json::array();
        for (const Note& note : d.notes) {
            // A note without a place of its own is shown at its diagnostic's.
            const SourceRange at = note.range ? *note.range : d.range;
            related.push_back(
                {{"location", to_lsp_location(sources, at)}, {"message", note.message}});
        }
        if (!related.empty()) item["relatedInformation"] = std::move(related);
        list.push_back(std::move(item));
    }
    json params = {{"uri", doc.uri}, {"diagnostics", std::move(list)}};
    params["version"] = doc.version;
    return params;
}

}  // namespace rop::lsp
