// What a block of a page image draws, for std.layout's region kinds: how much of its ink is no
// glyph's (none: text that Tesseract's layout analysis took for an image), whether its text lines
// leave a column gap at one place (a table without rules, not prose) and whether a rule spans it.
#pragma once

#include <vector>

#include "rop/stdlib/types.h"
#include "ruled_tables.h"

namespace rop::stdlib::layout::detail {

// The share of the ink in `box` of `image` (gray or RGB; dark: a channel mean below 128) that
// lies in connected components (8-connected) no glyph makes: over 2.5 x `ascent` high or 8 x
// `ascent` wide, or a thin stroke (at most a quarter of `ascent` high and over 3 x `ascent`
// wide, a drawn line); -1 when the box holds no ink. `ascent`: the page's median text-line
// ascent in pixels (-1 when it is not positive). Text scores 0 (up to 0.02 where a glyph touches
// a rule), a drawing's lines and arrows, a photograph or a dark panel far more.
double drawn_share(const Image& image, const PixelBox& box, double ascent);

// True when the text lines `lines` (pixel boxes in `image`) leave a white gap at least `min_gap`
// pixels wide at one place: every x of it is blank in every line that has ink on both sides of
// it, and at least 3 lines and 2/3 of all lines do. Prose fails it (its word gaps never line up
// down a paragraph), and so do leader dots; the columns of a table pass it.
bool column_gap(const Image& image, const std::vector<PixelBox>& lines, int min_gap);

// True when a row of `box` holds a run of dark pixels at least `share` of the box's width: a
// rule across a table (between its header and body, under its last row), which a drawing seldom
// draws from side to side.
bool spanning_rule(const Image& image, const PixelBox& box, double share);

}  // namespace rop::stdlib::layout::detail
