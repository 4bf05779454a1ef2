// std.pdf.pages under stress: the pixel budget per page, the check of poppler's image against the
// page size (its 1x1 answer to a bitmap it cannot allocate), files poppler opens though they bend
// the format, and a broken page failing its document with its number; and its internal reading
// of the text layer (character check, ink coverage, lines and paragraphs) on made-up inputs.
#include <catch2/catch_test_macros.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "render_size.h"
#include "rop/stdlib/pdf.h"
#include "text_layer.h"

using namespace rop::stdlib;

namespace {

const std::string kData = ROP_TEST_DATA_DIR;

Document open_doc(const std::string& relative) {
    return pdf::open(File{kData + "/" + relative, relative, {}});
}

// The reason pages() fails `relative` with (and how many pages it emitted before).
struct PagesFailure {
    std::string reason = "(no failure)";
    std::size_t emitted = 0;
};

PagesFailure pages_failure(const std::string& relative, int dpi, std::int64_t max_pixels) {
    const Document doc = open_doc(relative);
    rop::CollectingEmitter<Page> out;
    PagesFailure failure;
    try {
        pdf::pages(doc, out, dpi, pdf::Color::gray, pdf::TextSource::ocr, max_pixels);
    } catch (const rop::RecordFailure& error) {
        failure.reason = error.reason();
    }
    failure.emitted = out.children.size();
    return failure;
}

std::string size_of(const pdf::PixelSize& size) {
    return std::to_string(size.width) + "x" + std::to_string(size.height);
}

}  // namespace

TEST_CASE("expected_pixels rounds each side to nearest, as poppler's Splash does") {
    CHECK(size_of(pdf::expected_pixels(612, 792, 100)) == "850x1100");
    CHECK(size_of(pdf::expected_pixels(612, 792, 150)) == "1275x1650");
    // 101 pt at 10 dpi is 14.03 px, 201 pt is 27.92 px (poppler renders a 14x28 image).
    CHECK(size_of(pdf::expected_pixels(101, 201, 10)) == "14x28");
    CHECK(size_of(pdf::expected_pixels(14400, 14400, 1200)) == "240000x240000");
    // A degenerate box still names a size: poppler makes such a page 1 px wide.
    CHECK(size_of(pdf::expected_pixels(0, -5, 150)) == "1x1");
    CHECK(size_of(pdf::expected_pixels(std::nan(""), 792, 72)) == "1x792");
}

TEST_CASE("fitting_dpi keeps the asked dpi when it fits, else the largest dpi that does") {
    CHECK(pdf::fitting_dpi(612, 792, 150, 100'000'000) == 150);
    CHECK(pdf::fitting_dpi(612, 792, 150, 2'103'750) == 150);  // 1275 x 1650 exactly
    CHECK(pdf::fitting_dpi(612, 792, 150, 2'103'749) == 149);
    // 200 x 200 inches: 900 Mpx at 150 dpi, 100 Mpx (10000 x 10000) at 50 dpi.
    CHECK(pdf::fitting_dpi(14400, 14400, 150, 100'000'000) == 50);
    CHECK(pdf::fitting_dpi(14400, 14400, 150, 99'999'999) == 49);
    // Letter in 2 Mpx: 1241 x 1606 at 146 dpi; 147 dpi would be 1250 x 1617.
    CHECK(pdf::fitting_dpi(612, 792, 150, 2'000'000) == 146);
    CHECK(pdf::expected_pixels(612, 792, 146).pixels() == 1'993'046);
    CHECK(pdf::expected_pixels(612, 792, 147).pixels() == 2'021'250);
    // Not even 1 dpi (200 x 200 px) fits: 0, the caller fails the page.
    CHECK(pdf::fitting_dpi(14400, 14400, 150, 39'999) == 0);
    CHECK(pdf::fitting_dpi(14400, 14400, 150, 40'000) == 1);
    CHECK(pdf::fitting_dpi(612, 792, 150, 0) == 0);
    // A box too large for int64 pixels does not overflow into "fits".
    CHECK(pdf::fitting_dpi(1e300, 1e300, 150, std::numeric_limits<std::int64_t>::max()) == 0);
}

TEST_CASE("image_mismatch accepts the expected size within 2 px and names anything else") {
    const pdf::PixelSize letter{1700, 2200};
    CHECK(pdf::image_mismatch(true, {1700, 2200}, letter).empty());
    CHECK(pdf::image_mismatch(true, {1702, 2198}, letter).empty());
    CHECK(pdf::image_mismatch(true, {1, 1}, letter) ==
          "poppler returned a 1x1 image for 1700x2200 px");
    CHECK(pdf::image_mismatch(true, {1703, 2200}, letter) ==
          "poppler returned a 1703x2200 image for 1700x2200 px");
    CHECK(pdf::image_mismatch(true, {1700, 2197}, letter) ==
          "poppler returned a 1700x2197 image for 1700x2200 px");
    CHECK(pdf::image_mismatch(false, {1700, 2200}, letter) ==
          "poppler returned no image for 1700x2200 px");
    CHECK(pdf::image_mismatch(true, {0, 0}, letter) ==
          "poppler returned no image for 1700x2200 px");
}

TEST_CASE("pages renders a 200x200-inch page within the pixel budget at a reduced dpi") {
    const Document doc = open_doc("edge/huge_page.pdf");
    rop::CollectingEmitter<Page> out;
    pdf::pages(doc, out, 150, pdf::Color::gray);  // the default budget, 100 Mpx
    REQUIRE(out.children.size() == 2);
    const Page& huge = out.children[0];
    CHECK(huge.width == 14400);
    CHECK(huge.height == 14400);
    CHECK(huge.dpi == 50);
    CHECK(huge.image.width == 10000);
    CHECK(huge.image.height == 10000);
    REQUIRE(huge.image.pixels);
    CHECK(huge.image.pixels->size() == 100'000'000u);
    // The black square at 72..216 pt from the bottom-left: x 50..150 px, y 9850..9950 px.
    const auto& pixels = *huge.image.pixels;
    CHECK(pixels[9900u * 10000u + 100u] == 0);
    CHECK(pixels[5000u * 10000u + 5000u] == 255);
    // The Letter page after it keeps the asked dpi.
    CHECK(out.children[1].dpi == 150);
    CHECK(out.children[1].image.width == 1275);
    CHECK(out.children[1].image.height == 1650);

    rop::CollectingEmitter<Page> small;
    pdf::pages(open_doc("docs/letter.pdf"), small, 150, pdf::Color::rgb, pdf::TextSource::ocr,
               2'000'000);
    REQUIRE(small.children.size() == 2);
    for (const Page& page : small.children) {
        CHECK(page.dpi == 146);
        CHECK(page.image.width == 1241);
        CHECK(page.image.height == 1606);
        CHECK(page.image.pixels->size() == 1241u * 1606u * 3u);
    }
}

TEST_CASE("a bitmap poppler cannot allocate fails the page, never passes as a blank one") {
    // 60000 x 60000 px is more than poppler's int-sized bitmap allocation takes: it answers with
    // a 1x1 image (as it does when memory runs out), which the size check catches.
    const PagesFailure failure = pages_failure("edge/huge_page.pdf", 300, 4'000'000'000);
    CHECK(failure.reason ==
          "edge/huge_page.pdf: page 1: render failed: poppler returned a 1x1 image for "
          "60000x60000 px");
    CHECK(failure.emitted == 0);
    CHECK(pages_failure("edge/huge_page.pdf", 150, 39'999).reason ==
          "edge/huge_page.pdf: page 1: a 14400x14400 pt page does not fit max_pixels 39999 even "
          "at 1 dpi");
    CHECK(pages_failure("docs/letter.pdf", 150, 0).reason ==
          "docs/letter.pdf: max_pixels 0 is below 1");
}

TEST_CASE("files poppler opens despite bytes after %%EOF, before %PDF- or no %%EOF open in rop") {
    for (const char* name :
         {"edge/trailing_bytes.pdf", "edge/late_header.pdf", "edge/no_eof.pdf"}) {
        INFO(name);
        const Document doc = open_doc(name);
        CHECK(doc.page_count == 2);
        CHECK(doc.title == "Short Letter");
        rop::CollectingEmitter<Page> out;
        pdf::pages(doc, out, 72);
        REQUIRE(out.children.size() == 2);
        CHECK(out.children[1].image.width == 612);
        CHECK(out.children[1].image.height == 792);
        CHECK(out.children[1].text.find("Kind regards from the second page.") != std::string::npos);
    }
}

TEST_CASE("a broken page fails its document with the page's number") {
    const Document doc = open_doc("edge/broken_page.pdf");
    CHECK(doc.page_count == 3);
    const PagesFailure failure = pages_failure("edge/broken_page.pdf", 72, 100'000'000);
    CHECK(failure.reason == "edge/broken_page.pdf: page 3: cannot read the page");
    CHECK(failure.emitted == 2);  // pages 1 and 2 streamed before; the failure dooms them
}

namespace {

// A white gray image of `width` x `height` px (at 72 dpi, so pixels are points) with the
// rectangle [x0, x1) x [y0, y1) black.
Image page_with_ink(int width, int height, int x0, int y0, int x1, int y1) {
    auto pixels =
        std::make_shared<std::vector<std::uint8_t>>(static_cast<std::size_t>(width) * height, 255);
    for (int y = y0; y < y1; ++y) {
        for (int x = x0; x < x1; ++x) (*pixels)[static_cast<std::size_t>(y) * width + x] = 0;
    }
    Image image;
    image.width = width;
    image.height = height;
    image.channels = 1;
    image.pixels = std::move(pixels);
    return image;
}

pdf::LayerWord layer_word(const std::string& text, double x0, double y0, double x1, double y1,
                          double size = 12, bool space_after = true) {
    pdf::LayerWord word;
    word.word.text = text;
    word.word.bbox = BBox{x0, y0, x1, y1};
    word.word.font_size = size;
    word.space_after = space_after;
    return word;
}

}  // namespace

TEST_CASE("count_chars counts what a text layer without a Unicode mapping produces") {
    auto counts = [](std::string_view text) {
        const pdf::CharCounts c = pdf::count_chars(text);
        return std::to_string(c.unreadable) + "/" + std::to_string(c.total);
    };
    CHECK(counts("Hello, world") == "0/11");                           // the space is not counted
    CHECK(counts("caf\xC3\xA9 \xE2\x80\x94 na\xC3\xAFve") == "0/10");  // é, em dash, ï
    CHECK(counts("\xEF\xBF\xBD\xEF\xBF\xBD"
                 "ab") == "2/4");  // U+FFFD twice
    CHECK(counts("\xEE\x80\x81"
                 "x") == "1/2");                 // U+E001, private use
    CHECK(counts("\xF3\xB0\x80\x80") == "1/1");  // U+F0000, plane 15
    CHECK(counts("a\x01"
                 "b") == "1/3");         // a control character
    CHECK(counts("\xFF\xC3") == "2/2");  // not UTF-8, a cut sequence
    CHECK(counts("\xC0\xAF") == "2/2");  // an overlong '/'
    CHECK(counts("") == "0/0");
}

TEST_CASE("check_layer keeps a sane layer and sends unreadable or ink-less layers to OCR") {
    const pdf::InkCoverage text_page{1'000'000, 60'000, 59'000};
    CHECK(pdf::check_layer({500, 0}, text_page).usable);
    CHECK(pdf::check_layer({500, 0}, text_page).why ==
          "layer: 500 characters, 98% of the ink in their boxes");
    // 10% unreadable is still fine, 11% is not.
    CHECK(pdf::check_layer({100, 10}, text_page).usable);
    const pdf::LayerCheck garbled = pdf::check_layer({100, 11}, text_page);
    CHECK_FALSE(garbled.usable);
    CHECK(garbled.why == "ocr: 11% of 100 characters unreadable");
    // A scan: ink everywhere, no words.
    const pdf::LayerCheck scan = pdf::check_layer({0, 0}, {1'000'000, 50'000, 0});
    CHECK_FALSE(scan.usable);
    CHECK(
        scan.why ==
        "ocr: 5.0% of the page is ink outside the text layer's words (they hold 0.0% of the ink)");
    // Ink outside the words: fine while it is at most 0.2% of the page or less than inside.
    CHECK(pdf::check_layer({10, 0}, {1'000'000, 2'100, 100}).usable);  // 2000 px outside
    CHECK_FALSE(pdf::check_layer({10, 0}, {1'000'000, 2'102, 100}).usable);
    CHECK(pdf::check_layer({90, 0}, {1'000'000, 90'000, 46'000}).usable);
    CHECK_FALSE(pdf::check_layer({90, 0}, {1'000'000, 90'000, 44'000}).usable);
    // 200 characters or more: the layer, even when a photograph outweighs the text.
    CHECK(pdf::check_layer({200, 0}, {1'000'000, 300'000, 20'000}).usable);
    CHECK_FALSE(pdf::check_layer({199, 0}, {1'000'000, 300'000, 20'000}).usable);
    // A blank page: nothing to OCR.
    CHECK(pdf::check_layer({0, 0}, {1'000'000, 0, 0}).usable);
    CHECK(pdf::check_layer({0, 0}, {1'000'000, 0, 0}).why == "layer: 0 characters, no ink");
}

TEST_CASE("ink_coverage counts the dark pixels inside word boxes grown by the margin") {
    // 100 x 100 px at 72 dpi, a 10 x 10 black square at (20, 20).
    const Image image = page_with_ink(100, 100, 20, 20, 30, 30);
    Word inside;
    inside.bbox = BBox{21, 21, 29, 29};  // with the 1 pt margin: 20..30, the whole square
    pdf::InkCoverage ink = pdf::ink_coverage(image, 72, {inside});
    CHECK(ink.pixels == 10'000);
    CHECK(ink.ink == 100);
    CHECK(ink.covered == 100);
    Word half;
    half.bbox = BBox{26, 0, 60, 99};  // x from 25 with the margin: columns 25..29 of the square
    ink = pdf::ink_coverage(image, 72, {half}, 1.0);
    CHECK(ink.covered == 50);
    CHECK(pdf::ink_coverage(image, 72, {}).covered == 0);
    // At 144 dpi a point is two pixels: the same word box covers the square rendered twice as
    // large.
    const Image fine = page_with_ink(200, 200, 40, 40, 60, 60);
    ink = pdf::ink_coverage(fine, 144, {inside});
    CHECK(ink.ink == 400);
    CHECK(ink.covered == 400);
}

TEST_CASE("group_lines joins words into lines and splits paragraphs at gaps, columns and sizes") {
    const std::vector<pdf::LayerWord> words = {
        layer_word("Title", 72, 60, 150, 84, 24), layer_word("First", 72, 100, 100, 112),
        layer_word("line", 104, 100, 130, 112), layer_word("goes", 72, 115, 100, 127),
        layer_word("on.", 104, 115, 125, 127),
        // 20 pt below: a new paragraph; "Hy" + "phen" touch (no space after "Hy")
        layer_word("Hy", 72, 147, 84, 159, 12, false), layer_word("phen", 84, 147, 110, 159),
        // no space after "Cell", but a 30 pt gap (table columns placed apart)
        layer_word("Cell", 72, 162, 94, 174, 12, false), layer_word("120", 124, 162, 140, 174),
        // back up to the top: a second column
        layer_word("Right", 320, 100, 350, 112),
        // a word well left of the previous one on the same height: a new line
        layer_word("Left", 72, 100.5, 95, 112.5)};
    const std::vector<Line> lines = pdf::group_lines(words);
    REQUIRE(lines.size() == 7);
    CHECK(lines[0].text == "Title");
    CHECK(lines[0].font_size == 24);
    CHECK(lines[1].text == "First line");
    CHECK(lines[2].text == "goes on.");
    CHECK(lines[3].text == "Hyphen");
    CHECK(lines[4].text == "Cell 120");
    CHECK(lines[5].text == "Right");
    CHECK(lines[6].text == "Left");
    CHECK(lines[1].bbox.x1 == 130);
    CHECK(lines[1].baseline == 112);
    // Title (its size), then First line + goes on. (2.5 pt apart, one paragraph), Hyphen (20 pt
    // gap) with Cell 120 (3 pt below), Right (a new column), Left (back left at the same height).
    CHECK(lines[0].paragraph == 0);
    CHECK(lines[1].paragraph == 1);
    CHECK(lines[2].paragraph == 1);
    CHECK(lines[3].paragraph == 2);
    CHECK(lines[4].paragraph == 2);
    CHECK(lines[5].paragraph == 3);
    CHECK(lines[6].paragraph == 4);
    CHECK(lines[2].block == lines[2].paragraph);
    CHECK(pdf::group_lines({}).empty());
}
