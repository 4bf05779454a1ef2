// std.assemble: exact Markdown and content list from hand-made pages, then both real paths on
// the test PDF (OCR -> from_ocr -> markdown; layout -> RegionText -> page -> markdown).
#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "render_pages.h"
#include "rop/stdlib/assemble.h"
#include "rop/stdlib/layout.h"
#include "rop/stdlib/ocr.h"
#include "rop/stdlib/pdf.h"

using namespace rop::stdlib;

namespace {

using testing::kData;
using testing::render;

// Positions of `parts` in `text`, which must all be there and in this order.
bool in_order(const std::string& text, const std::vector<std::string>& parts) {
    std::size_t at = 0;
    for (const std::string& part : parts) {
        const std::size_t found = text.find(part, at);
        if (found == std::string::npos) {
            UNSCOPED_INFO("missing or out of order: " << part);
            return false;
        }
        at = found + part.size();
    }
    return true;
}

}  // namespace

TEST_CASE("markdown and content_list render blocks in order, the list in MinerU's format") {
    PageContent first;
    first.page_index = 0;
    first.width = 612;
    first.height = 792;
    first.text_source = "layer";
    Block title;
    title.text = "Title";
    title.text_level = 1;
    title.bbox = {72, 72, 300, 100};
    title.confidence = 100;
    Block body;
    body.text = "Body <text>.";
    body.bbox = {72, 110, 400, 130.456};
    body.confidence = 100;
    first.blocks = {title, body};
    PageContent second;
    second.page_index = 1;
    second.width = 500;
    second.height = 1000;
    Block table;
    table.type = "table";
    table.text = "a | b\n1 | 2";
    table.rows = 2;
    table.cols = 2;
    table.cells = {{0, 0, {}, "a"}, {0, 1, {}, "b|c"}, {1, 0, {}, "1"}, {1, 1, {}, "2"}};
    table.bbox = {50, 100, 450, 300};
    table.confidence = 91.26f;
    Block figure;
    figure.type = "image";
    figure.bbox = {-3, 0, 600, 1200};  // past the page: clamped to 0..1000
    second.blocks = {table, figure};
    const std::vector<PageContent> pages{first, second};

    CHECK(assemble::markdown(pages).text ==
          "# Title\n\nBody <text>.\n\n| a | b\\|c |\n| --- | --- |\n| 1 | 2 |\n");
    // bbox: int(x * 1000 / width), int(y * 1000 / height): 72 pt of 612 is 117.6 -> 117, of 792
    // is 90.9 -> 90.
    CHECK(assemble::content_list(pages).text ==
          R"([
  {
    "type": "text",
    "text": "Title",
    "text_level": 1,
    "bbox": [
      117,
      90,
      490,
      126
    ],
    "page_idx": 0,
    "text_source": "layer",
    "confidence": 100.0
  },
  {
    "type": "text",
    "text": "Body <text>.",
    "bbox": [
      117,
      138,
      653,
      164
    ],
    "page_idx": 0,
    "text_source": "layer",
    "confidence": 100.0
  },
  {
    "type": "table",
    "img_path": "",
    "table_caption": [],
    "table_footnote": [],
    "table_body": "<table><tr><td>a</td><td>b|c</td></tr><tr><td>1</td><td>2</td></tr></table>",
    "text": "a | b\n1 | 2",
    "bbox": [
      100,
      100,
      900,
      300
    ],
    "page_idx": 1,
    "text_source": "ocr",
    "confidence": 91.3
  },
  {
    "type": "image",
    "img_path": "",
    "image_caption": [],
    "image_footnote": [],
    "bbox": [
      0,
      0,
      1000,
      1000
    ],
    "page_idx": 1,
    "text_source": "ocr"
  }
])");
    CHECK(assemble::markdown({}).text.empty());
    CHECK(assemble::content_list({}).text == "[]");
}

TEST_CASE("from_ocr splits paragraphs and headings and joins hyphenated lines") {
    OcrResult page;
    page.page_index = 3;
    page.lines = {{"Big Title", {72, 72, 300, 110}, 95, 102, 0, 0},
                  {"first line of an exam-", {72, 120, 400, 135}, 95, 132, 0, 1},
                  {"ple paragraph", {72, 137, 400, 152}, 95, 149, 0, 1},
                  {"next one", {72, 170, 400, 185}, 95, 0, 1, 2}};
    const PageContent content = assemble::from_ocr(page);
    REQUIRE(content.blocks.size() == 3);
    CHECK(content.page_index == 3);
    CHECK(content.blocks[0].text == "Big Title");
    CHECK(content.blocks[0].text_level == 1);
    CHECK(content.blocks[1].text == "first line of an example paragraph");
    CHECK(content.blocks[1].text_level == 0);
    CHECK(content.blocks[1].bbox.y1 == 152);
    CHECK(content.blocks[2].text == "next one");
}

TEST_CASE("the OCR path and the layout path assemble the test report in order") {
    const std::vector<Page> pages = render("docs/report.pdf", 150);

    ocr::Tesseract engine("eng");
    const std::vector<OcrResult> results = engine(pages);
    const std::string ocr_md = assemble::markdown_from_ocr(results).text;
    CHECK(in_order(
        ocr_md, {"# Quarterly Report\n\n",
                 "The quick brown fox jumps over the lazy dog. Revenue grew in every "
                 "region this quarter.\n\n",
                 "Second paragraph about costs and margins.", "# Results Table",
                 "Units sold per region are listed below.", "North", "120",
                 "Totals are shown above.", "# Conclusion", "Growth will continue next year.\n"}));
    const std::string ocr_list = assemble::content_list_from_ocr(results).text;
    CHECK(in_order(ocr_list, {"\"text\": \"Quarterly Report\"", "\"text_level\": 1",
                              "\"page_idx\": 0", "\"page_idx\": 1", "\"page_idx\": 2"}));

    layout::Regions analyse;
    ocr::RegionText read("eng");
    std::vector<PageContent> contents;
    for (const Page& page : pages) contents.push_back(assemble::page(read(analyse(page))));
    const std::string layout_md = assemble::markdown(contents).text;
    CHECK(layout_md ==
          "# Quarterly Report\n\n"
          "The quick brown fox jumps over the lazy dog. Revenue grew in every region this "
          "quarter.\n\n"
          "Second paragraph about costs and margins.\n\n"
          "## Results Table\n\n"
          "Units sold per region are listed below.\n\n"
          "| Region | Units | Price |\n| --- | --- | --- |\n| North | 120 | 4.50 |\n"
          "| South | 80 | 3.25 |\n\n"
          "Totals are shown above.\n\n"
          "## Conclusion\n\n"
          "Growth will continue next year.\n");
    const std::string layout_list = assemble::content_list(contents).text;
    CHECK(in_order(layout_list, {"\"type\": \"table\"", "<td>North</td>", "\"page_idx\": 1"}));
}
