// "Did you mean": the closest known name to a misspelt one, by edit distance.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace rop::sema {

// The candidate nearest to `word` when it is close enough to be a plausible typo (at most a
// third of the word's length, and at least one edit), else nothing. Ties go to the first.
std::optional<std::string_view> closest_name(std::string_view word,
                                             const std::vector<std::string_view>& candidates);

}  // namespace rop::sema
