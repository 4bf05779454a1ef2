// textDocument/formatting (`ropc fmt`'s layout) and textDocument/codeAction (the fix-its of the
// diagnostics under the cursor): the two requests whose answers are edits to the document.
#include "format/format.h"
#include "lsp/document.h"

namespace rop::lsp {

namespace {

json text_edit(const SourceManager& sources, SourceRange range, const std::string& text) {
    return {{"range", to_lsp_range(sources, range)}, {"newText", text}};
}

bool overlaps(SourceRange a, SourceRange b) { return a.begin <= b.end && b.begin <= a.end; }

}  // namespace

std::optional<json> formatting(const Document& doc) {
    DiagnosticEngine diags(*doc.sources);  // a file that does not parse: `ropc check` says why
    const std::optional<std::string> canonical = format::format_file(doc.file, *doc.sources, diags);
    if (!canonical) return std::nullopt;
    const std::string_view text = doc.sources->text(doc.file);
    json edits = json::array();
    if (*canonical != text) {
        const SourceRange all{doc.file, 0, static_cast<std::uint32_t>(text.size())};
        edits.push_back(text_edit(*doc.sources, all, *canonical));
    }
    return edits;
}

json code_actions(const Document& doc, Position begin, Position end) {
    const SourceRange asked{doc.file, to_offset(*doc.sources, doc.file, begin),
                            to_offset(*doc.sources, doc.file, end)};
    const json published = diagnostics_params(doc)["diagnostics"];
    json actions = json::array();
    for (std::size_t i = 0; i < doc.front.diagnostics.size(); ++i) {
        const Diagnostic& d = doc.front.diagnostics[i];
        if (!d.fixit || d.range.file != doc.file || d.fixit->range.file != doc.file ||
            !overlaps(d.range, asked)) {
            continue;
        }
        const std::string& replacement = d.fixit->replacement;
        json edit = {
            {"changes", {{doc.uri, {text_edit(*doc.sources, d.fixit->range, replacement)}}}}};
        actions.push_back(
            {{"title", replacement.empty()
                           ? "Delete (fix-it of " + published[i]["code"].get<std::string>() + ")"
                           : "Replace with '" + replacement + "'"},
             {"kind", "quickfix"},
             {"diagnostics", {published[i]}},
             {"isPreferred", true},
             {"edit", std::move(edit)}});
    }
    return actions;
}

}  // namespace rop::lsp
