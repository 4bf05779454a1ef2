// rule_candidates.h (internal to rop_stdlib_pdf): whether what a page paints could hold a table
// drawn with rules, judged from its marks (core.h) instead of its pixels, so that std.pdf.pages
// leaves unrendered a page whose text comes from its layer and that cannot hold one. Kept free
// of poppler so it is unit-tested on its own.
#pragma once

#include <rop/stdlib/types.h>

#include <string>
#include <string_view>
#include <vector>

namespace rop::stdlib::pdf {

// std.layout's rule finder (find_ruled_tables) at `dpi`, in points: a horizontal rule is a dark
// run of at least `row_min`, a vertical one at least `column_min`, rules within `tolerance` of
// each other cross, and a pixel is `pixel` wide.
struct RuleThresholds {
    double row_min = 0;
    double column_min = 0;
    double tolerance = 0;
    double pixel = 0;
};
RuleThresholds rule_thresholds(int dpi);

// A group of marks that could hold a ruled table: marks closer than the rule finder's tolerance
// plus two pixels (antialiasing bleeds a pixel on each side) join one group, and a group is a
// candidate when it is at least a horizontal rule wide and a vertical rule tall (two pixels
// less): nothing smaller can hold two rules of each direction that cross. A group made only of
// thin marks (each no thicker than the tolerance: a stroke's segment, a filled bar) is one only
// when its marks lie at three rows or columns and two of the other, enough for two cells: a
// frame around one cell is not a table to the rule finder. A superset of what the rule finder
// can find in the page's image.
struct RuleCandidate {
    BBox box;
    int marks = 0;
};
// More marks than this are not grouped (pairs grow as their square): the page is a drawing,
// and one candidate covering all its marks stands for it.
inline constexpr std::size_t kMaxGroupedMarks = 4000;
std::vector<RuleCandidate> rule_candidates(const std::vector<BBox>& marks, int dpi);

// A word of the text layer that draws a rule with glyphs: only underscores, hyphens and dashes,
// equals signs, vertical bars, plus signs and box-drawing characters (U+2500..U+257F), as in
// "________" or an ASCII-art table. Its box counts as a mark.
bool rule_word(std::string_view utf8);

// "a 260x84 pt group of 14 marks at (72, 400) pt": why a page needs its image.
std::string describe(const RuleCandidate& candidate);

}  // namespace rop::stdlib::pdf
