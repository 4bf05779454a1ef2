// std.layout's ink tests on drawn images (its internal header ink.h): drawn_share tells text
// that Tesseract's layout took for an image from a drawing, column_gap a table's columns from
// prose, spanning_rule a table's rules from a drawing's lines.
#include <catch2/catch_test_macros.hpp>
#include <cstdint>
#include <memory>
#include <vector>

#include "ink.h"

using namespace rop::stdlib;
using layout::detail::column_gap;
using layout::detail::drawn_share;
using layout::detail::PixelBox;
using layout::detail::spanning_rule;

namespace {

constexpr double kAscent = 14;  // a 10 pt line's ascent at 150 dpi, in pixels

struct Canvas {
    int width, height;
    std::vector<std::uint8_t> pixels;

    Canvas(int w, int h) : width(w), height(h), pixels(static_cast<std::size_t>(w) * h, 255) {}

    void fill(int x0, int y0, int x1, int y1, std::uint8_t value = 0) {
        for (int y = y0; y < y1; ++y) {
            for (int x = x0; x < x1; ++x) pixels[static_cast<std::size_t>(y) * width + x] = value;
        }
    }

    // A word: glyph-sized marks (8 x 14 pixels, 3 apart) from x0 to x1, their tops at y.
    void word(int x0, int x1, int y) {
        for (int x = x0; x + 8 <= x1; x += 11) fill(x, y, x + 8, y + 14);
    }

    Image image() const {
        Image result;
        result.width = width;
        result.height = height;
        result.channels = 1;
        result.pixels = std::make_shared<const std::vector<std::uint8_t>>(pixels);
        return result;
    }
};

}  // namespace

TEST_CASE("drawn_share: glyph-sized marks are text; a drawn line, a tall shape or a panel not") {
    const PixelBox box{0, 0, 400, 100};
    Canvas text(400, 100);
    text.word(10, 120, 10);
    text.word(140, 300, 10);
    text.word(10, 200, 40);
    text.fill(30, 70, 38, 73);  // an underscore: short and thin, still a glyph
    CHECK(drawn_share(text.image(), box, kAscent) == 0);

    Canvas line = text;
    line.fill(10, 80, 200, 82);  // a drawn line: 2 pixels high, 190 wide
    const double text_ink = 8 * 14 * (10 + 14 + 17) + 8 * 3;
    CHECK(drawn_share(line.image(), box, kAscent) == 380 / (text_ink + 380));

    Canvas tall = text;
    tall.fill(350, 5, 354, 95);  // a vertical edge of a drawing: 90 pixels, over 2.5 x 14
    CHECK(drawn_share(tall.image(), box, kAscent) == 360 / (text_ink + 360));

    Canvas panel(400, 100);
    panel.fill(20, 20, 380, 90);  // a photograph's dark area
    CHECK(drawn_share(panel.image(), box, kAscent) == 1);

    // No ink, or no ascent known: -1.
    CHECK(drawn_share(Canvas(400, 100).image(), box, kAscent) == -1);
    CHECK(drawn_share(text.image(), box, 0) == -1);
    // The box clips: the line outside it does not count.
    CHECK(drawn_share(line.image(), PixelBox{0, 0, 400, 60}, kAscent) == 0);
}

TEST_CASE("spanning_rule: a rule across 80% of the box, not a drawing's shorter lines") {
    const PixelBox box{0, 0, 400, 100};
    Canvas rule(400, 100);
    rule.word(10, 300, 10);
    rule.fill(0, 30, 320, 31);  // 320 of 400 pixels
    CHECK(spanning_rule(rule.image(), box, 0.8));
    Canvas drawing(400, 100);
    drawing.fill(0, 30, 150, 31);
    drawing.fill(170, 30, 400, 31);  // two lines with a node between them
    drawing.fill(10, 10, 11, 90);
    CHECK_FALSE(spanning_rule(drawing.image(), box, 0.8));
    CHECK(spanning_rule(drawing.image(), box, 0.5));
}

TEST_CASE("column_gap: a table's columns line up down its lines, prose's word gaps do not") {
    const int gap = 21;  // 1.5 x the ascent
    std::vector<PixelBox> lines;
    Canvas table(500, 200);
    for (int row = 0; row < 6; ++row) {
        const int y = 10 + row * 30;
        table.word(10, 80, y);    // the first column
        table.word(200, 320, y);  // the second, 120 pixels to its right
        lines.push_back(PixelBox{5, y - 2, 330, y + 16});
    }
    CHECK(column_gap(table.image(), lines, gap));

    // Prose: the same lines, words of 30-74 pixels with gaps of 13, 21 or 29 (a justified line's
    // spaces), at places that move from line to line.
    Canvas prose(500, 200);
    for (int row = 0; row < 6; ++row) {
        const int y = 10 + row * 30;
        int x = 10;
        int word = 0;
        while (x < 320) {
            const int length = 30 + ((row * 7 + word * 13) % 5) * 11;
            prose.word(x, std::min(x + length, 320), y);
            x += length + 13 + ((row * 5 + word * 3) % 3) * 8;
            ++word;
        }
    }
    CHECK_FALSE(column_gap(prose.image(), lines, gap));

    // A line that crosses the gap (a caption over the columns) closes it where it has ink, and
    // two lines are too few to make a column.
    Canvas crossed = table;
    crossed.word(10, 320, 10 + 2 * 30);
    CHECK_FALSE(column_gap(crossed.image(), lines, gap));
    CHECK_FALSE(column_gap(table.image(), {lines[0], lines[1]}, gap));
    // A gap narrower than asked is no column.
    CHECK_FALSE(column_gap(table.image(), lines, 200));
}
