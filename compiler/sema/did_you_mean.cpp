#include "sema/did_you_mean.h"

#include <algorithm>
#include <cstddef>

namespace rop::sema {

namespace {

// Edit distance counting a swap of two neighbours as one edit (optimal string alignment), so
// "Pgae" is one edit from "Page". Three rows; gives up once a whole row exceeds `limit`.
std::size_t edit_distance(std::string_view a, std::string_view b, std::size_t limit) {
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

}  // namespace

std::optional<std::string_view> closest_name(std::string_view word,
                                             const std::vector<std::string_view>& candidates) {
    const std::size_t limit = std::max<std::size_t>(1, word.size() / 3);
    std::optional<std::string_view> best;
    std::size_t best_distance = limit + 1;
    for (std::string_view candidate : candidates) {
        const std::size_t length_gap = candidate.size() > word.size()
                                           ? candidate.size() - word.size()
                                           : word.size() - candidate.size();
        if (length_gap > limit || candidate == word) continue;
        const std::size_t distance = edit_distance(word, candidate, limit);
        if (distance < best_distance && distance < word.size()) {
            best = candidate;
            best_distance = distance;
        }
    }
    return best;
}

}  // namespace rop::sema
