// text_layer.h (internal to rop_stdlib_pdf): std.pdf.pages' reading of a page's native text layer,
// kept free of poppler so it is unit-tested on its own: whether the layer can be trusted (its
// characters decode to readable text, and its words cover the page's ink), and its words grouped
// into lines and paragraphs in reading order.
#pragma once

#include <rop/stdlib/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rop::stdlib::pdf {

// Characters of a text (whitespace not counted): `unreadable` are those a text layer without a
// usable Unicode mapping produces: U+FFFD, private-use code points (U+E000..U+F8FF, planes
// 15-16), control characters, and bytes that are not valid UTF-8 (each counts once).
struct CharCounts {
    std::int64_t total = 0;
    std::int64_t unreadable = 0;
};
CharCounts count_chars(std::string_view utf8);

// Dark pixels of a page image (below kInkLevel; RGB by its mean) and how many of them lie inside
// a word's box grown by `margin` points on every side.
inline constexpr int kInkLevel = 128;
struct InkCoverage {
    std::int64_t pixels = 0;   // the image's pixels
    std::int64_t ink = 0;      // its dark pixels
    std::int64_t covered = 0;  // dark pixels inside a word's box
};
InkCoverage ink_coverage(const Image& image, int dpi, const std::vector<Word>& words,
                         double margin = 1.0);

// Whether a page's text is read from its layer (true) or by OCR, and why, in one line
// ("layer: 120 characters, 97% of the ink in their boxes", "ocr: 40% of 120 characters
// unreadable", "ocr: 0.8% of the page is ink outside the text layer's words (they hold 2% of the
// ink)").
// The layer is used unless more than kMaxUnreadable of its characters are unreadable, or it has
// fewer than kEnoughChars characters while the ink outside its words is more than
// kMaxUncoveredInk of the page and more than the ink inside them (a scan, an image of text, text
// drawn as outlines, with at most a header or a page number as text). A page with enough text is
// read from its layer even when a figure outweighs it; a page without ink and without text is
// "layer": there is nothing to OCR.
inline constexpr double kMaxUnreadable = 0.10;
inline constexpr double kMaxUncoveredInk = 0.002;
inline constexpr std::int64_t kEnoughChars = 200;
struct LayerCheck {
    bool usable = false;
    std::string why;
};
LayerCheck check_layer(const CharCounts& chars, const InkCoverage& ink);

// A word of the layer as poppler lists it, in its reading order.
struct LayerWord {
    Word word;
    bool space_after = true;  // poppler saw a space after it (else the next word touches it)
};

// The words as lines (a word continues a line when it overlaps the line's last word vertically
// by half the smaller height and does not start left of it; words are joined by a space when
// poppler saw one or they are more than kSpaceGap times the word's height apart) and paragraphs (a
// new one where the gap to the previous line exceeds kParagraphGap times the smaller line height,
// where the line overlaps the previous one by more than half the smaller height (the text went back
// up or to the left: a new column), or where the font size changes by more than 15%). Each line's
// font_size is the size most of its characters have; baseline is its box's bottom; block equals
// paragraph.
inline constexpr double kParagraphGap = 0.6;
inline constexpr double kSpaceGap = 0.2;  // words further apart than 0.2 x height: a space
std::vector<Line> group_lines(const std::vector<LayerWord>& words);

}  // namespace rop::stdlib::pdf
