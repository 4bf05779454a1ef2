// layout::detail::holds_letter_or_digit: which words fill a table cell on an OCR'd page, for
// std.ocr.RegionText and std.assemble's tables alike. A full table: ASCII letters and digits,
// ASCII marks, Latin-1 signs and letters, the punctuation, symbol, arrow and box-drawing blocks,
// CJK punctuation and letters, fullwidth marks, specials, and malformed UTF-8.
#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "text_grid.h"

using rop::stdlib::layout::detail::holds_letter_or_digit;

TEST_CASE("a word fills a cell when it holds a letter or a digit in any script") {
    struct Case {
        std::string text;
        bool holds;
    };
    const std::vector<Case> cases = {
        {"", false},
        {"a", true},
        {"Z", true},
        {"7", true},
        {"__", false},
        {"|", false},
        {".", false},
        {"-", false},
        {"$", false},
        {"(a)", true},
        {"\u00b7", false},  // middle dot, Latin-1 punctuation
        {"\u00a7", false},  // section sign
        {"\u00bf", false},  // inverted question mark: the last of Latin-1's signs
        {"\u00c0", true},   // A with grave: the first of its letters
        {"\u00d7", false},  // multiplication sign
        {"\u00f7", false},  // division sign
        {"\u00e9", true},   // e acute alone
        {"Gr\u00f6\u00dfe", true},
        {"\u2013", false},        // en dash
        {"\u2014\u2014", false},  // em dashes: a rule
        {"\u2022", false},        // bullet
        {"\u20ac", false},        // euro sign
        {"\u2192", false},        // arrow
        {"\u2500\u2502", false},  // box drawing
        {"\u25a0", false},        // black square
        {"\u2bff", false},        // the last of the symbol blocks
        {"\u2c00", true},         // Glagolitic: a letter after them
        {"\u3001", false},        // ideographic comma
        {"\u65e5\u672c", true},   // CJK letters
        {"\uff01", false},        // fullwidth exclamation mark
        {"\uff10", true},         // fullwidth digit zero
        {"\ufffd", false},        // replacement character
        {"\U0001F600", true},     // beyond the BMP: not a mark this rule knows
        {"\xe2\x80", true},       // a truncated sequence: kept
        {"\x80", true},           // a stray continuation byte: kept
        {"\xc3(", true},          // a lead byte without its continuation: kept
    };
    for (const Case& c : cases) {
        INFO("text \"" << c.text << "\"");
        CHECK(holds_letter_or_digit(c.text) == c.holds);
    }
}
