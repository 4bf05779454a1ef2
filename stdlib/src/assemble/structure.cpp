// List items and code lines of a page (see structure.h).
#include "structure.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

#include "font_names.h"

namespace rop::stdlib::assemble::detail {
namespace {

// Bullet glyphs that are no ordinary text: U+2022, U+25CF, U+25AA, U+25A0, U+25E6, U+00B7, U+2013.
constexpr std::array<std::string_view, 7> kBulletGlyphs = {"\u2022", "\u25CF", "\u25AA", "\u25A0",
                                                           "\u25E6", "\u00B7", "\u2013"};
// How a bullet reads whose glyph the text cannot show (a symbol font's letter, Tesseract's "e").
constexpr std::string_view kBullet = "\u2022";
// What Tesseract reads a bullet as ("+" and "\u00A2" for a small bullet, "\u2014" for an en dash).
constexpr std::array<std::string_view, 8> kOcrBullets = {"e",      "e@", "\u00A9", "\u00B0",
                                                         "\u00AB", "+",  "\u00A2", "\u2014"};

template <std::size_t N>
bool one_of(std::string_view token, const std::array<std::string_view, N>& set) {
    return std::find(set.begin(), set.end(), token) != set.end();
}

}  // namespace

std::string enumerator(const std::string& token) {
    if (token.size() < 2) return "";
    const char close = token.back();
    if (close != '.' && close != ')') return "";
    const bool open = token.front() == '(';
    if (open && close != ')') return "";
    const std::string body = token.substr(open ? 1 : 0, token.size() - (open ? 2 : 1));
    if (body.empty()) return "";
    const auto all = [&](const char* set) {
        return body.find_first_not_of(set) == std::string::npos;
    };
    if (body.size() <= 3 && all("0123456789")) return body + ".";
    const bool letter = body.size() == 1 && std::isalpha(static_cast<unsigned char>(body[0]));
    const bool roman = body.size() >= 2 && body.size() <= 6 && all("ivxlc");
    if (letter || roman) return "- " + token;
    return "";
}

std::vector<std::vector<const Word*>> words_of_lines(const std::vector<Line>& lines,
                                                     const std::vector<Word>& words) {
    std::vector<std::vector<const Word*>> out(lines.size());
    std::size_t next = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string& text = lines[i].text;
        std::size_t at = 0;
        while (at < text.size()) {
            if (text[at] == ' ') {
                ++at;
                continue;
            }
            while (next < words.size() && words[next].text.empty()) ++next;
            if (next == words.size() ||
                text.compare(at, words[next].text.size(), words[next].text) != 0) {
                return std::vector<std::vector<const Word*>>(lines.size());
            }
            out[i].push_back(&words[next]);
            at += words[next].text.size();
            ++next;
        }
    }
    return out;
}

BBox unite(const BBox& a, const BBox& b) {
    return BBox{std::min(a.x0, b.x0), std::min(a.y0, b.y0), std::max(a.x1, b.x1),
                std::max(a.y1, b.y1)};
}

double lower_median(std::vector<double> values) {
    if (values.empty()) return 0;
    const auto middle = values.begin() + static_cast<std::ptrdiff_t>((values.size() - 1) / 2);
    std::nth_element(values.begin(), middle, values.end());
    return *middle;
}

double line_size(const Line& line) {
    if (line.font_size > 0) return line.font_size;
    const double ascent = line.baseline - line.bbox.y0;
    return ascent > 0 ? ascent : line.bbox.height();
}

void append_line(std::string& text, const std::string& line) {
    const auto lower = [](char c) { return c >= 'a' && c <= 'z'; };
    if (text.empty()) {
        text = line;
    } else if (text.size() >= 2 && text.back() == '-' && lower(text[text.size() - 2]) &&
               !line.empty() && lower(line.front())) {
        text.pop_back();
        text += line;
    } else {
        text += ' ';
        text += line;
    }
}

bool monospace_font(std::string_view font) { return fonts::monospace(font); }

bool symbol_font(std::string_view font) { return fonts::symbol(font); }

bool bold_line(const std::vector<const Word*>& words) {
    return !words.empty() && std::all_of(words.begin(), words.end(),
                                         [](const Word* word) { return fonts::bold(word->font); });
}

bool code_line(const std::vector<const Word*>& words) {
    // A bullet glyph first: a list item whose text is set in a monospace font, not code.
    if (!words.empty()) {
        for (std::string_view glyph : kBulletGlyphs) {
            if (words.front()->text.compare(0, glyph.size(), glyph) == 0) return false;
        }
    }
    const auto mono = std::count_if(words.begin(), words.end(),
                                    [](const Word* word) { return monospace_font(word->font); });
    const auto other = static_cast<std::ptrdiff_t>(words.size()) - mono;
    return mono > 0 && (other == 0 || (other == 1 && mono >= 2));
}

namespace {

constexpr double kBearings = 0.25;  // cells of a monospace word's box lost to its side bearings

bool ascii_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// A word whose box tells its pitch: two or more characters, a letter or digit at both ends.
bool measurable(const Word& word) {
    return code_points(word.text) >= 2 && ascii_alnum(word.text.front()) &&
           ascii_alnum(word.text.back());
}

}  // namespace

double line_pitch(const std::vector<const Word*>& words) {
    double width = 0;
    double cells = 0;
    for (const Word* word : words) {
        if (!measurable(*word)) continue;
        width += word->bbox.width();
        cells += static_cast<double>(code_points(word->text)) - kBearings;
    }
    return cells > 0 ? width / cells : 0;
}

PitchFit pitch_fit(const std::vector<const Word*>& words, double pitch) {
    PitchFit fit;
    if (!(pitch > 0)) return PitchFit{0, 1};
    for (std::size_t i = 0; i < words.size(); ++i) {
        const Word& word = *words[i];
        const auto chars = static_cast<double>(code_points(word.text));
        if (measurable(word)) {
            const bool fits = std::abs(word.bbox.width() / pitch - (chars - kBearings)) <= 0.45;
            ++(fits ? fit.fits : fit.misfits);
        }
        // Two words that start with a letter or digit (ink at their cells' left edges): the first
        // one's characters, then whole cells of spaces.
        if (i + 1 == words.size() || !ascii_alnum(word.text.front()) ||
            !ascii_alnum(words[i + 1]->text.front())) {
            continue;
        }
        const double spaces = (words[i + 1]->bbox.x0 - word.bbox.x0) / pitch - chars;
        const bool fits = spaces >= 0.7 && std::abs(spaces - std::round(spaces)) <= 0.3;
        ++(fits ? fit.fits : fit.misfits);
    }
    return fit;
}

namespace {

// What follows a `*` that starts a wrapped C declaration: a name, then its parameter list up to
// the `;` or `,` that ends the declaration or a parameter ("strdup (const char *s);",
// "parse_args(int argc,"). A list item rarely has a bare name, a `(` and such an end.
bool c_declarator(std::string_view rest) {
    const std::size_t open = rest.find('(');
    if (open == std::string_view::npos || open == 0) return false;
    if (!(rest.ends_with(';') || rest.ends_with(','))) return false;
    std::string_view name = rest.substr(0, open);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
}

}  // namespace

ListStart list_start(const Line& line, const std::vector<const Word*>& words, bool ocr) {
    ListStart start;
    std::string first;
    std::string rest;
    if (!words.empty()) {
        first = words.front()->text;
        start.marker_x = words.front()->bbox.x0;
        if (words.size() > 1) start.text_x = words[1]->bbox.x0;
        const std::size_t after = line.text.find(first) + first.size();
        rest = line.text.substr(std::min(after, line.text.size()));
    } else {
        const std::size_t space = line.text.find(' ');
        first = line.text.substr(0, space);
        rest = space == std::string::npos ? "" : line.text.substr(space);
        start.marker_x = line.bbox.x0;
    }
    rest.erase(0, rest.find_first_not_of(' '));
    // A bullet glyph glued to its text ("•Apples"): the glyph is the marker.
    if (rest.empty() || words.size() == 1) {
        for (std::string_view glyph : kBulletGlyphs) {
            if (first.size() > glyph.size() && first.compare(0, glyph.size(), glyph) == 0) {
                rest = first.substr(glyph.size()) + (rest.empty() ? "" : " " + rest);
                first = std::string(glyph);
                start.text_x = -1;
                if (!words.empty()) {
                    const BBox& box = words.front()->bbox;
                    start.text_x =
                        box.x0 + box.width() * static_cast<double>(code_points(glyph)) /
                                     static_cast<double>(code_points(words.front()->text));
                }
                break;
            }
        }
    }
    if (rest.empty()) return start;
    // "- 7 -" is a page number, not an item.
    if (rest.size() > first.size() &&
        rest.compare(rest.size() - first.size() - 1, first.size() + 1, " " + first) == 0) {
        return start;
    }
    const bool symbol =
        !words.empty() && code_points(first) == 1 && symbol_font(words.front()->font);
    if (first == "*" && c_declarator(rest)) {
        return start;  // "char" / "* strdup (const char *s);": a wrapped C prototype, not an item
    } else if (one_of(first, kBulletGlyphs) || first == "-" || first == "*") {
        start.found = start.sure = true;
        start.read = first;
    } else if (symbol) {
        start.found = start.sure = true;
        start.read = kBullet;
    } else if (ocr && one_of(first, kOcrBullets)) {
        start.found = true;
        start.read = kBullet;
    } else {
        start.found = !enumerator(first).empty();
        start.read = first;
    }
    if (start.found) start.text = rest;
    return start;
}

std::string markdown_item(std::string_view item) {
    const std::size_t space = item.find(' ');
    if (space == std::string_view::npos) return std::string(item);
    const std::string marker(item.substr(0, space));
    const std::string_view text = item.substr(space + 1);
    if (one_of(marker, kBulletGlyphs) || marker == "-" || marker == "*") {
        return "- " + std::string(text);
    }
    const std::string lead = enumerator(marker);
    return lead.empty() ? std::string(item) : lead + " " + std::string(text);
}

}  // namespace rop::stdlib::assemble::detail
