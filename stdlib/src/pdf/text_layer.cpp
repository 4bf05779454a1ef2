// The text-layer checks and line grouping of std.pdf.pages (see text_layer.h).
#include "text_layer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace rop::stdlib::pdf {
namespace {

bool unreadable(char32_t c) {
    if (c == 0xFFFD) return true;
    if (c >= 0xE000 && c <= 0xF8FF) return true;  // private use
    if (c >= 0xF0000) return true;                // supplementary private use planes
    if (c < 0x20 || (c >= 0x7F && c < 0xA0)) return true;
    return false;
}

bool space(char32_t c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 0xA0;
}

std::string percent(double fraction) {
    char text[32];
    if (fraction < 0.1) {
        std::snprintf(text, sizeof text, "%.1f%%", fraction * 100);
    } else {
        std::snprintf(text, sizeof text, "%.0f%%", fraction * 100);
    }
    return text;
}

int to_pixel(double points, int dpi) { return static_cast<int>(std::floor(points * dpi / 72.0)); }

double overlap(double a0, double a1, double b0, double b1) {
    return std::min(a1, b1) - std::max(a0, b0);
}

}  // namespace

CharCounts count_chars(std::string_view utf8) {
    CharCounts counts;
    std::size_t i = 0;
    while (i < utf8.size()) {
        const auto byte = static_cast<unsigned char>(utf8[i]);
        int length = byte < 0x80           ? 1
                     : (byte >> 5) == 0x6  ? 2
                     : (byte >> 4) == 0xE  ? 3
                     : (byte >> 3) == 0x1E ? 4
                                           : 0;
        char32_t c = length == 1   ? byte
                     : length == 2 ? byte & 0x1F
                     : length == 3 ? byte & 0x0F
                                   : byte & 0x07;
        bool valid = length > 0 && i + length <= utf8.size();
        for (int k = 1; valid && k < length; ++k) {
            const auto next = static_cast<unsigned char>(utf8[i + k]);
            if ((next >> 6) != 0x2) valid = false;
            c = (c << 6) | (next & 0x3F);
        }
        // Overlong forms, surrogates and values past U+10FFFF are invalid too.
        if (valid &&
            ((length == 2 && c < 0x80) || (length == 3 && c < 0x800) ||
             (length == 4 && (c < 0x10000 || c > 0x10FFFF)) || (c >= 0xD800 && c <= 0xDFFF))) {
            valid = false;
        }
        if (!valid) {
            ++counts.total;
            ++counts.unreadable;
            ++i;
            continue;
        }
        i += static_cast<std::size_t>(length);
        if (space(c)) continue;
        ++counts.total;
        if (unreadable(c)) ++counts.unreadable;
    }
    return counts;
}

InkCoverage ink_coverage(const Image& image, int dpi, const std::vector<Word>& words,
                         double margin) {
    InkCoverage coverage;
    if (image.empty() || dpi <= 0) return coverage;
    const int width = image.width;
    const int height = image.height;
    struct Rect {
        int x0, y0, x1, y1;
    };
    std::vector<Rect> rects;
    for (const Word& word : words) {
        rects.push_back(Rect{std::clamp(to_pixel(word.bbox.x0 - margin, dpi), 0, width),
                             std::clamp(to_pixel(word.bbox.y0 - margin, dpi), 0, height),
                             std::clamp(to_pixel(word.bbox.x1 + margin, dpi) + 1, 0, width),
                             std::clamp(to_pixel(word.bbox.y1 + margin, dpi) + 1, 0, height)});
    }
    // One row's mask at a time: a huge page costs no second page-sized buffer.
    std::vector<std::uint8_t> inside(static_cast<std::size_t>(width), 0);
    const int channels = image.channels;
    coverage.pixels = static_cast<std::int64_t>(width) * height;
    for (int y = 0; y < height; ++y) {
        std::fill(inside.begin(), inside.end(), 0);
        for (const Rect& rect : rects) {
            if (y < rect.y0 || y >= rect.y1) continue;
            std::fill(inside.begin() + rect.x0, inside.begin() + rect.x1, 1);
        }
        const std::uint8_t* row = image.pixels->data() + image.stride() * y;
        for (int x = 0; x < width; ++x) {
            int level = row[x * channels];
            if (channels == 3) level = (level + row[x * 3 + 1] + row[x * 3 + 2]) / 3;
            if (level >= kInkLevel) continue;
            ++coverage.ink;
            if (inside[x]) ++coverage.covered;
        }
    }
    return coverage;
}

LayerCheck check_layer(const CharCounts& chars, const InkCoverage& ink) {
    LayerCheck check;
    if (chars.total > 0 &&
        static_cast<double>(chars.unreadable) > kMaxUnreadable * static_cast<double>(chars.total)) {
        check.why =
            "ocr: " +
            percent(static_cast<double>(chars.unreadable) / static_cast<double>(chars.total)) +
            " of " + std::to_string(chars.total) + " characters unreadable";
        return check;
    }
    const std::int64_t outside = ink.ink - ink.covered;
    const double page = static_cast<double>(std::max<std::int64_t>(ink.pixels, 1));
    if (chars.total<kEnoughChars&& static_cast<double>(outside)> kMaxUncoveredInk * page &&
        outside > ink.covered) {
        check.why = "ocr: " + percent(static_cast<double>(outside) / page) +
                    " of the page is ink outside the text layer's words (they hold " +
                    percent(static_cast<double>(ink.covered) /
                            static_cast<double>(std::max<std::int64_t>(ink.ink, 1))) +
                    " of the ink)";
        return check;
    }
    check.usable = true;
    check.why =
        "layer: " + std::to_string(chars.total) + " characters, " +
        (ink.ink > 0 ? percent(static_cast<double>(ink.covered) / static_cast<double>(ink.ink)) +
                           " of the ink in their boxes"
                     : std::string("no ink"));
    return check;
}

std::vector<Line> group_lines(const std::vector<LayerWord>& words) {
    std::vector<Line> lines;
    std::vector<std::map<double, std::size_t>> sizes;  // per line: font size -> characters
    const LayerWord* last = nullptr;
    for (const LayerWord& item : words) {
        const Word& word = item.word;
        if (word.text.empty()) continue;
        bool same_line = false;
        if (last != nullptr) {
            const BBox& a = last->word.bbox;
            const BBox& b = word.bbox;
            const double smaller = std::min(a.height(), b.height());
            same_line =
                overlap(a.y0, a.y1, b.y0, b.y1) >= 0.5 * smaller && b.x0 >= a.x1 - 0.5 * smaller;
        }
        if (!same_line) {
            Line line;
            line.bbox = word.bbox;
            line.confidence = 100;
            lines.push_back(line);
            sizes.emplace_back();
        } else {
            Line& line = lines.back();
            // poppler says no space after a word that the next one is placed apart from by
            // positioning alone (table columns): a visible gap is a space too.
            const double gap = word.bbox.x0 - last->word.bbox.x1;
            if (last->space_after || gap > kSpaceGap * word.bbox.height()) line.text += ' ';
            line.bbox =
                BBox{std::min(line.bbox.x0, word.bbox.x0), std::min(line.bbox.y0, word.bbox.y0),
                     std::max(line.bbox.x1, word.bbox.x1), std::max(line.bbox.y1, word.bbox.y1)};
        }
        lines.back().text += word.text;
        sizes.back()[word.font_size] += word.text.size();
        last = &item;
    }
    int paragraph = -1;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        Line& line = lines[i];
        std::size_t most = 0;
        for (const auto& [size, count] : sizes[i]) {
            if (count > most) most = count, line.font_size = size;
        }
        line.baseline = line.bbox.y1;
        bool fresh = i == 0;
        if (!fresh) {
            const Line& previous = lines[i - 1];
            const double smaller = std::min(previous.bbox.height(), line.bbox.height());
            const double gap = line.bbox.y0 - previous.bbox.y1;
            const double larger_size = std::max(previous.font_size, line.font_size);
            fresh = gap > kParagraphGap * smaller || gap < -0.5 * smaller ||
                    (larger_size > 0 &&
                     std::abs(previous.font_size - line.font_size) > 0.15 * larger_size);
        }
        if (fresh) ++paragraph;
        line.paragraph = paragraph;
        line.block = paragraph;
    }
    return lines;
}

}  // namespace rop::stdlib::pdf
