// text_grid.h (internal to the stdlib, in rop_stdlib_rules): a table's rows and columns from
// where its words stand, for a table that rules do not divide into columns. std.assemble's
// from_page (framed tables and tables set without rules) and std.layout's table regions on
// text-layer pages build their grids with it.
#pragma once

#include <rop/stdlib/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rop::stdlib::layout::detail {

// Whether two boxes share a row: their vertical overlap is at least half the smaller height.
bool same_row(const BBox& a, const BBox& b);

// Wider than a space between two words of one cell (points).
inline constexpr double kColumnGap = 8;

// A piece of text inside a table: a word, or a line when there are no words.
struct TextPiece {
    BBox box;
    std::string text;
};

struct TextGrid {
    int rows = 0;
    int cols = 0;
    std::vector<TableCell> cells;  // row by row, every cell of the grid
};

// The grid of the pieces inside `table`: a row per text line (pieces that share a row, top to
// bottom), a column edge in each vertical band at least kColumnGap wide that no piece covers,
// each row from halfway to the row above to halfway to the row below; a cell's text its pieces
// left to right. None unless it makes 3 rows or more and 2 columns or more of 4 pieces or more.
std::optional<TextGrid> grid_from_pieces(const BBox& table, std::vector<TextPiece> pieces);

// A table's text: its rows (cells row by row) a line each, the cells joined by " | ".
std::string table_text(const std::vector<TableCell>& cells);

// Whether `text` holds a letter or a digit: an ASCII one, or a code point above U+00BF outside
// the punctuation and symbol blocks (U+00D7, U+00F7, U+2000-U+2BFF, U+3000-U+303F,
// U+FF00-U+FF0F, U+FFF0-U+FFFF). A word without one is a mark OCR read from a rule or a speck
// ("__", "|", ".", a dash, a bullet) and fills no cell; a malformed UTF-8 byte counts as a
// letter (text that cannot be read is not dropped). std.ocr.RegionText and std.assemble's
// tables on OCR'd pages keep the same words with it.
bool holds_letter_or_digit(std::string_view text);

// A table region's grid from `pieces` (grid_from_pieces over its box): its rows, cols, cells
// and text (table_text). False, leaving the region as it is, when they make none. std.layout's
// regions on text-layer pages and std.ocr.RegionText's OCR'd ones take their grids with it.
bool grid_into(Region& region, std::vector<TextPiece> pieces);

}  // namespace rop::stdlib::layout::detail
