// UTF-8 as the compiler reads it: well-formed sequences, code points, how a character is named
// in a message and how wide it is on a terminal. One definition, so the lexer, the column numbers
// and the renderers agree on what a character is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace rop::utf8 {

// Length (1-4) of the well-formed UTF-8 sequence that starts at text[at], or 0 when the byte
// there starts none: a stray continuation byte, an overlong form, a surrogate, a code point
// above U+10FFFF, or a sequence cut short (Unicode's Table 3-7). Requires at < text.size().
std::size_t sequence_length(std::string_view text, std::size_t at);

// The code point of the well-formed sequence of `length` bytes at text[at].
char32_t decode(std::string_view text, std::size_t at, std::size_t length);

// Appends the UTF-8 encoding of a Unicode scalar value.
void append(std::string& out, char32_t cp);

// "U+00E9": how a message names a code point.
std::string code_point_name(char32_t cp);

// True for code points that print nothing or change how the text around them is shown:
// C0/C1 controls, DEL, soft hyphen, zero-width and bidirectional formatting characters, the
// BOM. A message shows them escaped and the source snippet replaces them.
bool is_invisible(char32_t cp);

// Spaces other than ASCII's (no-break space, em space, ideographic space...): they look like a
// blank, so a message spells them out.
bool is_unicode_space(char32_t cp);

// `text` fit for a one-line message: printable characters as they are; invisible characters and
// spaces other than ' ' as \u{XXXX} (the language's own escape); bytes that are not UTF-8 as
// \xNN. More than `max_chars` characters are cut, with "..." after them.
std::string printable(std::string_view text, std::size_t max_chars);

// Terminal columns a printable code point takes: 2 for East Asian wide and fullwidth characters
// (CJK, Hangul, most emoji), 0 for combining marks, else 1.
unsigned display_width(char32_t cp);

// Whether a non-ASCII code point can be part of a word, i.e. is not punctuation, a symbol, a
// space or invisible. The lexer reads such a character next to a name as part of the name (and
// rejects the name once) instead of splitting the name around it.
bool is_word_like(char32_t cp);

}  // namespace rop::utf8
