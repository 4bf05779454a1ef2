// std.layout.Regions on the rendered test pages, then std.ocr.RegionText on the regions: kinds,
// reading order, heading levels, the ruled table's grid and cell texts.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "render_pages.h"
#include "rop/stdlib/layout.h"
#include "rop/stdlib/ocr.h"
#include "rop/stdlib/pdf.h"

using namespace rop::stdlib;

namespace {

using testing::kData;
using testing::render;

// Pages `indices` (0-based) of the PDF at `path`, read (text: detect) and rendered at 150 dpi by
// std.pdf.Render, as examples/docling has them.
std::vector<Page> pages_of(const std::string& path, const std::vector<int>& indices) {
    const Document doc = pdf::open(File{path, path, {}});
    rop::CollectingEmitter<Page> out;
    pdf::pages(doc, out, 150, pdf::Color::gray, pdf::TextSource::detect, 100'000'000,
               pdf::Rendering::all);
    pdf::Render render;
    std::vector<Page> pages;
    for (int index : indices) pages.push_back(render(out.children.at(index)));
    return pages;
}

std::size_t count_kind(const std::vector<Region>& regions, RegionKind kind) {
    return static_cast<std::size_t>(std::count_if(regions.begin(), regions.end(),
                                                  [&](const Region& r) { return r.kind == kind; }));
}

}  // namespace

TEST_CASE(
    "Regions finds headings, text and a ruled table in reading order; RegionText reads them") {
    const std::vector<Page> pages = render("docs/report.pdf", 150);
    layout::Regions analyse;
    ocr::RegionText read("eng");

    const std::vector<Region> first = read(analyse(pages[0]));
    REQUIRE(first.size() >= 2);
    CHECK(first[0].kind == RegionKind::heading);
    CHECK(first[0].level == 1);
    CHECK(first[0].text == "Quarterly Report");
    CHECK(first[0].page_index == 0);
    CHECK(first[0].bbox.x0 > 65);
    CHECK(first[0].bbox.x0 < 75);
    CHECK(first[1].kind == RegionKind::text);
    CHECK(first[1].text.find("The quick brown fox") == 0);
    for (std::size_t i = 0; i < first.size(); ++i) CHECK(first[i].order == static_cast<int>(i));

    const std::vector<Region> second = read(analyse(pages[1]));
    std::vector<std::string> kinds;
    for (const Region& region : second) kinds.push_back(layout::kind_name(region));
    REQUIRE(kinds.size() == 4);
    CHECK(kinds == std::vector<std::string>{"heading", "text", "table", "text"});
    CHECK(second[0].level == 2);
    CHECK(second[0].text == "Results Table");
    const Region& table = second[2];
    CHECK(table.rows == 3);
    CHECK(table.cols == 3);
    REQUIRE(table.cells.size() == 9);
    CHECK(table.cells[0].text == "Region");
    CHECK(table.cells[4].text == "120");
    CHECK(table.cells[8].text == "3.25");
    CHECK(table.cells[5].row == 1);
    CHECK(table.cells[5].col == 2);
    CHECK(table.text == "Region | Units | Price\nNorth | 120 | 4.50\nSouth | 80 | 3.25");
    CHECK(second[3].text == "Totals are shown above.");
    CHECK(ocr::has_text(table));
}

TEST_CASE("tag merges document metadata into a region; has_text drops empty regions") {
    Region region;
    Document doc;
    doc.title = "T";
    doc.page_count = 2;
    doc.metadata["lang"] = "eng";
    const Region tagged = layout::tag(region, doc);
    CHECK(tagged.metadata == Metadata{{"lang", "eng"}, {"page_count", "2"}, {"title", "T"}});
    CHECK_FALSE(ocr::has_text(region));
    region.kind = RegionKind::figure;
    CHECK(ocr::has_text(region));
    CHECK_THROWS_AS(layout::Regions()(Page{}), rop::RecordFailure);
}

TEST_CASE("Regions fills a layer page's regions and table cells from its text layer") {
    const std::vector<Page> pages = render("docs/report.pdf", 150, pdf::TextSource::detect);
    REQUIRE(pages[1].text_source == "layer");
    layout::Regions analyse;
    std::vector<Region> second = analyse(pages[1]);
    std::vector<std::string> kinds;
    for (const Region& region : second) kinds.push_back(layout::kind_name(region));
    REQUIRE(kinds == std::vector<std::string>{"heading", "text", "table", "text"});
    for (const Region& region : second) {
        CHECK(region.text_source == "layer");
        CHECK(region.confidence == 100);
    }
    CHECK(second[0].text == "Results Table");
    CHECK(second[0].font_size == 20);
    CHECK(second[1].text == "Units sold per region are listed below.");
    CHECK(second[1].font_size == 12);
    const Region& table = second[2];
    REQUIRE(table.cells.size() == 9);
    CHECK(table.cells[0].text == "Region");
    CHECK(table.cells[4].text == "120");
    CHECK(table.text == "Region | Units | Price\nNorth | 120 | 4.50\nSouth | 80 | 3.25");
    CHECK(second[3].text == "Totals are shown above.");
    // A text region of one row keeps its words (std.assemble.page looks for a table's head or
    // last row among them); a heading does not.
    REQUIRE(second[1].words.size() == 7);
    CHECK(second[1].words.front().text == "Units");
    CHECK(second[1].words.back().text == "below.");
    CHECK(second[0].words.empty());
    CHECK(table.words.empty());
    // A text region of several rows keeps none.
    const std::vector<Page> manual =
        render("structure/structure.pdf", 150, pdf::TextSource::detect);
    int several = 0;
    for (const Page& page : manual) {
        for (const Region& region : analyse(page)) {
            if (region.kind != RegionKind::text || region.font_size <= 0) continue;
            if (region.bbox.height() > 2.5 * region.font_size) {
                ++several;
                CHECK(region.words.empty());
            }
        }
    }
    CHECK(several > 0);
    // RegionText passes them through untouched, without OCR (no crop needed).
    for (Region& region : second) region.image = Image{};
    ocr::RegionText read("eng");
    const std::vector<Region> read_back = read(second);
    REQUIRE(read_back.size() == 4);
    CHECK(read_back[2].text == table.text);
    CHECK(read_back[0].confidence == 100);
}

TEST_CASE("on a layer page, words the layout analysis misses become regions of their own") {
    const std::vector<Page> pages = render("text/mixed.pdf", 150, pdf::TextSource::detect);
    REQUIRE(pages[0].text_source == "layer");
    layout::Regions analyse;
    const std::vector<Region> regions = analyse(pages[0]);
    std::vector<std::string> texts;
    for (const Region& region : regions) texts.push_back(region.text);
    // Tesseract's layout finds no block for the lone page number at the bottom.
    CHECK(texts == std::vector<std::string>{"Mixed Sources Handbook", "Born Digital",
                                            "This page has a text layer that poppler reads.\n"
                                            "Its words come with fonts and boxes.",
                                            "1"});
    REQUIRE(regions.size() == 4);
    const Region& number = regions[3];
    CHECK(number.order == 3);
    CHECK(number.kind == RegionKind::text);
    CHECK(number.image.empty());  // no crop: nothing left to OCR
    CHECK(number.text_source == "layer");
    CHECK(number.font_size == 10);
    CHECK(number.bbox.y0 > 750);
    CHECK(number.bbox.x0 > 290);
    CHECK(number.bbox.x1 < 320);
    CHECK(ocr::has_text(number));
}

TEST_CASE(
    "on a layer page, a symbol-font bullet is written as U+2022 and the table keeps its grid") {
    const std::vector<Page> pages = render("structure/structure.pdf", 150, pdf::TextSource::layer);
    layout::Regions analyse;
    const std::vector<Region> regions = analyse(pages[0]);
    std::string all;
    for (const Region& region : regions) all += region.text + "\n";
    INFO(all);
    // Wingdings' bullet reaches the layer as "l"; at a line's start it is a bullet.
    CHECK(all.find("\u2022 Plums from the market") != std::string::npos);
    CHECK(all.find("l Plums") == std::string::npos);
    CHECK(all.find("\u2022 Apples") != std::string::npos);
    const auto table = std::find_if(regions.begin(), regions.end(),
                                    [](const Region& r) { return r.kind == RegionKind::table; });
    REQUIRE(table != regions.end());
    CHECK(table->rows == 3);
    CHECK(table->cols == 2);
    CHECK(table->text == "Fruit | Count\nApples | 3\nPears | 5");
    // Tesseract's own table block spans the code above the ruled table: it is text, the ruled
    // table keeps the words; and the 16 pt Courier lines are no headings.
    CHECK(std::count_if(regions.begin(), regions.end(),
                        [](const Region& r) { return r.kind == RegionKind::table; }) == 1);
    CHECK(std::none_of(regions.begin(), regions.end(), [](const Region& r) {
        return r.kind == RegionKind::heading && r.text != "Shopping Notes";
    }));
}

TEST_CASE(
    "a text-only manual has no figure and no table: Tesseract's image and table blocks of "
    "text are text") {
    // libtasn1.pdf (Debian's libtasn1-doc, tools/setup.sh installs it): 36 pages of prose, code
    // and option listings, no figure, no table. Tesseract's layout made 70 image blocks (a "::="
    // set apart, code fragments) and 10 table blocks (the table of contents, prose with code,
    // option listings) of them; on these pages 22 and 7.
    const std::string path = "/usr/share/doc/libtasn1-doc/libtasn1.pdf";
    if (!std::ifstream(path)) SKIP("no " + path + " (apt-get install libtasn1-doc)");
    layout::Regions analyse;
    std::string words, code, prose;
    for (const Page& page : pages_of(path, {2, 4, 7, 9, 14, 34})) {
        for (const Region& region : analyse(page)) {
            CAPTURE(page.index, layout::kind_name(region), region.text);
            CHECK(region.kind != RegionKind::figure);
            CHECK(region.kind != RegionKind::table);
            words += region.text + "\n";
            (region.kind == RegionKind::code ? code : prose) += region.text + "\n";
        }
    }
    // The words of what were image and table blocks are read as text.
    CHECK(words.find("Version ::=INTEGER") != std::string::npos);
    CHECK(words.find("-c, --check") != std::string::npos);
    CHECK(words.find("Copying Information") != std::string::npos);
    // A listing the layer reads column by column (asn1Decoding's options, then their
    // descriptions) is a code region read row by row, each word at its column.
    CHECK(code.find("-b, --benchmark       perform a benchmark on decoding\n"
                    "-s, --strict          use strict DER decoding\n") != std::string::npos);
    CHECK(code.find("Usage: asn1Parser [OPTION] FILE\n") != std::string::npos);
    Region listing;
    listing.kind = RegionKind::code;
    CHECK(layout::kind_name(listing) == "code");
    // Prose set in a proportional font stays text.
    CHECK(prose.find("Copying Information") != std::string::npos);
    CHECK(code.find("Copying Information") == std::string::npos);
}

TEST_CASE("a manual's borderless table stays a table and its drawings are figures") {
    // glpk-doc's graphs.pdf (in B7's corpus): page 33 holds a table of 25 rows in 8 columns
    // without rules, page 46 a drawing of a bipartite graph with its labels, page 17 a drawing of
    // a graph that Tesseract calls a table.
    const std::string path = "/usr/share/doc/glpk-doc/graphs.pdf";
    if (!std::ifstream(path)) SKIP("no " + path + " (apt-get install glpk-doc)");
    const std::vector<Page> pages = pages_of(path, {16, 32, 45});
    layout::Regions analyse;
    const std::vector<Region> graph = analyse(pages[0]);
    CHECK(count_kind(graph, RegionKind::figure) == 1);
    CHECK(count_kind(graph, RegionKind::table) == 0);
    const std::vector<Region> results = analyse(pages[1]);
    CHECK(count_kind(results, RegionKind::table) == 1);
    CHECK(count_kind(analyse(pages[2]), RegionKind::figure) == 1);
    // No rule divides the table: its grid comes from where its words stand, a row a line and a
    // column between every two runs of words.
    const auto table = std::find_if(results.begin(), results.end(),
                                    [](const Region& r) { return r.kind == RegionKind::table; });
    REQUIRE(table != results.end());
    INFO(table->text);
    CHECK(table->cols == 8);
    CHECK(table->rows >= 25);
    CHECK(static_cast<int>(table->cells.size()) == table->rows * table->cols);
    CHECK(table->text.find("101 | 5000 | 25336 | 6191726 | 126 | 5000 | 12500 | 18802218\n") !=
          std::string::npos);
}

TEST_CASE("a table with a rule under its header stays a table, whatever else it draws") {
    // xorg-docs' icccm.pdf (in B7's corpus, gzipped): page 39 holds a table of arguments with a
    // rule under its header and none between its columns; a row's text runs across the gap
    // between them. Tesseract calls it a table.
    const std::string gz = "/usr/share/doc/xorg-docs/icccm/icccm.pdf.gz";
    if (!std::ifstream(gz)) SKIP("no " + gz + " (apt-get install xorg-docs)");
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("rop-icccm-" + std::to_string(::getpid()) + ".pdf"))
                                 .string();
    REQUIRE(std::system(("gzip -dc " + gz + " > " + path).c_str()) == 0);
    const std::vector<Page> pages = pages_of(path, {38});
    std::filesystem::remove(path);
    layout::Regions analyse;
    const std::vector<Region> regions = analyse(pages[0]);
    CHECK(count_kind(regions, RegionKind::table) == 1);
    CHECK(count_kind(regions, RegionKind::figure) == 0);
}

TEST_CASE(
    "on a layer page a framed table with one rule under its head row gets columns from its "
    "words") {
    // structure/tables.pdf: a frame and a rule under the head row, no rule between columns (the
    // rule finder's grid: 2 rows by 1 column).
    const std::vector<Page> pages = render("structure/tables.pdf", 150, pdf::TextSource::layer);
    layout::Regions analyse;
    const std::vector<Region> regions = analyse(pages[0]);
    const auto table = std::find_if(regions.begin(), regions.end(),
                                    [](const Region& r) { return r.kind == RegionKind::table; });
    REQUIRE(table != regions.end());
    CHECK(table->rows == 5);
    CHECK(table->cols == 4);
    REQUIRE(table->cells.size() == 20);
    CHECK(table->cells[1].text == "Size (TB)");
    CHECK(table->cells[19].text == "80");
    CHECK(table->text ==
          "Pool | Size (TB) | Used (TB) | Free (%)\nfast | 120 | 84 | 30\nbulk | 640 | 402 | "
          "37\narchive | 900 | 811 | 10\nscratch | 60 | 12 | 80");
    CHECK(table->font_size == 11);
    // Every word of the page is in some region once (the table below, without rules, is one
    // text region to Tesseract's layout).
    std::string all;
    for (const Region& region : regions) all += region.text + "\n";
    for (const char* word : {"Storage", "fast", "scratch", "Team", "355", "nearly"}) {
        CAPTURE(word);
        CHECK(all.find(word) != std::string::npos);
    }
    CHECK(all.find("archive | 900") == all.rfind("archive | 900"));
}

TEST_CASE("RegionText gives a scanned table whose rules make one column a grid from its words") {
    // structure/tables.pdf as a scan: the box table's frame and the rule under its head row
    // give the layout a grid of one column; the words OCR finds in it make the 5 x 4 one, as
    // on a text-layer page (above).
    const std::vector<Page> pages = render("structure/tables.pdf", 150);
    REQUIRE(pages[0].text_source == "ocr");
    layout::Regions analyse;
    ocr::RegionText read("eng");
    const std::vector<Region> regions = read(analyse(pages[0]));
    const auto table = std::find_if(regions.begin(), regions.end(),
                                    [](const Region& r) { return r.kind == RegionKind::table; });
    REQUIRE(table != regions.end());
    CHECK(table->text_source == "ocr");
    CHECK(table->rows == 5);
    CHECK(table->cols == 4);
    REQUIRE(table->cells.size() == 20);
    CHECK(table->cells[0].text == "Pool");
    CHECK(table->cells[12].text == "archive");
    CHECK(table->cells[19].text == "80");
    CHECK(table->text.find("\narchive | 900 | 811 | 10\n") != std::string::npos);
    CHECK(table->confidence > 50);
}
