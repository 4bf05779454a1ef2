// Suggestions and option spelling for the pipeline command line.
#include "cli_text.h"

#include <algorithm>

namespace rop::runtime::cli {

namespace {

// Optimal string alignment distance (edits and adjacent transpositions), case-sensitive.
std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
            }
        }
    }
    return d[a.size()][b.size()];
}

}  // namespace

std::string closest(std::string_view word, const std::vector<std::string>& candidates) {
    // Close enough: at most a third of the word wrong (at least 1, at most 3 edits), and never
    // the whole of a short candidate (so "x" does not suggest "ocr").
    const std::size_t limit = std::clamp<std::size_t>(word.size() / 3, 1, 3);
    std::string best;
    std::size_t best_distance = limit + 1;
    for (const std::string& c : candidates) {
        const std::size_t dist = edit_distance(word, c);
        if (dist < best_distance && dist < c.size()) {
            best = c;
            best_distance = dist;
        }
    }
    return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
    const std::string best = closest(word, candidates);
    return best.empty() ? std::string() : "; did you mean '" + best + "'?";
}

std::string format_duration(std::int64_t ms) {
    if (ms == 0) return "none";
    if (ms % 3'600'000 == 0) return std::to_string(ms / 3'600'000) + "h";
    if (ms % 60'000 == 0) return std::to_string(ms / 60'000) + "m";
    if (ms % 1000 == 0) return std::to_string(ms / 1000) + "s";
    return std::to_string(ms) + "ms";
}

const char* kind_name(CallKind kind) {
    switch (kind) {
        case CallKind::Map:
            return "map";
        case CallKind::Filter:
            return "filter";
        case CallKind::Expand:
            return "expand";
        case CallKind::Broadcast:
            return "broadcast";
        case CallKind::Reduce:
            return "reduce";
    }
    return "?";
}

const char* recovery_name(Recovery recovery) {
    switch (recovery) {
        case Recovery::Abort:
            return "abort";
        case Recovery::RetryBatch:
            return "retry_batch";
        case Recovery::RetryTail:
            return "retry_tail";
        case Recovery::IsolateTail:
            return "isolate_tail";
    }
    return "?";
}

const char* batching_name(Batching batching) {
    return batching == Batching::AnyParent ? "any_parent" : "single_parent";
}

std::string format_options(const CallOptions& o) {
    std::string s = "batch " + std::to_string(o.batch) + " actors " + std::to_string(o.actors) +
                    " recovery " + recovery_name(o.recovery) + " retries " +
                    std::to_string(o.retries) + " infra_retries " +
                    std::to_string(o.infra_retries) + " timeout " +
                    format_duration(o.timeout.count()) + " batching " + batching_name(o.batching);
    return s;
}

}  // namespace rop::runtime::cli
