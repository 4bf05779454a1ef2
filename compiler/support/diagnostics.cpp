// The diagnostic catalogue and the engine that collects, orders, deduplicates and caps reports.
#include "support/diagnostics.h"

#include <algorithm>
#include <tuple>

namespace rop {

const std::vector<DiagInfo>& diag_catalog() {
    static const std::vector<DiagInfo> catalog = {
#define ROP_DIAG(name, code, severity, summary) \
    DiagInfo{DiagId::name, code, Severity::severity, summary, #name},
#include "support/diag_catalog.def"
#undef ROP_DIAG
    };
    return catalog;
}

const DiagInfo& diag_info(DiagId id) { return diag_catalog().at(static_cast<std::size_t>(id)); }

std::optional<DiagId> diag_by_code(std::string_view code) {
    for (const DiagInfo& info : diag_catalog()) {
        if (info.code == code) return info.id;
    }
    return std::nullopt;
}

const char* to_string(Severity severity) {
    switch (severity) {
        case Severity::Note: return "note";
        case Severity::Warning: return "warning";
        case Severity::Error: return "error";
        case Severity::Fatal: return "fatal error";
    }
    return "error";
}

Diagnostic& DiagnosticEngine::report(DiagId id, SourceRange range, std::string message) {
    diags_.push_back(Diagnostic{id, diag_info(id).severity, range, std::move(message), {}, {}});
    return diags_.back();
}

Severity DiagnosticEngine::effective(Severity severity) const {
    return werror_ && severity == Severity::Warning ? Severity::Error : severity;
}

std::size_t DiagnosticEngine::error_count() const {
    return static_cast<std::size_t>(std::count_if(diags_.begin(), diags_.end(), [&](const auto& d) {
        return effective(d.severity) >= Severity::Error;
    }));
}

std::size_t DiagnosticEngine::warning_count() const {
    return static_cast<std::size_t>(std::count_if(diags_.begin(), diags_.end(), [&](const auto& d) {
        return effective(d.severity) == Severity::Warning;
    }));
}

bool DiagnosticEngine::has_errors() const { return error_count() > 0; }

std::vector<Diagnostic> DiagnosticEngine::finish() const {
    std::vector<Diagnostic> sorted = diags_;
    for (Diagnostic& d : sorted) d.severity = effective(d.severity);
    // Stable: reports at one position keep the order the checks made them in.
    std::stable_sort(sorted.begin(), sorted.end(), [](const Diagnostic& a, const Diagnostic& b) {
        return std::tie(a.range.file, a.range.begin, a.range.end) <
               std::tie(b.range.file, b.range.begin, b.range.end);
    });
    // Duplicates share a range, so after sorting they sit in one run of equal ranges.
    std::vector<Diagnostic> unique;
    std::size_t run_begin = 0;
    for (Diagnostic& d : sorted) {
        if (!unique.empty() && !(unique.back().range == d.range)) run_begin = unique.size();
        bool seen = std::any_of(
            unique.begin() + static_cast<std::ptrdiff_t>(run_begin), unique.end(),
            [&](const Diagnostic& u) { return u.id == d.id && u.message == d.message; });
        if (!seen) unique.push_back(std::move(d));
    }
    sorted = std::move(unique);

    if (max_errors_ == 0) return sorted;
    std::size_t errors = 0;
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        if (sorted[i].severity < Severity::Error) continue;
        if (++errors <= max_errors_) continue;
        SourceRange at = sorted[i].range;
        sorted.resize(i);
        sorted.push_back(Diagnostic{
            DiagId::TooManyErrors,
            Severity::Fatal,
            at,
            "too many errors emitted, stopping now (limit " + std::to_string(max_errors_) + ")",
            {},
            {}});
        break;
    }
    return sorted;
}

}  // namespace rop
