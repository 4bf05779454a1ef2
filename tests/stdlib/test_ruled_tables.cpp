// The ruled-table finder's pixel rules on drawn images: a dark pixel is a channel mean below
// 128, a row rule is at least max(20, dpi / 2) dark pixels, a column rule at least
// max(12, dpi / 5), thick rules are one rule at their middle, and rules end exactly at the
// image's right and bottom edges. Widths cross every offset against the scan's 8-pixel chunks.
#include <catch2/catch_test_macros.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ruled_tables.h"

using namespace rop::stdlib;
using rop::stdlib::layout::detail::find_ruled_tables;
using rop::stdlib::layout::detail::RuledTable;

namespace {

constexpr int kDpi = 24;  // rules: rows >= 20 pixels, columns >= 12, tolerance 2

struct Canvas {
    int width, height, channels;
    std::vector<std::uint8_t> pixels;

    Canvas(int w, int h, int c)
        : width(w), height(h), channels(c), pixels(static_cast<std::size_t>(w) * h * c, 255) {}

    // Fills [x0, x1) x [y0, y1) with `color` (one value per channel).
    void fill(int x0, int y0, int x1, int y1, const std::vector<std::uint8_t>& color) {
        for (int y = y0; y < y1; ++y) {
            for (int x = x0; x < x1; ++x) {
                for (int c = 0; c < channels; ++c) {
                    pixels[(static_cast<std::size_t>(y) * width + x) * channels + c] =
                        color[c % color.size()];
                }
            }
        }
    }

    Image image() const {
        Image result;
        result.width = width;
        result.height = height;
        result.channels = channels;
        result.pixels = std::make_shared<const std::vector<std::uint8_t>>(pixels);
        return result;
    }
};

std::string describe(const std::vector<RuledTable>& tables) {
    std::string out = std::to_string(tables.size()) + " table(s)";
    for (const RuledTable& t : tables) {
        out += "; box " + std::to_string(t.box.x0) + "," + std::to_string(t.box.y0) + "-" +
               std::to_string(t.box.x1) + "," + std::to_string(t.box.y1) + " rows";
        for (int y : t.row_edges) out += " " + std::to_string(y);
        out += " cols";
        for (int x : t.col_edges) out += " " + std::to_string(x);
    }
    return out;
}

}  // namespace

TEST_CASE("ruled tables: a grid's rules at every offset against 8-pixel chunks, to the edges") {
    // Dark and light by the channel mean, at its edge: gray 127 is dark, 128 light; RGB (100,
    // 100, 183) is dark (sum 383), (0, 200, 184) light (sum 384, mean 128) though one channel
    // is black.
    struct Ink {
        int channels;
        std::vector<std::uint8_t> dark, light;
    };
    const std::vector<Ink> inks = {{1, {127}, {128}}, {3, {100, 100, 183}, {0, 200, 184}}};
    for (const Ink& ink : inks) {
        for (int width = 75; width <= 91; ++width) {
            for (int height : {60, 67}) {
                for (int extra : {0, 1}) {  // 1: the short rules are one pixel longer
                    CAPTURE(ink.channels, width, height, extra);
                    Canvas canvas(width, height, ink.channels);
                    // Light by the mean: a full-width row and a full-height column that
                    // are not rules
                    // (drawn first: the rules cross them).
                    canvas.fill(0, 45, width, 46, ink.light);
                    canvas.fill(60, 0, 61, height, ink.light);
                    // Row rules from x = 3 to the right edge: row 2, rows 30-31, the last row.
                    canvas.fill(3, 2, width, 3, ink.dark);
                    canvas.fill(3, 30, width, 32, ink.dark);
                    canvas.fill(3, height - 1, width, height, ink.dark);
                    // Column rules from y = 2 to the bottom edge: x 3, x 15-16 (across a chunk
                    // boundary), the last column.
                    canvas.fill(3, 2, 4, height, ink.dark);
                    canvas.fill(15, 2, 17, height, ink.dark);
                    canvas.fill(width - 1, 2, width, height, ink.dark);
                    // Rules one pixel short of the minimum (extra 0) or exactly at it (extra 1):
                    // a row run at y 15 of 19 or 20 pixels from x 3 and a column run at x 40
                    // of 11 or 12 pixels ending two rows above the last row rule, both
                    // touching rules they would cross.
                    canvas.fill(3, 15, 3 + 19 + extra, 16, ink.dark);
                    canvas.fill(40, height - 3 - 11 - extra, 41, height - 3, ink.dark);

                    const std::vector<RuledTable> tables = find_ruled_tables(canvas.image(), kDpi);
                    INFO(describe(tables));
                    REQUIRE(tables.size() == 1);
                    const RuledTable& t = tables[0];
                    const std::vector<int> rows = extra ? std::vector<int>{2, 15, 30, height - 1}
                                                        : std::vector<int>{2, 30, height - 1};
                    const std::vector<int> cols = extra ? std::vector<int>{3, 15, 40, width - 1}
                                                        : std::vector<int>{3, 15, width - 1};
                    CHECK(t.row_edges == rows);
                    CHECK(t.col_edges == cols);
                    CHECK(t.box.x0 == 3);
                    CHECK(t.box.y0 == 2);
                    CHECK(t.box.x1 == width);
                    CHECK(t.box.y1 == height);
                }
            }
        }
    }
}

TEST_CASE("ruled tables: rules that do not cross, or only one per axis, make no table") {
    for (int channels : {1, 3}) {
        CAPTURE(channels);
        Canvas canvas(120, 90, channels);
        const std::vector<std::uint8_t> black = {0};
        // Two row rules and two column rules apart from each other: none crosses.
        canvas.fill(0, 10, 50, 11, black);
        canvas.fill(0, 20, 50, 21, black);
        canvas.fill(80, 40, 81, 90, black);
        canvas.fill(100, 40, 101, 90, black);
        // One row rule crossed by one column rule: a cross, not a grid.
        canvas.fill(60, 5, 119, 6, black);
        canvas.fill(90, 0, 91, 30, black);
        const std::vector<RuledTable> tables = find_ruled_tables(canvas.image(), kDpi);
        INFO(describe(tables));
        CHECK(tables.empty());
        CHECK(find_ruled_tables(Image{}, kDpi).empty());
    }
}

TEST_CASE("ruled tables: a frame around one cell is no table; a rule across it makes two cells") {
    for (bool split : {false, true}) {
        CAPTURE(split);
        Canvas canvas(160, 90, 1);
        const std::vector<std::uint8_t> black = {0};
        canvas.fill(10, 10, 150, 11, black);  // a syntax box: two rows, two columns of rules
        canvas.fill(10, 79, 150, 80, black);
        canvas.fill(10, 10, 11, 80, black);
        canvas.fill(149, 10, 150, 80, black);
        if (split) canvas.fill(79, 10, 80, 80, black);
        const std::vector<RuledTable> tables = find_ruled_tables(canvas.image(), kDpi);
        INFO(describe(tables));
        if (!split) {
            CHECK(tables.empty());
            continue;
        }
        REQUIRE(tables.size() == 1);
        CHECK(tables[0].row_edges == std::vector<int>{10, 79});
        CHECK(tables[0].col_edges == std::vector<int>{10, 79, 149});
    }
}
