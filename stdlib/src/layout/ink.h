// What a block of a page image draws, for std.layout's region kinds: whether its ink is glyphs
// alone (text that Tesseract's layout analysis took for an image) and whether its text lines
// leave a column gap at one place (a table without rules, not prose).
#pragma once

#include <vector>

#include "rop/stdlib/types.h"
#include "ruled_tables.h"

namespace rop::stdlib::layout::detail {

// True when `box` of `image` (gray or RGB; dark: a channel mean below 128) holds ink and at
// least 98% of it lies in glyph-sized connected components (8-connected): at most 2.5 x `ascent`
// high and 8 x `ascent` wide, and no thin stroke (at most a quarter of `ascent` high and over 3 x
// `ascent` wide, a drawn line). `ascent`: the page's median text-line ascent in pixels. A drawing
// (its lines and arrows), a photograph or a dark panel fails it.
bool glyphs_only(const Image& image, const PixelBox& box, double ascent);

// True when the text lines `lines` (pixel boxes in `image`) leave a white gap at least `min_gap`
// pixels wide at one place: every x of it is blank in every line that has ink on both sides of
// it, and at least 3 lines and 2/3 of all lines do. Prose fails it (its word gaps never line up
// down a paragraph), and so do leader dots; the columns of a table pass it.
bool column_gap(const Image& image, const std::vector<PixelBox>& lines, int min_gap);

}  // namespace rop::stdlib::layout::detail
