// structure.h (internal to rop_stdlib_assemble): what a page's lines are besides paragraphs and
// headings — list items (a bullet or an enumerator, then text at a hanging indent) and code (lines
// set in a monospace font, kept verbatim with their indentation). Free of the reduces so that the
// line classification is unit-tested on synthetic OCR and text-layer lines.
#pragma once

#include <rop/stdlib/types.h>

#include <string>
#include <string_view>
#include <vector>

#include "listing.h"
#include "text_grid.h"

namespace rop::stdlib::assemble::detail {

// The words each line is made of: both std.pdf.pages (the layer) and std.ocr (Tesseract) build a
// line's text from consecutive words joined by at most one space, so the words are found by
// reading the line texts in order. Where they do not add up (hand-made results), every line gets
// no words.
std::vector<std::vector<const Word*>> words_of_lines(const std::vector<Line>& lines,
                                                     const std::vector<Word>& words);

// Whether a font name is a monospace or a symbol font (font_names.h, shared with std.layout).
bool monospace_font(std::string_view font);
bool symbol_font(std::string_view font);

// The smallest box holding both.
BBox unite(const BBox& a, const BBox& b);

// The lower of the two middle values (the middle one of an odd count); 0 for none.
double lower_median(std::vector<double> values);

// A line's size: its font size when the text layer gave one, else its ascent (baseline to top,
// which descenders do not change; its height when it has no baseline). OCR's lines rank by it.
double line_size(const Line& line);

// Appends a line to a paragraph (or a wrapped table cell): a space between, or nothing where
// "exam-" + "ple" was split (a lowercase letter, a hyphen, then a lowercase letter).
void append_line(std::string& text, const std::string& line);

// Whether two boxes share a row: their vertical overlap is at least half the smaller height
// (text_grid.h, shared with std.layout).
using layout::detail::same_row;

// A line set in a bold face: it has words, and every one has a font name that says bold (the
// text layer's; an OCR line has no font names and is never bold).
bool bold_line(const std::vector<const Word*>& words);

// A line set in a monospace font: all its words are, or all but one when at least two are (a
// character the font lacks may come from a fallback font; prose with inline code has several
// words in a text font).
bool code_line(const std::vector<const Word*>& words);

// Fixed-pitch (monospace) lines told from word boxes alone, for OCR, which gives no font names.
// A monospace word's box spans its characters' cells less the side bearings at its two ends
// (about a quarter of a cell in all), and the distance between two words' left edges is a whole
// number of cells; a proportional font's "i", "m" and "W" give widths per character far apart.
// line_pitch: the pitch the measurable words give together (their widths over their characters
// less the bearings), where a measurable word has two or more characters and a letter or digit at
// both ends (punctuation's ink is narrower than its cell, and OCR misreads it most); 0 when no
// word is measurable.
double line_pitch(const std::vector<const Word*>& words);

// How a line's words and gaps fit `pitch`: a measurable word fits when its width is within 0.45
// cells of its characters' (less the bearings), two neighbours that both start with a letter or
// digit when their left edges are the first one's characters and one or more whole cells of spaces
// apart (within 0.3 of a cell); `fits` and `misfits` count them. A line with none to tell ("}",
// "{\"id\": 7},") has neither; no pitch is one misfit.
struct PitchFit {
    int fits = 0;
    int misfits = 0;
};
PitchFit pitch_fit(const std::vector<const Word*>& words, double pitch);

// The words and gaps that must fit one pitch, over two lines or more, for OCR'd lines to be code
// (a listing, not a table's row of numbers or a title in a wide font).
inline constexpr int kCodeEvidence = 6;

// How a line starts a list item. The markers: a bullet (U+2022, U+25CF, U+25AA, U+25A0, U+25E6,
// U+00B7, U+2013, '-', '*', a one-character word in a symbol font; with `ocr`, also what Tesseract
// reads bullets as: "e", "e@", "©", "°", "«", "+", "¢", and "—" for an en dash) or an enumerator
// ("N." and "N)" with N up to 3 digits, a letter or a roman numeral: "a)", "B.", "(iv)"). `read` is
// the marker as the page has it ("1)", "–", "*"), except a bullet whose glyph the text cannot show
// (a symbol-font letter, Tesseract's "e") reads "•". `sure`: the marker cannot be ordinary text (a
// bullet glyph or a symbol-font word); other markers make a list only as two or more items at one
// indent. `text` is the item's text after the marker, `marker_x` and `text_x` where the marker and
// that text start (points; text_x is -1 when the line has no words to tell).
struct ListStart {
    bool found = false;
    bool sure = false;
    std::string read;
    std::string text;
    double marker_x = 0;
    double text_x = -1;
};
ListStart list_start(const Line& line, const std::vector<const Word*>& words, bool ocr);

// "1." "12)" "a)" "(iv)" "B.": an enumerator, and its Markdown lead ("" when the token is none).
// Numbers have up to 3 digits, letters are one a-z or A-Z or 2-6 lowercase roman digits; "(x"
// needs its ")".
std::string enumerator(const std::string& token);

// A list item as a list block holds it ("<marker as read> <text>", list_start) written as a
// Markdown list line: "- text" for every bullet, "N. text" for "N." and "N)", "- a) text" /
// "- (iv) text" for letters and roman numerals (Markdown has no lettered lists); a line that
// starts with no marker stays as it is.
std::string markdown_item(std::string_view item);

// A code line's text with its layout, and a text's code points (listing.h, shared with std.layout).
using layout::detail::code_points;
using layout::detail::code_text;

}  // namespace rop::stdlib::assemble::detail
