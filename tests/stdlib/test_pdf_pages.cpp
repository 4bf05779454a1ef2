// std.pdf.pages under stress: the pixel budget per page, the check of poppler's image against the
// page size (its 1x1 answer to a bitmap it cannot allocate), files poppler opens though they bend
// the format, and a broken page failing its document with its number.
#include <catch2/catch_test_macros.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "render_size.h"
#include "rop/stdlib/pdf.h"

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
        pdf::pages(doc, out, dpi, pdf::Color::gray, false, false, max_pixels);
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
    pdf::pages(doc, out, 150, pdf::Color::gray, false);  // the default budget, 100 Mpx
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
    pdf::pages(open_doc("docs/letter.pdf"), small, 150, pdf::Color::rgb, false, false, 2'000'000);
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
