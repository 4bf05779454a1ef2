// "Did you mean": the one rule the compiler (unknown names, options and words in a .rop file,
// ropc's commands) and a pipeline binary's command line (--set, --input, flags) both use to
// guess which known name a user meant. Header-only and standalone: it includes only the
// standard library, so the compiler may include it without depending on the runtime
// (tests/check_layering.sh).
//
// The rule, in order of preference (the first tier with a match wins):
//   1. The same word up to case, separators (`_`, `-`, `.`, space) and a plural `s`/`ies`:
//      batchSize/BATCH -> batch, isolate-tail -> isolate_tail, retry -> retries.
//   2. A prefix either way, at least 3 letters long after folding: batchsize -> batch ("batch"
//      starts it), progres -> progress, single -> single_parent. The candidate whose length is
//      nearest the word's wins, so batchin -> batching rather than batch.
//   3. Edit distance (insert, delete, substitute, swap of neighbours), case-insensitive, at
//      most a third of the word (1 to 3 edits) and never the whole of either word: bach ->
//      batch, traec -> trace; x -> nothing.
// Ties go to the candidate listed first. An identical candidate is never suggested.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rop::vocab {

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
// neighbours each count one. Gives up once a whole row exceeds `limit` (returns limit + 1), so
// comparing a long name against many candidates stays cheap.
inline std::size_t edit_distance(std::string_view a, std::string_view b,
                                 std::size_t limit = static_cast<std::size_t>(-1) - 1) {
    std::vector<std::size_t> before(b.size() + 1);
    std::vector<std::size_t> previous(b.size() + 1);
    std::vector<std::size_t> current(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        current[0] = i;
        std::size_t row_min = current[0];
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t substitute = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitute});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
                current[j] = std::min(current[j], before[j - 2] + 1);
            }
            row_min = std::min(row_min, current[j]);
        }
        if (row_min > limit) return limit + 1;
        std::swap(before, previous);
        std::swap(previous, current);
    }
    return previous[b.size()];
}

// Lower case with separators dropped: "batch_size", "batchSize" and "BATCH-SIZE" all fold to
// "batchsize".
inline std::string fold(std::string_view word) {
    std::string out;
    out.reserve(word.size());
    for (char c : word) {
        if (c == '_' || c == '-' || c == '.' || c == ' ') continue;
        out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    }
    return out;
}

// A folded word without its plural ending: "retries" -> "retry", "actors" -> "actor".
inline std::string singular(std::string folded) {
    if (folded.size() > 3 && folded.ends_with("ies")) {
        folded.resize(folded.size() - 3);
        folded += 'y';
    } else if (folded.size() > 1 && folded.ends_with('s') && !folded.ends_with("ss")) {
        folded.pop_back();
    }
    return folded;
}

namespace detail {

inline constexpr std::size_t kNoMatch = static_cast<std::size_t>(-1);

inline std::size_t gap(std::size_t a, std::size_t b) { return a > b ? a - b : b - a; }

inline std::string lower(std::string_view word) {
    std::string out(word);
    for (char& c : out) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
}

}  // namespace detail

// The index in `candidates` of the name the user most likely meant by `word`, or nothing.
// `candidates` is any range of things that convert to std::string_view.
template <class Range>
std::optional<std::size_t> closest_index(std::string_view word, const Range& candidates) {
    constexpr std::size_t kMinPrefix = 3;
    const std::string folded = fold(word);
    const std::string folded_one = singular(folded);
    const std::string lowered = detail::lower(word);
    const std::size_t limit = std::clamp<std::size_t>(word.size() / 3, 1, 3);

    std::size_t same = detail::kNoMatch;    // tier 1
    std::size_t prefix = detail::kNoMatch;  // tier 2
    std::size_t prefix_gap = 0;
    std::size_t nearest = detail::kNoMatch;  // tier 3
    std::size_t nearest_distance = limit + 1;
    std::size_t index = 0;
    for (const auto& element : candidates) {
        const std::string_view candidate(element);
        const std::size_t i = index++;
        if (candidate == word || candidate.empty()) continue;
        const std::string c = fold(candidate);
        if (same == detail::kNoMatch && !folded.empty() &&
            (c == folded || singular(c) == folded_one)) {
            same = i;
            continue;
        }
        if (same != detail::kNoMatch) continue;
        const bool is_prefix = std::min(c.size(), folded.size()) >= kMinPrefix && c != folded &&
                               (folded.starts_with(c) || c.starts_with(folded));
        if (is_prefix) {
            const std::size_t g = detail::gap(c.size(), folded.size());
            if (prefix == detail::kNoMatch || g < prefix_gap) {
                prefix = i;
                prefix_gap = g;
            }
            continue;
        }
        if (prefix != detail::kNoMatch) continue;
        if (detail::gap(candidate.size(), word.size()) > limit) continue;
        const std::size_t distance = edit_distance(lowered, detail::lower(candidate), limit);
        if (distance < nearest_distance && distance < word.size() && distance < candidate.size()) {
            nearest = i;
            nearest_distance = distance;
        }
    }
    if (same != detail::kNoMatch) return same;
    if (prefix != detail::kNoMatch) return prefix;
    if (nearest != detail::kNoMatch) return nearest;
    return std::nullopt;
}

// The name itself, viewing into `candidates`.
template <class Range>
std::optional<std::string_view> closest(std::string_view word, const Range& candidates) {
    const std::optional<std::size_t> i = closest_index(word, candidates);
    if (!i) return std::nullopt;
    auto it = std::begin(candidates);
    std::advance(it, static_cast<std::ptrdiff_t>(*i));
    return std::string_view(*it);
}

}  // namespace rop::vocab
