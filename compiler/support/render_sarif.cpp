// The SARIF 2.1.0 renderer, for code-scanning annotations in CI (GitHub, GitLab, Azure).
// Columns are SourceManager's, Unicode code points (run.columnKind). A file that could not be
// read is a tool execution notification and makes the invocation unsuccessful.
#include <nlohmann/json.hpp>

#include "support/diagnostics.h"
#include "support/render_common.h"

namespace rop {

namespace {

using json = nlohmann::ordered_json;  // keys in the order written: "kind" first

const char* sarif_level(Severity severity) {
    switch (severity) {
        case Severity::Note: return "note";
        case Severity::Warning: return "warning";
        case Severity::Error:
        case Severity::Fatal: return "error";
    }
    return "error";
}

// A relative URI reference: keep unreserved characters and '/', percent-encode the rest.
std::string to_uri(const std::string& path) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (char c : path) {
        auto byte = static_cast<unsigned char>(c);
        bool plain = (byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') ||
                     (byte >= '0' && byte <= '9') || c == '-' || c == '.' || c == '_' || c == '~' ||
                     c == '/';
        if (c == '\\') {
            out += '/';
        } else if (plain) {
            out += c;
        } else {
            out += '%';
            out += hex[byte >> 4];
            out += hex[byte & 0xF];
        }
    }
    return out;
}

json region(const detail::Span& span) {
    return {{"startLine", span.line},
            {"startColumn", span.column},
            {"endLine", span.end_line},
            {"endColumn", span.end_column}};
}

json physical_location(const SourceManager& sources, const SourceRange& range) {
    detail::Span span = detail::resolve(sources, range);
    json location = {{"artifactLocation", {{"uri", to_uri(span.file)}}}};
    if (span.known) location["region"] = region(span);
    return location;
}

// The catalogue never changes during a run, so its rules are built once.
const json& rules() {
    static const json out = [] {
        json all = json::array();
        for (const DiagInfo& info : diag_catalog()) {
            all.push_back({{"id", info.code},
                           {"name", info.name},
                           {"shortDescription", {{"text", info.summary}}},
                           {"defaultConfiguration", {{"level", sarif_level(info.severity)}}}});
        }
        return all;
    }();
    return out;
}

json result(const SourceManager& sources, const Diagnostic& d) {
    const DiagInfo& info = diag_info(d.id);
    json out = {
        {"ruleId", info.code},
        {"ruleIndex", static_cast<std::size_t>(d.id)},
        {"level", sarif_level(d.severity)},
        {"message", {{"text", d.message}}},
        {"locations", json::array({{{"physicalLocation", physical_location(sources, d.range)}}})}};
    if (!d.notes.empty()) {
        json related = json::array();
        for (std::size_t i = 0; i < d.notes.size(); ++i) {
            json location = {{"id", i}, {"message", {{"text", d.notes[i].message}}}};
            if (d.notes[i].range) {
                location["physicalLocation"] = physical_location(sources, *d.notes[i].range);
            }
            related.push_back(std::move(location));
        }
        out["relatedLocations"] = std::move(related);
    }
    if (d.fixit) {
        json location = physical_location(sources, d.fixit->range);
        json replacement = {{"deletedRegion", location.value("region", json::object())},
                            {"insertedContent", {{"text", d.fixit->replacement}}}};
        json change = {{"artifactLocation", location["artifactLocation"]},
                       {"replacements", json::array({replacement})}};
        bool insertion = d.fixit->range.begin == d.fixit->range.end;
        std::string what = (insertion ? "insert '" : "replace with '") + d.fixit->replacement + "'";
        out["fixes"] = json::array(
            {{{"description", {{"text", what}}}, {"artifactChanges", json::array({change})}}});
    }
    return out;
}

// One invocation: successful unless an input could not be read; each such file is an
// error-level notification naming it and the reason, tied to rule F0002.
json invocation(const std::vector<RunFailure>& failures) {
    json notifications = json::array();
    for (const RunFailure& failure : failures) {
        notifications.push_back(
            {{"level", "error"},
             {"message", {{"text", failure.message}}},
             {"locations",
              json::array({{{"physicalLocation",
                             {{"artifactLocation", {{"uri", to_uri(failure.file)}}}}}}})},
             {"associatedRule",
              {{"id", std::string(diag_info(DiagId::UnreadableFile).code)},
               {"index", static_cast<std::size_t>(DiagId::UnreadableFile)}}}});
    }
    json out = {{"executionSuccessful", failures.empty()}};
    if (!failures.empty()) out["toolExecutionNotifications"] = std::move(notifications);
    return out;
}

}  // namespace

std::string render_sarif(const SourceManager& sources, const std::vector<Diagnostic>& diags,
                         std::string_view tool_version, const std::vector<RunFailure>& failures) {
    json results = json::array();
    for (const Diagnostic& d : diags) results.push_back(result(sources, d));
    json driver = {{"name", "ropc"}, {"version", std::string(tool_version)}, {"rules", rules()}};
    json log = {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                {"version", "2.1.0"},
                {"runs", json::array({{{"tool", {{"driver", driver}}},
                                       {"invocations", json::array({invocation(failures)})},
                                       {"columnKind", "unicodeCodePoints"},
                                       {"results", results}}})}};
    return log.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace rop
