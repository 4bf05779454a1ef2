// UTF-8 decoding and the few Unicode properties the compiler needs, from small range tables
// (no ICU): enough to name a character, line a caret up under it and tell a letter from a symbol.
#include "support/utf8.h"

#include <algorithm>
#include <iterator>

namespace rop::utf8 {

namespace {

struct Range {
    char32_t first;
    char32_t last;
};

template <std::size_t N>
bool in(const Range (&table)[N], char32_t cp) {
    const Range* it = std::upper_bound(std::begin(table), std::end(table), cp,
                                       [](char32_t c, const Range& r) { return c < r.first; });
    return it != std::begin(table) && cp <= std::prev(it)->last;
}

bool continuation(unsigned char byte, unsigned char low = 0x80, unsigned char high = 0xBF) {
    return byte >= low && byte <= high;
}

// Sorted, disjoint. East Asian Wide and Fullwidth blocks and the emoji blocks.
constexpr Range kWide[] = {
    {0x1100, 0x115F},   {0x231A, 0x231B},   {0x2329, 0x232A},   {0x23E9, 0x23EC},
    {0x23F0, 0x23F0},   {0x23F3, 0x23F3},   {0x25FD, 0x25FE},   {0x2614, 0x2615},
    {0x2648, 0x2653},   {0x267F, 0x267F},   {0x2693, 0x2693},   {0x26A1, 0x26A1},
    {0x26AA, 0x26AB},   {0x26BD, 0x26BE},   {0x26C4, 0x26C5},   {0x26CE, 0x26CE},
    {0x26D4, 0x26D4},   {0x26EA, 0x26EA},   {0x26F2, 0x26F3},   {0x26F5, 0x26F5},
    {0x26FA, 0x26FA},   {0x26FD, 0x26FD},   {0x2705, 0x2705},   {0x270A, 0x270B},
    {0x2728, 0x2728},   {0x274C, 0x274C},   {0x274E, 0x274E},   {0x2753, 0x2755},
    {0x2757, 0x2757},   {0x2795, 0x2797},   {0x27B0, 0x27B0},   {0x27BF, 0x27BF},
    {0x2B1B, 0x2B1C},   {0x2B50, 0x2B50},   {0x2B55, 0x2B55},   {0x2E80, 0x303E},
    {0x3041, 0x33FF},   {0x3400, 0x4DBF},   {0x4E00, 0x9FFF},   {0xA000, 0xA4CF},
    {0xA960, 0xA97F},   {0xAC00, 0xD7A3},   {0xF900, 0xFAFF},   {0xFE10, 0xFE19},
    {0xFE30, 0xFE6F},   {0xFF00, 0xFF60},   {0xFFE0, 0xFFE6},   {0x16FE0, 0x16FE4},
    {0x17000, 0x18CFF}, {0x1B000, 0x1B2FF}, {0x1F004, 0x1F004}, {0x1F0CF, 0x1F0CF},
    {0x1F18E, 0x1F18E}, {0x1F191, 0x1F19A}, {0x1F200, 0x1F2FF}, {0x1F300, 0x1F64F},
    {0x1F680, 0x1F6FF}, {0x1F7E0, 0x1F7EB}, {0x1F90C, 0x1F9FF}, {0x1FA70, 0x1FAFF},
    {0x20000, 0x2FFFD}, {0x30000, 0x3FFFD},
};

// Combining marks that draw over the character before them.
constexpr Range kZeroWidth[] = {
    {0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD},   {0x05BF, 0x05BF}, {0x05C1, 0x05C2},
    {0x05C4, 0x05C5}, {0x05C7, 0x05C7}, {0x0610, 0x061A},   {0x064B, 0x065F}, {0x0670, 0x0670},
    {0x06D6, 0x06DC}, {0x06DF, 0x06E4}, {0x06E7, 0x06E8},   {0x06EA, 0x06ED}, {0x0E31, 0x0E31},
    {0x0E34, 0x0E3A}, {0x0E47, 0x0E4E}, {0x1AB0, 0x1AFF},   {0x1DC0, 0x1DFF}, {0x20D0, 0x20FF},
    {0xFE00, 0xFE0F}, {0xFE20, 0xFE2F}, {0xE0100, 0xE01EF},
};

// Code points that print nothing or reorder or hide text: C0 and C1 controls, DEL, soft hyphen,
// zero-width, line/paragraph separators, bidirectional controls, invisible operators, BOM,
// interlinear annotation, tags.
constexpr Range kInvisible[] = {
    {0x0000, 0x001F}, {0x007F, 0x009F}, {0x00AD, 0x00AD},   {0x061C, 0x061C},
    {0x180E, 0x180E}, {0x200B, 0x200F}, {0x2028, 0x202E},   {0x2060, 0x206F},
    {0xFEFF, 0xFEFF}, {0xFFF9, 0xFFFB}, {0xE0000, 0xE007F},
};

// Spaces other than ASCII's: they look like a blank, so a message spells them out.
constexpr Range kSpaces[] = {
    {0x00A0, 0x00A0}, {0x1680, 0x1680}, {0x2000, 0x200A},
    {0x202F, 0x202F}, {0x205F, 0x205F}, {0x3000, 0x3000},
};

// Punctuation and symbol blocks: a character here is never part of a word.
constexpr Range kNotWord[] = {
    {0x0080, 0x00A9}, {0x00AB, 0x00B4}, {0x00B6, 0x00B9}, {0x00BB, 0x00BF}, {0x00D7, 0x00D7},
    {0x00F7, 0x00F7}, {0x2000, 0x2BFF}, {0x2E00, 0x2E7F}, {0x3000, 0x303F}, {0xD800, 0xDFFF},
    {0xFD3E, 0xFD3F}, {0xFE10, 0xFE1F}, {0xFE30, 0xFE6F}, {0xFEFF, 0xFEFF}, {0xFF01, 0xFF0F},
    {0xFF1A, 0xFF20}, {0xFF3B, 0xFF40}, {0xFF5B, 0xFF65}, {0xFFE0, 0xFFFF}, {0x1F000, 0x1FAFF},
};

}  // namespace

std::size_t sequence_length(std::string_view text, std::size_t at) {
    auto byte = [&](std::size_t i) -> unsigned char {
        return at + i < text.size() ? static_cast<unsigned char>(text[at + i]) : 0;
    };
    const unsigned char lead = byte(0);
    if (lead < 0x80) return 1;
    if (lead >= 0xC2 && lead <= 0xDF) return continuation(byte(1)) ? 2 : 0;
    if (lead >= 0xE0 && lead <= 0xEF) {
        const unsigned char low = lead == 0xE0 ? 0xA0 : 0x80;
        const unsigned char high = lead == 0xED ? 0x9F : 0xBF;
        return continuation(byte(1), low, high) && continuation(byte(2)) ? 3 : 0;
    }
    if (lead >= 0xF0 && lead <= 0xF4) {
        const unsigned char low = lead == 0xF0 ? 0x90 : 0x80;
        const unsigned char high = lead == 0xF4 ? 0x8F : 0xBF;
        return continuation(byte(1), low, high) && continuation(byte(2)) && continuation(byte(3))
                   ? 4
                   : 0;
    }
    return 0;  // 80-C1 (continuation or overlong lead) and F5-FF
}

char32_t decode(std::string_view text, std::size_t at, std::size_t length) {
    auto byte = [&](std::size_t i) {
        return static_cast<char32_t>(static_cast<unsigned char>(text[at + i]));
    };
    switch (length) {
        case 1: return byte(0);
        case 2: return ((byte(0) & 0x1F) << 6) | (byte(1) & 0x3F);
        case 3: return ((byte(0) & 0x0F) << 12) | ((byte(1) & 0x3F) << 6) | (byte(2) & 0x3F);
        default:
            return ((byte(0) & 0x07) << 18) | ((byte(1) & 0x3F) << 12) | ((byte(2) & 0x3F) << 6) |
                   (byte(3) & 0x3F);
    }
}

void append(std::string& out, char32_t cp) {
    auto put = [&](char32_t b) { out += static_cast<char>(b); };
    if (cp < 0x80) {
        put(cp);
    } else if (cp < 0x800) {
        put(0xC0 | (cp >> 6));
        put(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        put(0xE0 | (cp >> 12));
        put(0x80 | ((cp >> 6) & 0x3F));
        put(0x80 | (cp & 0x3F));
    } else {
        put(0xF0 | (cp >> 18));
        put(0x80 | ((cp >> 12) & 0x3F));
        put(0x80 | ((cp >> 6) & 0x3F));
        put(0x80 | (cp & 0x3F));
    }
}

std::string code_point_name(char32_t cp) {
    static const char* hex = "0123456789ABCDEF";
    std::string digits;
    for (char32_t rest = cp; rest != 0 || digits.size() < 4; rest >>= 4) {
        digits.insert(digits.begin(), hex[rest & 0xF]);
    }
    return "U+" + digits;
}

bool is_invisible(char32_t cp) { return in(kInvisible, cp); }

unsigned display_width(char32_t cp) {
    if (cp < 0x300) return 1;
    if (in(kZeroWidth, cp)) return 0;
    return in(kWide, cp) ? 2 : 1;
}

bool is_word_like(char32_t cp) {
    return cp >= 0x80 && !in(kNotWord, cp) && !in(kInvisible, cp) && !in(kSpaces, cp);
}

bool is_unicode_space(char32_t cp) { return in(kSpaces, cp); }

}  // namespace rop::utf8

namespace rop::utf8 {

std::string printable(std::string_view text, std::size_t max_chars) {
    static const char* hex = "0123456789abcdef";
    std::string out;
    std::size_t shown = 0;
    for (std::size_t i = 0; i < text.size(); ++shown) {
        if (shown == max_chars) return out + "...";
        const std::size_t length = sequence_length(text, i);
        if (length == 0) {
            const auto byte = static_cast<unsigned char>(text[i++]);
            out += "\\x";
            out += hex[byte >> 4];
            out += hex[byte & 0xF];
            continue;
        }
        const char32_t cp = decode(text, i, length);
        if (cp != ' ' && (is_invisible(cp) || is_unicode_space(cp))) {
            std::string name = code_point_name(cp);  // "U+00A0"
            std::size_t digits = name.find_first_not_of('0', 2);
            out +=
                "\\u{" + name.substr(digits == std::string::npos ? name.size() - 1 : digits) + "}";
        } else {
            out.append(text.substr(i, length));
        }
        i += length;
    }
    return out;
}

}  // namespace rop::utf8
