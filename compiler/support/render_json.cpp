// The JSON renderer: one array of diagnostic objects, for tools and tests.
#include <nlohmann/json.hpp>

#include "support/diagnostics.h"
#include "support/render_common.h"

namespace rop {

namespace {

using json = nlohmann::ordered_json;  // keys in the order written: "kind" first

void put_span(json& object, const detail::Span& span) {
    object["file"] = span.file;
    object["line"] = span.line;
    object["column"] = span.column;
    object["end_line"] = span.end_line;
    object["end_column"] = span.end_column;
}

}  // namespace

std::string render_json(const SourceManager& sources, const std::vector<Diagnostic>& diags,
                        const std::vector<RunFailure>& failures) {
    json out = json::array();
    for (const RunFailure& failure : failures) {
        json item;
        item["id"] = std::string(diag_info(DiagId::UnreadableFile).code);
        item["severity"] = to_string(Severity::Fatal);
        item["file"] = failure.file;
        item["message"] = failure.message;
        item["notes"] = json::array();
        item["fixit"] = nullptr;
        out.push_back(std::move(item));
    }
    for (const Diagnostic& d : diags) {
        json item;
        item["id"] = std::string(diag_info(d.id).code);
        item["severity"] = to_string(d.severity);
        put_span(item, detail::resolve(sources, d.range));
        item["message"] = d.message;
        item["notes"] = json::array();
        for (const Note& note : d.notes) {
            json n;
            n["message"] = note.message;
            if (note.range) put_span(n, detail::resolve(sources, *note.range));
            item["notes"].push_back(std::move(n));
        }
        item["fixit"] = nullptr;
        if (d.fixit) {
            json fix;
            put_span(fix, detail::resolve(sources, d.fixit->range));
            fix["replacement"] = d.fixit->replacement;
            item["fixit"] = std::move(fix);
        }
        out.push_back(std::move(item));
    }
    // Source text may hold invalid UTF-8 (it reaches messages as quoted tokens); replace it
    // rather than throw.
    return out.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace rop
