// listing.h (internal to the stdlib, in rop_stdlib_rules): a listing's row as text, each word at
// the column it is set at. std.assemble's code blocks (from the text layer's lines) and
// std.layout's code regions (from a region's words) write their rows with it.
#pragma once

#include <rop/stdlib/types.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rop::stdlib::layout::detail {

// A code line's text with its layout: each word placed at the column its left edge is from `left`
// in characters of `char_width` points (the indentation and runs of spaces survive; poppler drops
// both from its words).
std::string code_text(const std::vector<const Word*>& words, double left, double char_width);

// Characters (UTF-8 code points) of a text.
std::size_t code_points(std::string_view text);

}  // namespace rop::stdlib::layout::detail
