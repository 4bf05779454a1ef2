// std.assemble: exact Markdown and content list from hand-made pages, then both real paths on
// the test PDF (OCR -> from_ocr -> markdown; layout -> RegionText -> page -> markdown).
#include <algorithm>
#include <array>
#include <catch2/catch_test_macros.hpp>
#include <cctype>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
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
    // MinerU 2.5's shape: no "text" beside a table's body; rop's extras only when asked for.
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
    "page_idx": 0
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
    "page_idx": 0
  },
  {
    "type": "table",
    "img_path": "",
    "table_caption": [],
    "table_footnote": [],
    "table_body": "<table><tr><td>a</td><td>b|c</td></tr><tr><td>1</td><td>2</td></tr></table>",
    "bbox": [
      100,
      100,
      900,
      300
    ],
    "page_idx": 1
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
    "page_idx": 1
  }
])");
    const std::string extras =
        assemble::content_list(pages, assemble::ContentListFormat::mineru25, true).text;
    CHECK(in_order(extras,
                   {"\"page_idx\": 0,\n    \"text_source\": \"layer\",\n    \"confidence\": 100.0",
                    "\"page_idx\": 1,\n    \"text_source\": \"ocr\",\n    \"confidence\": 91.3",
                    "\"page_idx\": 1,\n    \"text_source\": \"ocr\"\n  }"}));
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

TEST_CASE(
    "from_ocr: a numbered section heading or a short title barely larger than the body is a "
    "heading") {
    // Body lines have an ascent of 10, these of 12 (12 pt over 10 pt: under the 1.3 ratio).
    // Each row: the line, alone in its paragraph or not, its ascent, a heading or not.
    struct Row {
        std::string text;
        bool alone;
        double ascent;
        bool heading;
    };
    const std::vector<Row> rows = {
        {"2.1 Parsing Rules", true, 12, true},
        {"3 Results", true, 12, true},
        {"A.1 GNU Free Documentation License", true, 12, true},
        {"2.2 Scope", true, 10, false},                // body size
        {"4 Limits", false, 12, false},                // its paragraph goes on
        {"3 apples were left", true, 12, false},       // no capitalized word
        {"1. Wash the fruit", true, 12, false},        // a list item's marker
        {"12 Angry Men is a film.", true, 12, false},  // ends like a sentence
        {"5 One two three four five six seven eight nine ten eleven twelve", true, 12, false},
        {"Plain words", true, 12, false},  // no numbering, and not a title
        // Line isolation: a short title alone at 1.15 times the body or more.
        {"Lessons Learned", true, 12, true},
        {"Notes on the Format", true, 12, true},                 // short words may stay lower case
        {"Lessons Learned", true, 11, false},                    // 1.1 times: under 1.15
        {"Lessons Learned", false, 12, false},                   // its paragraph goes on
        {"Lessons learned the hard way", true, 12, false},       // not every long word capitalized
        {"One Two Three Four Five Six Seven", true, 12, false},  // 7 words
        {"Lessons Learned:", true, 12, false}};                  // ends like a sentence
    for (const Row& row : rows) {
        INFO(row.text);
        OcrResult page;
        double y = 72;
        int paragraph = 0;
        auto add = [&](const std::string& text, double ascent, bool same_paragraph) {
            if (!same_paragraph) ++paragraph;
            page.lines.push_back(
                {text, {72, y, 400, y + ascent + 3}, 95, y + ascent, 0, paragraph, 0});
            y += ascent + 8;
        };
        for (int n = 0; n < 4; ++n) add("Body text of a plain paragraph here", 10, n > 0);
        add(row.text, row.ascent, false);
        if (!row.alone) add("and the paragraph goes on", 10, true);
        for (int n = 0; n < 4; ++n) add("More body text in the next paragraph", 10, n > 0);
        const PageContent content = assemble::from_ocr(page);
        bool found = false;
        for (const Block& block : content.blocks) {
            if (block.text.rfind(row.text, 0) != 0 &&
                block.text.find(row.text) == std::string::npos) {
                continue;
            }
            found = true;
            CHECK((block.text_level > 0) == row.heading);
            if (row.heading) CHECK(block.text_level == 3);
        }
        CHECK(found);
    }
}

TEST_CASE(
    "from_ocr: a bold numbered line or title that starts a text-layer paragraph is a heading") {
    // The text layer starts a paragraph at a gap or a change of size, so a run-in heading at
    // the body size ("2.1 Installing" or "Before You Begin" in bold, then its paragraph) opens the
    // paragraph below it.
    // Each row: the first line's words and font, a heading or not.
    struct Row {
        std::vector<std::string> words;
        std::string font;
        bool heading;
    };
    const std::vector<Row> rows = {
        {{"2.1", "Installing"}, "NimbusRoman-Bold", true},
        {{"3", "Results", "and", "Limits"}, "Helvetica-Bold", true},
        {{"A.2", "Options"}, "P052-Bold", true},
        {{"2.1", "Installing"}, "NimbusRoman-Regular", false},  // not bold: a sentence's start
        {{"Installing", "It"}, "NimbusRoman-Bold", true},  // a short bold title on its own line
        {{"Installing", "it", "takes", "a", "minute", "or", "two"}, "NimbusRoman-Bold", false},
        {{"Installing", "the", "package"}, "NimbusRoman-Bold", false},  // a phrase, no title
        {{"1.", "Wash", "the", "fruit"}, "NimbusRoman-Bold", false},    // a list item's marker
        {{"4", "Limits", "apply."}, "NimbusRoman-Bold", false},         // ends like a sentence
    };
    for (const Row& row : rows) {
        INFO(row.words.front() << " " << row.font);
        OcrResult page;
        page.text_source = "layer";
        double y = 72;
        auto line = [&](const std::vector<std::string>& words, const std::string& font,
                        int paragraph) {
            std::string text;
            double x = 72;
            for (std::size_t i = 0; i < words.size(); ++i) {
                text += (i ? " " : "") + words[i];
                const double width = 6.0 * static_cast<double>(words[i].size());
                page.words.push_back({words[i], {x, y, x + width, y + 12}, 100, 10, font});
                x += width + 4;
            }
            page.lines.push_back({text, {72, y, x, y + 12}, 100, y + 9, 0, paragraph, 10});
            y += 14;
        };
        line({"Body", "text", "of", "a", "paragraph"}, "NimbusRoman-Regular", 0);
        line({"and", "its", "second", "line"}, "NimbusRoman-Regular", 0);
        y += 10;
        line(row.words, row.font, 1);
        line({"The", "paragraph", "below", "the", "heading"}, "NimbusRoman-Regular", 1);
        line({"goes", "on", "here"}, "NimbusRoman-Regular", 1);
        const PageContent content = assemble::from_ocr(page);
        INFO(assemble::markdown(std::vector<PageContent>{content}).text);
        const bool heading =
            std::any_of(content.blocks.begin(), content.blocks.end(), [&](const Block& b) {
                return b.text_level > 0 && b.text.rfind(row.words.front(), 0) == 0;
            });
        CHECK(heading == row.heading);
        if (row.heading) {
            // Alone in its block, at level 3; the paragraph below it is text of its own.
            REQUIRE(content.blocks.size() == 3);
            CHECK(content.blocks[1].text_level == 3);
            CHECK(content.blocks[2].text == "The paragraph below the heading goes on here");
        }
    }
}

TEST_CASE("from_ocr: code is runs of monospace lines, not a URL in a paragraph or a bullet item") {
    OcrResult page;
    page.text_source = "layer";
    double y = 72;
    // One line of words, each in `font`, in `paragraph`.
    auto line = [&](const std::vector<std::string>& words, const std::string& font, int paragraph,
                    const std::string& first_font = "") {
        std::string text;
        double x = 72;
        for (std::size_t i = 0; i < words.size(); ++i) {
            text += (i ? " " : "") + words[i];
            const double width = 6.0 * static_cast<double>(words[i].size());
            page.words.push_back({words[i],
                                  {x, y, x + width, y + 12},
                                  95,
                                  10,
                                  i == 0 && !first_font.empty() ? first_font : font});
            x += width + 4;
        }
        page.lines.push_back({text, {72, y, x, y + 12}, 95, y + 9, 0, paragraph, 10});
        y += 14;
    };
    line({"See", "the", "manual", "at"}, "Times-Roman", 0);
    line({"https://example.org/manual"}, "Courier", 0);  // ends the sentence: prose
    y += 20;
    line({"int", "x", "=", "1;"}, "Courier", 1);
    line({"return", "x;"}, "Courier", 1);
    y += 20;
    line({"\u2022", "apples", "pears"}, "Courier", 2, "Symbol");  // a monospace list item
    y += 20;
    line({"make", "install"}, "Courier", 3);  // alone in its paragraph: code
    const PageContent content = assemble::from_ocr(page);
    std::vector<std::pair<std::string, std::string>> blocks;
    for (const Block& block : content.blocks) blocks.emplace_back(block.type, block.text);
    INFO(assemble::markdown(std::vector<PageContent>{content}).text);
    REQUIRE(blocks.size() == 4);
    CHECK(blocks[0] == std::pair<std::string, std::string>{
                           "text", "See the manual at https://example.org/manual"});
    CHECK(blocks[1].first == "code");
    CHECK(blocks[2].first == "list");
    CHECK(blocks[3].first == "code");
}

TEST_CASE("from_ocr: a wrapped C prototype's '* name (...);' line is no list item") {
    OcrResult page;
    page.text_source = "layer";
    double y = 72;
    auto line = [&](const std::vector<std::string>& words, int paragraph) {
        std::string text;
        double x = 72;
        for (std::size_t i = 0; i < words.size(); ++i) {
            text += (i ? " " : "") + words[i];
            const double width = 6.0 * static_cast<double>(words[i].size());
            page.words.push_back({words[i], {x, y, x + width, y + 12}, 95, 10, "Times-Roman"});
            x += width + 4;
        }
        page.lines.push_back({text, {72, y, x, y + 12}, 95, y + 9, 0, paragraph, 10});
        y += 14;
    };
    line({"char"}, 0);
    line({"*", "strdup", "(const", "char", "*s);"}, 0);
    line({"int"}, 1);
    line({"*", "parse_args(int", "argc,"}, 1);
    line({"Fruit:"}, 2);
    line({"*", "Apples", "(ripe", "ones)"}, 3);
    line({"*", "Pears"}, 3);
    const std::vector<PageContent> pages = {assemble::from_ocr(page)};
    CHECK(assemble::markdown(pages).text ==
          "char * strdup (const char *s);\n\n"
          "int * parse_args(int argc,\n\n"
          "Fruit:\n\n"
          "- Apples (ripe ones)\n- Pears\n");
}

TEST_CASE("from_ocr: a listing the layer reads column by column is one code block by rows") {
    // asn1Decoding's help in libtasn1.pdf: poppler reads the options, then their descriptions
    // from the top again, then the lines below; the code rule made two blocks of them, one per
    // column. A second listing further down, apart from the first, stays a block of its own.
    OcrResult page;
    page.text_source = "layer";
    auto line = [&](const std::vector<std::string>& words, double x, double y, int paragraph) {
        std::string text;
        const double x0 = x;
        for (std::size_t i = 0; i < words.size(); ++i) {
            text += (i ? " " : "") + words[i];
            const double width = 6.0 * static_cast<double>(words[i].size());
            page.words.push_back({words[i], {x, y, x + width, y + 10}, 95, 10, "Courier"});
            x += width + 6;
        }
        page.lines.push_back({text, {x0, y, x, y + 10}, 95, y + 8, 0, paragraph, 10});
    };
    line({"Usage:", "asn1Decoding", "[OPTION]"}, 72, 100, 0);
    line({"-b,", "--benchmark"}, 84, 124, 1);
    line({"-s,", "--strict"}, 84, 136, 1);
    line({"-h,", "--help"}, 84, 148, 1);
    line({"perform", "a", "benchmark"}, 216, 124, 2);  // back up: the next column
    line({"use", "strict", "DER", "decoding"}, 216, 136, 2);
    line({"display", "this", "help"}, 216, 148, 2);
    line({"Report", "bugs", "to:", "help@gnu.org"}, 72, 172, 2);
    line({"$", "asn1Decoding", "pkix.asn"}, 72, 260, 3);  // another listing, far below
    const PageContent content = assemble::from_ocr(page);
    INFO(assemble::markdown(std::vector<PageContent>{content}).text);
    REQUIRE(content.blocks.size() == 2);
    CHECK(content.blocks[0].type == "code");
    CHECK(content.blocks[0].text ==
          "Usage: asn1Decoding [OPTION]\n"
          "\n"
          "  -b, --benchmark       perform a benchmark\n"
          "  -s, --strict          use strict DER decoding\n"
          "  -h, --help            display this help\n"
          "\n"
          "Report bugs to: help@gnu.org");
    CHECK(content.blocks[1].type == "code");
    CHECK(content.blocks[1].text == "$ asn1Decoding pkix.asn");
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
    // from_page: the same OCR with the page's ruled table rebuilt as a grid of OCR'd words.
    std::vector<PageContent> with_tables;
    for (std::size_t i = 0; i < pages.size(); ++i) {
        with_tables.push_back(assemble::from_page(results[i], pages[i]));
    }
    const std::string tables_md = assemble::markdown(with_tables).text;
    INFO(tables_md);
    CHECK(in_order(tables_md, {"Units sold per region are listed below.\n\n",
                               "| Region | Units | Price |\n| --- | --- | --- |\n"
                               "| North | 120 | 4.50 |\n| South | 80 | 3.25 |\n\n",
                               "Totals are shown above."}));

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

namespace {

Block text_block(const std::string& text, BBox box) {
    Block block;
    block.text = text;
    block.bbox = box;
    return block;
}

PageContent letter_page(int index, std::vector<Block> blocks) {
    PageContent page;
    page.page_index = index;
    page.width = 612;
    page.height = 792;
    page.blocks = std::move(blocks);
    return page;
}

// The "type" of every item of a content list, in order.
std::vector<std::string> types_of(const std::string& list) {
    std::vector<std::string> types;
    const std::string key = "\"type\": \"";
    for (std::size_t at = list.find(key); at != std::string::npos; at = list.find(key, at)) {
        at += key.size();
        types.push_back(list.substr(at, list.find('"', at) - at));
    }
    return types;
}

}  // namespace

TEST_CASE("a one-page chapter's running header is running text where other pages have theirs") {
    // Chapters 1 and 3 run two pages each, chapter 2 one: its header text is its page's alone.
    const std::vector<std::string> headers = {"Chapter 1 Usage", "Chapter 1 Usage",
                                              "Chapter 2 Bugs", "Chapter 3 Options",
                                              "Chapter 3 Options"};
    auto document = [&](std::size_t count, BBox unique_box) {
        std::vector<PageContent> pages;
        for (std::size_t i = 0; i < count; ++i) {
            pages.push_back(
                letter_page(static_cast<int>(i),
                            {text_block(headers[i], i == 2 ? unique_box : BBox{72, 30, 250, 42}),
                             text_block("Body " + std::to_string(i) + ".", {72, 100, 400, 114})}));
        }
        return assemble::markdown(pages).text;
    };
    // Four other pages have a running header at its place: it is one too.
    CHECK(document(5, {72, 30, 250, 42}) ==
          "Body 0.\n\nBody 1.\n\nBody 2.\n\nBody 3.\n\nBody 4.\n");
    // Two other pages only: not a band yet, it stays text (as the repeated ones are running).
    CHECK(document(3, {72, 30, 250, 42}) == "Body 0.\n\nBody 1.\n\nChapter 2 Bugs\n\nBody 2.\n");
    // Elsewhere in the top band (20 pt lower, 2.5% of the page): not at the others' place.
    CHECK(document(5, {72, 50, 250, 62}).find("Chapter 2 Bugs") != std::string::npos);
}

TEST_CASE("running headers, footers and page numbers are typed across pages, left out of md") {
    const std::vector<std::string> remarks = {"First remark.", "Second remark.", "Third remark."};
    std::vector<PageContent> pages;
    for (int i = 0; i < 3; ++i) {
        const std::string n = std::to_string(i + 1);
        pages.push_back(letter_page(i, {text_block("Annual Review 2026", {72, 30, 250, 42}),
                                        text_block("Body of page " + n + ".", {72, 100, 400, 114}),
                                        // in the bottom band but different on every page: body text
                                        text_block(remarks[i], {72, 735, 300, 745}),
                                        text_block("Confidential", {72, 760, 160, 770}),
                                        text_block("Page " + n + " of 3", {280, 770, 340, 780})}));
    }
    // Page 2's header sits 20 pt higher (2.5% of the page): not at the others' place.
    pages[1].blocks[0].bbox = {72, 10, 250, 22};
    pages[0].blocks[0].text_level = 2;  // a heading that repeats is running text all the same

    const std::string list = assemble::content_list(pages).text;
    // Each page's running text comes after its body, as MinerU writes its discarded blocks.
    CHECK(types_of(list) ==
          std::vector<std::string>{"text", "text", "header", "footer", "page_number",  // page 1
                                   "text", "text", "text", "footer", "page_number",    // page 2
                                   "text", "text", "header", "footer", "page_number"});
    CHECK(list.find("\"text_level\"") == std::string::npos);
    CHECK(assemble::markdown(pages).text ==
          "Body of page 1.\n\nFirst remark.\n\nAnnual Review 2026\n\nBody of page 2.\n\n"
          "Second remark.\n\nBody of page 3.\n\nThird remark.\n");
    // One page repeats nothing.
    const std::vector<PageContent> one{pages[0]};
    CHECK(types_of(assemble::content_list(one).text) ==
          std::vector<std::string>{"text", "text", "text", "text", "text"});
    // 20,000 pages (issue 13's largest document): matched by sorting, not pair by pair.
    std::vector<PageContent> many;
    for (int i = 0; i < 20'000; ++i) {
        many.push_back(letter_page(i, {text_block("Handbook", {72, 30, 150, 42}),
                                       text_block("Text " + std::to_string(i), {72, 100, 200, 112}),
                                       text_block(std::to_string(i + 1), {300, 760, 312, 770})}));
    }
    const std::string many_md = assemble::markdown(many).text;
    CHECK(many_md.find("Handbook") == std::string::npos);
    CHECK(many_md.find("\n\n20000\n") == std::string::npos);
    CHECK(many_md.find("Text 19999\n") != std::string::npos);
    // Digits-only numbers and roman numerals are page numbers as well.
    std::vector<PageContent> numbered;
    const std::vector<std::string> numbers = {"iii", "iv", "17", "18"};
    // (a word that only looks like one is no page number: "civil" repeated is a footer)
    for (int i = 0; i < 4; ++i) {
        numbered.push_back(letter_page(i, {text_block("Text.", {72, 100, 200, 112}),
                                           text_block(numbers[i], {300, 760, 312, 770})}));
    }
    const std::vector<std::string> numbered_types = types_of(assemble::content_list(numbered).text);
    CHECK(numbered_types == std::vector<std::string>{"text", "page_number", "text", "page_number",
                                                     "text", "page_number", "text", "page_number"});
}

TEST_CASE("text: detect assembles born-digital pages from the layer and OCRs the scan") {
    const std::vector<Page> pages = render("text/mixed.pdf", 150, pdf::TextSource::detect);
    ocr::Tesseract engine("eng");
    const std::vector<OcrResult> results = engine(pages);
    std::vector<PageContent> contents;
    for (const OcrResult& result : results) contents.push_back(assemble::from_ocr(result));
    const std::string md = assemble::markdown(contents).text;
    INFO(md);
    CHECK(md ==
          "# Born Digital\n\n"
          "This page has a text layer that poppler reads. Its words come with fonts and boxes.\n\n"
          "## Scanned Part\n\n"  // a level-2 entry of the outline
          "This page is only a picture of its text. Nothing here can be selected.\n\n"
          "# Back to Text\n\n"
          "The third page is born digital again.\n\n"
          "The last page closes the handbook.\n");
    const std::string list =
        assemble::content_list(contents, assemble::ContentListFormat::mineru25, true).text;
    INFO(list);
    CHECK(types_of(list) ==
          std::vector<std::string>{"text", "text", "header", "page_number",  // layer
                                   "text", "text", "header",  // OCR: Tesseract misses the lone "2"
                                   "text", "text", "header", "page_number",  // layer
                                   "text", "header", "page_number"});        // layer
    CHECK(in_order(
        list, {"\"text\": \"Born Digital\"", "\"text_level\": 1", "\"text_source\": \"layer\"",
               "\"confidence\": 100.0", "\"text\": \"Scanned Part\"", "\"text_source\": \"ocr\"",
               "\"text\": \"Back to Text\"", "\"text_source\": \"layer\""}));
}

namespace {

Block heading(const std::string& text, int level, double size) {
    Block block;
    block.text = text;
    block.text_level = level;
    block.font_size = size;
    block.bbox = {72, 100, 400, 120};
    return block;
}

// The (text, text_level) of every text block, in order.
std::vector<std::pair<std::string, int>> levels_of(std::span<const PageContent> pages) {
    std::vector<std::pair<std::string, int>> out;
    const std::string md = assemble::markdown(pages).text;
    std::size_t at = 0;
    while (at < md.size()) {
        std::size_t end = md.find("\n\n", at);
        if (end == std::string::npos) end = md.size() - 1;  // the final "\n"
        std::string piece = md.substr(at, end - at);
        int level = 0;
        while (level < static_cast<int>(piece.size()) && piece[level] == '#') ++level;
        out.emplace_back(level > 0 ? piece.substr(level + 1) : piece, level);
        at = end + 2;
    }
    return out;
}

}  // namespace

TEST_CASE("heading levels: font sizes rank them across the document; TOC lines are no headings") {
    // Per page both 20 pt headings were level 1 (twice their page's body size or not): across
    // the document 28 pt is level 1, 20 and 19 pt (within 10%) level 2, 14 pt level 3.
    std::vector<PageContent> pages = {
        letter_page(0, {heading("Title", 1, 28), heading("Contents", 2, 20),
                        heading("1 Introduction . . . . . . . . 1", 1, 20),
                        heading("Version 1.2.3.4", 2, 20)}),
        letter_page(1, {heading("1 Introduction", 1, 20), heading("Body.", 0, 10),
                        heading("1.1 Scope", 1, 14), heading("2 Use", 2, 19)})};
    CHECK(levels_of(pages) ==
          std::vector<std::pair<std::string, int>>{{"Title", 1},
                                                   {"Contents", 2},
                                                   {"1 Introduction . . . . . . . . 1", 0},
                                                   {"Version 1.2.3.4", 2},  // 4 dots: no leaders
                                                   {"1 Introduction", 2},
                                                   {"Body.", 0},
                                                   {"1.1 Scope", 3},
                                                   {"2 Use", 2}});
    // A heading without a font size (OCR'd): the page's own levels stay.
    pages[1].blocks[3].font_size = 0;
    CHECK(levels_of(pages)[7] == std::pair<std::string, int>{"2 Use", 2});
    CHECK(levels_of(pages)[0] == std::pair<std::string, int>{"Title", 1});
    CHECK(levels_of(pages)[6] == std::pair<std::string, int>{"1.1 Scope", 1});
}

TEST_CASE("heading levels follow the PDF's outline when it has one") {
    auto outline = std::make_shared<std::vector<OutlineEntry>>(
        std::vector<OutlineEntry>{{"Introduction", 1}, {"1.1 Scope", 2}, {"Appendix: Tables", 1}});
    std::vector<PageContent> pages = {
        letter_page(0, {heading("1 Introduction", 3, 20), heading("Scope", 1, 14),
                        heading("int main() {", 2, 16), heading("Body.", 0, 10)}),
        // a body-size line that is an outline entry becomes a heading
        letter_page(1, {heading("Appendix: tables", 0, 10), heading("Body.", 0, 10)})};
    for (PageContent& page : pages) page.outline = outline;
    // The outline names 2 of the 3 headings: it is trusted, the code line is body text.
    CHECK(levels_of(pages) == std::vector<std::pair<std::string, int>>{{"1 Introduction", 1},
                                                                       {"Scope", 2},
                                                                       {"int main() {", 0},
                                                                       {"Body.", 0},
                                                                       {"Appendix: tables", 1},
                                                                       {"Body.", 0}});
    // Numbering words and letters do not count: "Appendix A Copying" is the entry "A Copying",
    // "A.1 GNU License" the entry "GNU License".
    std::vector<PageContent> appendix = {
        letter_page(0, {heading("Appendix A Copying", 1, 20), heading("A.1 GNU License", 1, 14),
                        heading("# a shell comment, body text", 0, 10)})};
    appendix[0].outline = std::make_shared<std::vector<OutlineEntry>>(
        std::vector<OutlineEntry>{{"A Copying", 1}, {"GNU License", 2}});
    CHECK(assemble::markdown(appendix).text ==
          "# Appendix A Copying\n\n## A.1 GNU License\n\n\\# a shell comment, body text\n");
    // An outline that names fewer than half the headings: the others go below its deepest level.
    pages[0].blocks[0].text = "Overview";
    CHECK(levels_of(pages)[0] == std::pair<std::string, int>{"Overview", 3});
    CHECK(levels_of(pages)[1] == std::pair<std::string, int>{"Scope", 2});
    CHECK(levels_of(pages)[2] == std::pair<std::string, int>{"int main() {", 3});
}

TEST_CASE("outline titles match with or without apostrophes, hyphens and dashes") {
    // Each row: the outline's title, the page's heading; both spellings are one title.
    const std::vector<std::pair<std::string, std::string>> rows = {
        {"Don\u2019t Panic", "Don't Panic"},                // right single quotation mark
        {"Don't Panic Again", "Dont Panic Again"},          // ASCII apostrophe, none
        {"Nonregular Languages", "Non-regular languages"},  // hyphen, none
        {"Pre\u2010processing", "Pre-processing"},          // U+2010 hyphen
        {"Soft\u00adhyphen", "Softhyphen"},                 // U+00AD soft hyphen
        {"Lexing \u2014 Tokens", "Lexing - Tokens"},        // em dash between words
        {"Ranges 1\u20132", "Ranges 1-2"},                  // en dash
        {"The Writer\u02bcs Guide", "The Writer's Guide"},  // U+02BC modifier apostrophe
        {"\u2018Quoted\u2019 Title", "'Quoted' Title"}};    // U+2018 and U+2019
    auto outline = std::make_shared<std::vector<OutlineEntry>>();
    std::vector<Block> blocks;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        outline->push_back({rows[i].first, 1 + static_cast<int>(i % 3)});
        blocks.push_back(heading(rows[i].second, 1, 0));  // OCR'd: no font size
        blocks.push_back(heading("Body.", 0, 10));
    }
    std::vector<PageContent> pages = {letter_page(0, blocks)};
    pages[0].outline = outline;
    const auto levels = levels_of(pages);
    REQUIRE(levels.size() == 2 * rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        INFO(rows[i].first << " / " << rows[i].second);
        CHECK(levels[2 * i] ==
              std::pair<std::string, int>{rows[i].second, 1 + static_cast<int>(i % 3)});
    }
}

TEST_CASE("an outline the document follows demotes the body lines OCR took for headings") {
    // Four entries, each a heading on the page, and six body lines OCR marked as level-4
    // headings: 4 of 10 headings are named (under half), but every entry is found, so the
    // outline is trusted and the six are body text, not headings below its deepest level.
    auto outline = std::make_shared<std::vector<OutlineEntry>>(
        std::vector<OutlineEntry>{{"Introduction", 1}, {"Usage", 1}, {"Options", 2}, {"Bugs", 1}});
    std::vector<Block> blocks;
    const std::vector<std::string> entries = {"1 Introduction", "2 Usage", "2.1 Options", "3 Bugs"};
    for (const std::string& title : entries) {
        blocks.push_back(heading(title, 2, 0));
        for (int n = 0; n < 2; ++n) {
            blocks.push_back(heading("A short bold line " + title + std::to_string(n), 4, 0));
        }
    }
    std::vector<PageContent> pages = {letter_page(0, blocks)};
    pages[0].outline = outline;
    const auto levels = levels_of(pages);
    REQUIRE(levels.size() == 12);
    const std::vector<int> expected = {1, 0, 0, 1, 0, 0, 2, 0, 0, 1, 0, 0};
    for (std::size_t i = 0; i < levels.size(); ++i) {
        INFO(levels[i].first);
        CHECK(levels[i].second == expected[i]);
    }
    // Three of the four entries missing from the headings, and most headings unnamed: not
    // trusted, the unnamed ones go below its deepest level as before.
    pages[0].blocks[3].text = "Examples";   // was 2 Usage
    pages[0].blocks[6].text = "Synopsis";   // was 2.1 Options
    pages[0].blocks[9].text = "Copyright";  // was 3 Bugs
    CHECK(levels_of(pages)[0].second == 1);
    CHECK(levels_of(pages)[1].second == 3);
    CHECK(levels_of(pages)[6] == std::pair<std::string, int>{"Synopsis", 3});
}

TEST_CASE(
    "lists and code from the text layer: bullet glyphs and symbol fonts and numbers and Courier") {
    const std::vector<Page> pages = render("structure/structure.pdf", 150, pdf::TextSource::layer);
    ocr::Tesseract engine("eng");
    const std::vector<OcrResult> results = engine(pages);
    std::vector<PageContent> contents;
    for (const OcrResult& result : results) contents.push_back(assemble::from_ocr(result));
    const std::string md = assemble::markdown(contents).text;
    INFO(md);
    // The Symbol and Wingdings bullets ("l" in the layer) are "-"; the continuation line joins its
    // item; the 16 pt Courier lines (1.33 x the body size) are code, not a heading, with their
    // indentation, inner spaces and blank line.
    CHECK(md ==
          "# Shopping Notes\n\n"
          "Bring these items:\n\n"
          "- Apples\n"
          "- Pears\n"
          "- Plums from the market, the ripe ones that are soft\n\n"
          "Steps:\n\n"
          "1. Wash the fruit.\n"
          "2. Cut it into halves.\n\n"
          "```\n"
          "int main() {\n"
          "    int x = 1;\n"
          "\n"
          "    return x;\n"
          "}\n"
          "```\n\n"
          "Fruit Count\n\nApples 3\n\nPears 5\n\n"
          "That is all.\n");
    const std::string list = assemble::content_list(contents).text;
    INFO(list);
    CHECK(types_of(list) == std::vector<std::string>{"text", "text", "list", "text", "list", "code",
                                                     "text", "text", "text", "text"});

    // from_page: the ruled table from the page's image, its cells from the layer's words.
    const PageContent with_table = assemble::from_page(results[0], pages[0]);
    const std::string table_md = assemble::markdown(std::vector<PageContent>{with_table}).text;
    CHECK(table_md.substr(table_md.find("```\n\n") + 5) ==
          "| Fruit | Count |\n| --- | --- |\n| Apples | 3 |\n| Pears | 5 |\n\nThat is all.\n");
    CHECK(
        types_of(assemble::content_list(std::vector<PageContent>{with_table}).text) ==
        std::vector<std::string>{"text", "text", "list", "text", "list", "code", "table", "text"});
    // List items keep their markers as read (the Symbol and Wingdings bullets, whose glyphs the
    // layer cannot show, read as U+2022); the code body is bare, its language beside it.
    CHECK(in_order(
        list,
        {"\"type\": \"list\"", "\"sub_type\": \"text\"", "\"list_items\": [", "\"\u2022 Apples\",",
         "\"\u2022 Pears\",", "\"\u2022 Plums from the market, the ripe ones that are soft\"",
         "\"list_items\": [", "\"1. Wash the fruit.\",", "\"2. Cut it into halves.\"",
         "\"type\": \"code\"", "\"sub_type\": \"code\"", "\"code_caption\": []",
         "\"code_body\": \"int main() {\\n    int x = 1;\\n\\n    "
         "return x;\\n}\",\n    \"guess_lang\": \"txt\""}));
    // No "text" repeats the words of a list, a code block or a table.
    CHECK(list.find("\"text\": \"\u2022") == std::string::npos);
    CHECK(list.find("\"text\": \"int main") == std::string::npos);
}

namespace {

// An OCR line of words, each given by its text and left edge (12 pt high, 6 pt per character,
// one line every 16 pt from y = 100), added to `page` as Tesseract's engine adds them; `fonts`
// gives the words' fonts as a text layer would.
void ocr_line(OcrResult& page, int row, int paragraph,
              const std::vector<std::pair<std::string, double>>& words,
              const std::vector<std::string>& fonts = {}) {
    Line line;
    line.paragraph = paragraph;
    line.confidence = 90;
    const double top = 100 + 16 * row;
    const std::size_t first = page.words.size();
    for (const auto& [text, x] : words) {
        Word word;
        word.text = text;
        word.bbox = {x, top, x + 6.0 * static_cast<double>(text.size()), top + 12};
        word.confidence = 90;
        if (page.words.size() - first < fonts.size()) word.font = fonts[page.words.size() - first];
        if (!line.text.empty()) line.text += ' ';
        line.text += text;
        line.bbox = line.text == text
                        ? word.bbox
                        : BBox{line.bbox.x0, top, std::max(line.bbox.x1, word.bbox.x1), top + 12};
        page.words.push_back(word);
    }
    line.baseline = top + 9;
    page.lines.push_back(line);
}

std::string ocr_markdown(const OcrResult& page) {
    return assemble::markdown(std::vector<PageContent>{assemble::from_ocr(page)}).text;
}

}  // namespace

TEST_CASE("OCR bullets read as e or (c) or + make a list only at one hanging indent") {
    OcrResult page;
    page.width = 612;
    page.height = 792;
    ocr_line(page, 0, 0, {{"Fruit", 72}, {"we", 108}, {"need:", 126}});
    ocr_line(page, 1, 1, {{"e", 72}, {"Apples", 90}, {"and", 132}, {"pears", 156}});
    ocr_line(page, 2, 1, {{"for", 90}, {"the", 112}, {"pie", 134}});  // the hanging indent
    ocr_line(page, 3, 2, {{"\u00A9", 72}, {"Plums", 91}});
    ocr_line(page, 4, 3, {{"The", 72}, {"end.", 96}});
    CHECK(ocr_markdown(page) ==
          "Fruit we need:\n\n- Apples and pears for the pie\n- Plums\n\nThe end.\n");
    const std::string list =
        assemble::content_list(std::vector<PageContent>{assemble::from_ocr(page)}).text;
    CHECK(types_of(list) == std::vector<std::string>{"text", "list", "text"});

    // One "e" item alone is text (an OCR'd "e" can be a letter), and so are items whose texts
    // start at different indents.
    OcrResult lone;
    ocr_line(lone, 0, 0, {{"e", 72}, {"Apples", 90}});
    ocr_line(lone, 2, 1, {{"The", 72}, {"end.", 96}});
    CHECK(ocr_markdown(lone) == "e Apples\n\nThe end.\n");
    OcrResult ragged;
    ocr_line(ragged, 0, 0, {{"e", 72}, {"Apples", 90}});
    ocr_line(ragged, 1, 0, {{"\u00B0", 72}, {"Plums", 120}});
    CHECK(ocr_markdown(ragged) == "e Apples \u00B0 Plums\n");

    // What Tesseract reads a small bullet as ("+", U+00A2) and an en dash as (U+2014) makes
    // items too, at one indent; a lone "+" is text.
    OcrResult small;
    ocr_line(small, 0, 0, {{"+", 72}, {"Runs", 90}, {"anywhere", 120}});
    ocr_line(small, 1, 1, {{"\u00A2", 72}, {"Filters", 90}, {"first", 138}});
    ocr_line(small, 2, 2, {{"\u2014", 72}, {"Names", 90}});
    CHECK(ocr_markdown(small) == "- Runs anywhere\n- Filters first\n- Names\n");
    OcrResult sum;
    ocr_line(sum, 0, 0, {{"+", 72}, {"3", 90}, {"more", 100}});
    ocr_line(sum, 2, 1, {{"The", 72}, {"end.", 96}});
    CHECK(ocr_markdown(sum) == "+ 3 more\n\nThe end.\n");

    // Enumerators need two items too; "- 7 -" is a page number, no item.
    OcrResult numbered;
    ocr_line(numbered, 0, 0, {{"1.", 72}, {"Wash", 90}});
    ocr_line(numbered, 1, 1, {{"2)", 72}, {"Cut", 90}});
    ocr_line(numbered, 2, 2, {{"(iv)", 72}, {"Eat", 100}});
    CHECK(ocr_markdown(numbered) == "1. Wash\n2. Cut\n\n(iv) Eat\n");
    OcrResult dashes;
    ocr_line(dashes, 0, 0, {{"-", 300}, {"7", 308}, {"-", 316}});
    CHECK(ocr_markdown(dashes) == "- 7 -\n");
}

TEST_CASE(
    "from_page: a framed table with one rule under its head row gets its columns from the text") {
    // A frame and a rule under the head row, no other rules: the rule finder's grid is 2 rows by
    // 1 column. Its words stand in 3 columns (gaps of 8 pt or more; "96 TB" is one cell).
    Page page;
    page.width = 612;
    page.height = 792;
    page.dpi = 72;
    std::vector<std::uint8_t> pixels(612 * 792, 255);
    auto fill = [&](int x0, int y0, int x1, int y1) {
        for (int y = y0; y < y1; ++y) {
            for (int x = x0; x < x1; ++x) pixels[static_cast<std::size_t>(y) * 612 + x] = 0;
        }
    };
    fill(66, 94, 366, 95);  // the frame
    fill(66, 165, 366, 166);
    fill(66, 94, 67, 166);
    fill(365, 94, 366, 166);
    fill(66, 114, 366, 115);  // under the head row
    page.image.width = 612;
    page.image.height = 792;
    page.image.channels = 1;
    page.image.pixels = std::make_shared<const std::vector<std::uint8_t>>(pixels);

    OcrResult table;
    ocr_line(table, 0, 0, {{"Pool", 72}, {"Size", 180}, {"Used", 290}});
    ocr_line(table, 1, 1, {{"search", 72}, {"96", 180}, {"TB", 196}, {"71%", 290}});
    ocr_line(table, 2, 2, {{"media", 72}, {"120", 180}, {"TB", 202}, {"44%", 290}});
    ocr_line(table, 3, 3, {{"scratch", 72}, {"8", 180}, {"TB", 190}, {"93%", 290}});
    const PageContent content = assemble::from_page(table, page);
    REQUIRE(content.blocks.size() == 1);
    CHECK(content.blocks[0].rows == 4);
    CHECK(content.blocks[0].cols == 3);
    CHECK(assemble::markdown(std::vector<PageContent>{content}).text ==
          "| Pool | Size | Used |\n| --- | --- | --- |\n| search | 96 TB | 71% |\n"
          "| media | 120 TB | 44% |\n| scratch | 8 TB | 93% |\n");

    // Prose in the same frame has no column gap: the rules' grid stays, a row per ruled row.
    OcrResult note;
    ocr_line(note, 0, 0, {{"Note", 72}});
    ocr_line(note, 1, 1, {{"Keep", 72}, {"a", 102}, {"copy", 112}, {"of", 142}, {"the", 158}});
    ocr_line(note, 2, 1, {{"file", 72}, {"before", 100}, {"you", 142}, {"edit", 166}});
    ocr_line(note, 3, 1, {{"it", 72}, {"by", 88}, {"hand.", 106}});
    const PageContent boxed = assemble::from_page(note, page);
    REQUIRE(boxed.blocks.size() == 1);
    CHECK(boxed.blocks[0].rows == 2);
    CHECK(boxed.blocks[0].cols == 1);
    CHECK(boxed.blocks[0].cells.at(1).text ==
          "Keep a copy of the file before you edit it by hand.");
}

TEST_CASE("from_page: a table cell wrapped onto a line of its own continues that cell") {
    // Text-layer lines 12 pt high, one every 16 pt (ocr_line), 6 pt a character; columns at 72,
    // 250 and 340. A line of one piece under a row, starting where one of its cells starts and
    // ending before the next cell, continues that cell (in the first column only when a row
    // follows); anything else ends the table as before.
    using Words = std::vector<std::pair<std::string, double>>;
    // Words from x, each 6 pt a character and one space apart.
    auto words = [](double x, const std::string& text) {
        Words out;
        std::size_t at = 0;
        while (at < text.size()) {
            const std::size_t end = std::min(text.find(' ', at), text.size());
            out.push_back({text.substr(at, end - at), x});
            x += 6.0 * static_cast<double>(end - at + 1);
            at = end + 1;
        }
        return out;
    };
    auto row = [&](const std::string& a, const std::string& b, const std::string& c) {
        Words out = words(72, a);
        for (auto& w : words(250, b)) out.push_back(w);
        for (auto& w : words(340, c)) out.push_back(w);
        return out;
    };
    struct Case {
        const char* what;
        std::vector<Words> lines;  // one a row (16 pt apart)
        std::string markdown;
    };
    const std::string head = "| Atom | Type | Data |\n| --- | --- | --- |\n";
    const std::vector<Case> cases = {
        {"the last column wraps inside the table",
         {row("Atom", "Type", "Data"), row("BITMAP", "BITMAP", "A list of IDs"),
          row("CHARACTER_POSITION", "SPAN", "The start and end of"), words(340, "the selection"),
          row("CLASS", "TEXT", "see WM_CLASS")},
         head + "| BITMAP | BITMAP | A list of IDs |\n"
                "| CHARACTER_POSITION | SPAN | The start and end of the selection |\n"
                "| CLASS | TEXT | see WM_CLASS |\n"},
        {"the last column wraps twice on the table's last row",
         {row("Atom", "Type", "Data"), row("BITMAP", "BITMAP", "A list of IDs"),
          row("USER", "TEXT", "The name of the"), words(340, "user running"),
          words(340, "the owner")},
         head + "| BITMAP | BITMAP | A list of IDs |\n"
                "| USER | TEXT | The name of the user running the owner |\n"},
        {"a word hyphenated at the wrap is one word again",
         {row("Atom", "Type", "Data"), row("BITMAP", "BITMAP", "A list of IDs"),
          row("TIMESTAMP", "INTEGER", "The time used to acquire the se-"),
          words(340, "lection (see ICCCM)"), row("USER", "TEXT", "Its user")},
         head + "| BITMAP | BITMAP | A list of IDs |\n"
                "| TIMESTAMP | INTEGER | The time used to acquire the selection (see ICCCM) |\n"
                "| USER | TEXT | Its user |\n"},
        {"the first column wraps with a row after it",
         {row("Atom", "Type", "Data"), row("ADOBE_PORTABLE_DOCU-", "STRING", "[1]"),
          words(72, "MENT_FORMAT"), row("APPLE_PICT", "APPLE_PICT", "[2]")},
         head + "| ADOBE_PORTABLE_DOCU- MENT_FORMAT | STRING | [1] |\n"
                "| APPLE_PICT | APPLE_PICT | [2] |\n"},
        {"a footnote mark in the first column after the last row stays out",
         {row("Atom", "Type", "Data"), row("BITMAP", "BITMAP", "A list of IDs"),
          row("USER", "TEXT", "The name"), words(72, "a")},
         head + "| BITMAP | BITMAP | A list of IDs |\n| USER | TEXT | The name |\n\na\n"},
        {"a line under the table that reaches the next column stays out",
         {row("Atom", "Type", "Data"), row("BITMAP", "BITMAP", "A list of IDs"),
          row("USER", "TEXT", "The name"), words(72, "It is expected that this table will grow"),
          row("CLASS", "TEXT", "see WM_CLASS")},
         head + "| BITMAP | BITMAP | A list of IDs |\n| USER | TEXT | The name |\n\n"
                "It is expected that this table will grow\n\nCLASS TEXT see WM_CLASS\n"},
        // Joined by its wrapped cells, the whole would be one table but for one row whose first
        // two cells are a gap too close: the parts up to each wrapped row are tables as before.
        {"a row that breaks the columns leaves the parts around it tables",
         {row("Atom", "Type", "Data"), row("BITMAP", "BITMAP", "A list of IDs"),
          row("CHARACTER_POSITION", "SPAN", "The start and end of"), words(340, "the selection"),
          [&] {
              Words bad = words(72, "WM_COLORMAP_WINDOWS_TOO WINDOW");
              bad.push_back({"32", 340});
              return bad;
          }(),
          words(340, "Property"), row("CLASS", "TEXT", "see WM_CLASS"),
          row("DELETE", "NULL", "see DELETE"), row("FILE_NAME", "TEXT", "The full path")},
         head + "| BITMAP | BITMAP | A list of IDs |\n"
                "| CHARACTER_POSITION | SPAN | The start and end of the selection |\n\n"
                "WM_COLORMAP_WINDOWS_TOO WINDOW 32\n\nProperty\n\n"
                "| CLASS | TEXT | see WM_CLASS |\n| --- | --- | --- |\n"
                "| DELETE | NULL | see DELETE |\n| FILE_NAME | TEXT | The full path |\n"},
        {"a line that starts between two columns stays out",
         {row("Atom", "Type", "Data"), row("BITMAP", "BITMAP", "A list of IDs"),
          row("USER", "TEXT", "The name"), words(150, "between")},
         head + "| BITMAP | BITMAP | A list of IDs |\n| USER | TEXT | The name |\n\nbetween\n"},
    };
    for (const Case& c : cases) {
        INFO(c.what);
        OcrResult page;
        page.text_source = "layer";
        for (std::size_t i = 0; i < c.lines.size(); ++i) {
            ocr_line(page, static_cast<int>(i), static_cast<int>(i), c.lines[i]);
        }
        const PageContent content = assemble::from_page(page, Page{});
        CHECK(assemble::markdown(std::vector<PageContent>{content}).text == c.markdown);
    }
}

TEST_CASE(
    "from_page: a table set without rules is found from its columns but prose and lists are not") {
    // Text-layer lines (no font names: no code), 12 pt high, one every 16 pt (ocr_line). Each case
    // is a page of rows, each row its lines' words; `tables` says what from_page makes of it.
    struct Row {
        int row;
        std::vector<std::pair<std::string, double>> words;
        std::vector<std::string> fonts = {};
        double size = 0;  // the layer's font size
    };
    struct Case {
        const char* what;
        std::vector<Row> rows;
        int tables;  // table blocks made
        int cols;    // the first table's columns
        std::string source = "layer";
    };
    const std::string mono = "Courier";
    const std::vector<Case> cases = {
        {"three rows of three columns",
         {{0, {{"Code", 72}, {"Meaning", 150}, {"Since", 400}}},
          {1,
           {{"0", 72}, {"every", 150}, {"file", 186}, {"was", 214}, {"read", 238}, {"1.0", 400}}},
          {2, {{"1", 72}, {"some", 150}, {"were", 180}, {"rejected", 210}, {"1.2", 400}}}},
         1,
         3},
        {"two rows are no table",
         {{0, {{"Code", 72}, {"Meaning", 150}}}, {1, {{"0", 72}, {"every", 150}}}},
         0,
         0},
        {"rows apart are paragraphs, not a table",
         {{0, {{"a", 72}, {"b", 150}}}, {2, {{"c", 72}, {"d", 150}}}, {4, {{"e", 72}, {"f", 150}}}},
         0,
         0},
        {"one column of prose beside a column of codes is a table",
         {{0,
           {{"0", 72}, {"the", 150}, {"command", 172}, {"line", 220}, {"is", 248}, {"bad", 264}}},
          {1,
           {{"1", 72}, {"an", 150}, {"input", 166}, {"could", 200}, {"not", 234}, {"open", 256}}},
          {2,
           {{"2", 72}, {"a", 150}, {"record", 160}, {"was", 200}, {"not", 222}, {"parsed", 244}}}},
         1,
         2},
        {"two columns of prose are a page in two columns",
         {{0, {{"the", 72}, {"left", 94}, {"column", 122}, {"holds", 164}, {"text", 200}}},
          {0, {{"the", 320}, {"right", 342}, {"column", 376}, {"holds", 418}, {"more", 454}}},
          {1, {{"and", 72}, {"its", 94}, {"lines", 116}, {"go", 150}, {"on", 166}}},
          {1, {{"and", 320}, {"its", 342}, {"lines", 364}, {"go", 398}, {"on", 414}}},
          {2, {{"until", 72}, {"the", 106}, {"page", 128}, {"is", 156}, {"full", 172}}},
          {2, {{"until", 320}, {"the", 354}, {"page", 376}, {"is", 404}, {"full", 420}}}},
         0,
         0},
        // The bullet's box is 18 pt wide here: its text starts 16 pt past it, a column's gap.
        {"bullets at a hanging indent are a list",
         {{0, {{"\u2022", 72}, {"Apples", 106}}},
          {1, {{"\u2022", 72}, {"Pears", 106}}},
          {2, {{"\u2022", 72}, {"Plums", 106}}}},
         0,
         0},
        {"a monospace listing aligned in columns is code",
         {{0, {{"alpha", 72}, {"1", 150}}, {mono, mono}},
          {1, {{"beta", 72}, {"2", 150}}, {mono, mono}},
          {2, {{"gamma", 72}, {"3", 150}}, {mono, mono}}},
         0,
         0},
        // OCR gives no fonts: words at one pitch (6 pt a character, gaps of whole cells) are code.
        {"an OCR'd listing at one pitch is code",
         {{0, {{"alpha", 72}, {"10", 150}}},
          {1, {{"beta", 72}, {"20", 150}}},
          {2, {{"gamma", 72}, {"30", 150}}}},
         0,
         0,
         "ocr"},
        // ...but one row may fit a pitch by chance: "Code" and "Name" are 6.4 pt a character
        // less the bearings, and 12 such cells apart.
        {"an OCR'd table whose head row fits a pitch",
         {{0, {{"Code", 72}, {"Name", 148.8}}},
          {1, {{"0", 72}, {"every", 152}, {"file", 185}}},
          {2, {{"1", 72}, {"some", 152}, {"records", 181}}}},
         1,
         2,
         "ocr"},
        {"rows of a heading's size are no cells",
         {{0, {{"Part", 72}, {"One", 150}}, {}, 18},
          {1, {{"Part", 72}, {"Two", 150}}, {}, 18},
          {2, {{"Part", 72}, {"Six", 150}}, {}, 18},
          {6, {{"Body", 72}, {"text.", 104}}, {}, 12},
          {7, {{"More", 72}, {"text.", 104}}, {}, 12},
          {8, {{"Last", 72}, {"text.", 104}}, {}, 12},
          {9, {{"Body", 72}, {"ends.", 104}}, {}, 12}},
         0,
         0},
        {"a table of contents' dot leaders",
         {{0, {{"2.1", 72}, {"Naming", 96}, {".", 150}, {".", 156}, {".", 162}, {"3", 300}}},
          {1, {{"2.2", 72}, {"Parsing", 96}, {".", 150}, {".", 156}, {".", 162}, {"4", 300}}},
          {2, {{"2.3", 72}, {"Notes", 96}, {"......", 150}, {"4", 300}}}},
         0,
         0},
        {"formulas beside their numbers",
         {{0, {{"z", 150}, {"=", 160}, {"cx", 170}, {"(2.7)", 400}}},
          {1, {{"Ax", 150}, {"=", 166}, {"b,", 176}, {"(2.8)", 400}}},
          {2, {{"x", 150}, {">=", 160}, {"0,", 176}, {"(2.9a)", 400}}}},
         0,
         0},
        {"a column that most rows leave empty",
         {{0, {{"a", 72}, {"b", 150}}},
          {1, {{"c", 72}, {"d", 150}}},
          {2, {{"e", 72}, {"f", 150}}},
          {3, {{"g", 72}, {"h", 300}}}},
         0,
         0},
        {"two pieces of one row in one column",
         {{0, {{"a", 72}, {"b", 130}, {"z", 300}}},
          {1, {{"a", 72}, {"long", 78}, {"cell", 104}, {"text", 130}, {"y", 300}}},
          {2, {{"c", 72}, {"x", 300}}}},
         0,
         0},
    };
    for (const Case& c : cases) {
        INFO(c.what);
        OcrResult page;
        page.text_source = c.source;
        int paragraph = 0;
        for (const Row& row : c.rows) {
            ocr_line(page, row.row, paragraph++, row.words, row.fonts);
            page.lines.back().font_size = row.size;
        }
        const PageContent content = assemble::from_page(page, Page{});
        std::vector<const Block*> tables;
        for (const Block& block : content.blocks) {
            if (block.type == "table") tables.push_back(&block);
        }
        CHECK(static_cast<int>(tables.size()) == c.tables);
        if (!tables.empty()) CHECK(tables[0]->cols == c.cols);
        if (c.tables == 0) {
            // Nothing taken: from_page gives what from_ocr gives.
            CHECK(assemble::markdown(std::vector<PageContent>{content}).text == ocr_markdown(page));
        }
    }

    // The first case whole: the head row and the cells in place, the table before the text below.
    OcrResult codes;
    codes.text_source = "layer";
    ocr_line(codes, 0, 0, {{"Exit", 72}, {"codes:", 100}});
    ocr_line(codes, 2, 1, {{"Code", 72}, {"Meaning", 150}});
    ocr_line(codes, 3, 2, {{"0", 72}, {"read", 150}, {"all", 176}});
    ocr_line(codes, 4, 2, {{"1", 72}, {"rejected", 150}});
    ocr_line(codes, 6, 3, {{"That", 72}, {"is", 100}, {"all.", 116}});
    CHECK(assemble::markdown(std::vector<PageContent>{assemble::from_page(codes, Page{})}).text ==
          "Exit codes:\n\n| Code | Meaning |\n| --- | --- |\n| 0 | read all |\n| 1 | rejected |\n\n"
          "That is all.\n");
    // Tesseract reads a speck between two columns as "__": on an OCR'd page a word without a
    // letter or digit neither joins two cells into one piece nor fills a cell. (The gaps here are
    // no whole number of 6 pt cells: no line is at one pitch.)
    OcrResult specks;
    ocr_line(specks, 0, 0, {{"Filter", 72}, {"Matches", 151}, {"Example", 260}});
    ocr_line(specks, 1, 0,
             {{"equals", 72},
              {"the", 151},
              {"exact", 173},
              {"value", 207},
              {"__", 240},
              {"country", 256}});
    ocr_line(specks, 2, 0, {{"prefix", 72}, {"values", 151}, {"city", 260}});
    ocr_line(specks, 3, 0, {{"range", 72}, {"numbers", 151}, {"price", 260}});
    CHECK(assemble::markdown(std::vector<PageContent>{assemble::from_page(specks, Page{})}).text ==
          "| Filter | Matches | Example |\n| --- | --- | --- |\n"
          "| equals | the exact value | country |\n| prefix | values | city |\n"
          "| range | numbers | price |\n");
}

TEST_CASE("from_ocr: a paragraph indented an en past a list's text is no continuation of it") {
    // Bullets at 72, item texts at 90; the last item is followed, with no gap, by a paragraph
    // whose first line is indented to 95 (as groff's -ms sets a paragraph after a list).
    for (const double jitter : {0.0, 1.5}) {
        INFO("continuation line at " << 90 + jitter);
        OcrResult page;
        page.text_source = "layer";
        ocr_line(page, 0, 0, {{"\u2022", 72}, {"Apples", 90}});
        ocr_line(page, 1, 0, {{"are", 90 + jitter}, {"red", 112 + jitter}});
        ocr_line(page, 2, 0, {{"\u2022", 72}, {"Pears", 90}});
        ocr_line(page, 3, 0, {{"Then", 95}, {"the", 125}, {"rest", 147}});
        ocr_line(page, 4, 0, {{"goes", 72}, {"on.", 100}});
        CHECK(ocr_markdown(page) == "- Apples are red\n- Pears\n\nThen the rest goes on.\n");
    }
}

TEST_CASE("from_page: the framed table and the table without rules of a real page in both modes") {
    // structure/tables.pdf: a frame with a rule under the head row (4 columns), then a table set
    // without rules (3 columns), read from the text layer and by Tesseract.
    const std::string framed =
        "| Pool | Size (TB) | Used (TB) | Free (%) |\n| --- | --- | --- | --- |\n"
        "| fast | 120 | 84 | 30 |\n| bulk | 640 | 402 | 37 |\n| archive | 900 | 811 | 10 |\n"
        "| scratch | 60 | 12 | 80 |\n";
    const std::string plain =
        "| Team | Second quarter | Third quarter |\n| --- | --- | --- |\n"
        "| search | 96 TB | 118 TB |\n| billing | 40 TB | 44 TB |\n| media | 310 TB | 355 TB |\n";
    ocr::Tesseract engine("eng");
    for (const pdf::TextSource source : {pdf::TextSource::layer, pdf::TextSource::ocr}) {
        const std::vector<Page> pages = render("structure/tables.pdf", 150, source);
        const std::vector<OcrResult> results = engine(pages);
        const std::string md =
            assemble::markdown(std::vector<PageContent>{assemble::from_page(results[0], pages[0])})
                .text;
        INFO(md);
        CHECK(in_order(md, {"Storage Report", "The pools at the end of the quarter", framed,
                            "Growth by team, without rules:", plain.substr(0, plain.find("44")),
                            "| media | 310 TB | 355 TB |\n\nThe archive pool is nearly full."}));
        // Tesseract reads the table's 44 TB as "44TB"; the layer has it as it is.
        if (source == pdf::TextSource::layer) CHECK(md.find(plain) != std::string::npos);
    }
}

TEST_CASE("a code line may hold one word of a fallback font but not prose around inline code") {
    OcrResult page;
    page.text_source = "layer";
    const std::string mono = "ABCDEF+CMTT10";  // TeX's typewriter: no "mono" in its name
    ocr_line(page, 0, 0, {{"<a>", 72}, {"x", 96}}, {mono, mono});
    ocr_line(page, 1, 0, {{"<b>", 90}, {"l\u00c3a", 114}, {"</b>", 144}}, {mono, "CMR10", mono});
    ocr_line(page, 3, 1, {{"returns", 72}, {"ASN1_OK", 120}, {"if", 168}, {"ok", 186}},
             {"CMR10", mono, "CMR10", "CMR10"});
    CHECK(ocr_markdown(page) == "```\n<a> x\n   <b> l\u00c3a </b>\n```\n\nreturns ASN1_OK if ok\n");
}

TEST_CASE("page finds the list a layout region's lines end with") {
    auto region = [](const std::string& text, const std::string& source) {
        Region r;
        r.text = text;
        r.text_source = source;
        r.page_width = 612;
        r.page_height = 792;
        r.bbox = {72, 100, 400, 200};
        return r;
    };
    const std::vector<Region> regions = {
        region("Bring these items:\n\u2022 Apples\n\u2022 Pears\nthat are ripe", "layer"),
        region("1. Wash\n2) Cut", "layer"), region("1. Only one step", "layer"),
        region("e Apples\n\u00A9 Plums", "ocr"), region("e Apples", "ocr")};
    const PageContent content = assemble::page(regions);
    const std::string md = assemble::markdown(std::vector<PageContent>{content}).text;
    CHECK(md ==
          "Bring these items:\n\n- Apples\n- Pears that are ripe\n\n1. Wash\n2. Cut\n\n"
          "1. Only one step\n\n- Apples\n- Plums\n\ne Apples\n");
    CHECK(types_of(assemble::content_list(std::vector<PageContent>{content}).text) ==
          std::vector<std::string>{"text", "list", "list", "text", "list", "text"});
}

TEST_CASE("page makes a text-layer region's numbered first line above the body size a heading") {
    // Each row: the region's text and its layer font size (its words' largest; the body's is 10),
    // whether its first line becomes a heading and what text block follows it.
    struct Row {
        std::string text;
        double size;
        std::string source;
        bool heading;
        std::string rest = "";  // the text block after the heading, when the region had more
    };
    const std::vector<Row> rows = {
        {"2.1 Disk Failures", 12, "layer", true},
        {"Lessons Learned", 12, "layer", true},     // a short title alone, 1.2 times the body
        {"2.1 Disk Failures", 10, "layer", false},  // the body size
        // The layout joined the heading to its paragraph: the 12 pt is the heading's.
        {"2.1 Disk Failures\nTwo disks failed.", 12, "layer", true, "Two disks failed."},
        {"Lessons Learned\nWe keep spares.", 12, "layer", true, "We keep spares."},
        {"2.1 Disk Failures\nTwo disks failed.", 10, "layer", false},  // all at the body size
        {"Two disks failed.\n2.1 Disk Failures", 12, "layer", false},  // not first
        {"2.1 Disk Failures\nTwo disks failed.", 12, "ocr", false},    // no layer sizes
        {"2.1 Disk Failures", 0, "ocr", false},                        // no size to compare
        {"3 disks were replaced", 12, "layer", false},                 // no capitalized word
    };
    for (const Row& row : rows) {
        INFO(row.text << " " << row.size);
        std::vector<Region> regions;
        auto add = [&](const std::string& text, double size, const std::string& source) {
            Region r;
            r.text = text;
            r.font_size = size;
            r.text_source = source;
            r.page_width = 612;
            r.page_height = 792;
            r.bbox = {72, 100.0 + 40 * static_cast<double>(regions.size()), 400,
                      130.0 + 40 * static_cast<double>(regions.size())};
            regions.push_back(r);
        };
        for (int i = 0; i < 3; ++i)
            add("Body text of a paragraph.", row.size > 0 ? 10 : 0, row.source);
        add(row.text, row.size, row.source);
        const PageContent content = assemble::page(regions);
        REQUIRE(content.blocks.size() == (row.rest.empty() ? 4u : 5u));
        CHECK((content.blocks[3].text_level > 0) == row.heading);
        if (row.heading) CHECK(content.blocks[3].text_level == 3);
        if (row.heading) CHECK(content.blocks[3].text == row.text.substr(0, row.text.find('\n')));
        if (!row.rest.empty()) {
            CHECK(content.blocks[4].text == row.rest);
            CHECK(content.blocks[4].text_level == 0);
        }
    }
}

namespace {

// A code region the layout made from a text-layer page, at `box`.
Region code_region(const std::string& text, BBox box) {
    Region region;
    region.kind = RegionKind::code;
    region.text = text;
    region.text_source = "layer";
    region.bbox = box;
    return region;
}

}  // namespace

TEST_CASE("page joins the code regions the layout cut a listing into") {
    // Monospace at 6 pt a character, 12 pt lines: a function cut at its blank line and before its
    // last line, then a listing 3 lines further down, and a "=" to the right of it a line lower.
    const std::vector<Region> regions = {
        code_region("int main() {\n    int x = 1;", {72, 100, 156, 124}),
        code_region("return x;", {96, 138, 150, 150}),  // a blank line above it, 4 characters in
        code_region("}", {72, 152, 78, 164}),
        code_region("far = 1;", {72, 200, 120, 212}),  // 3 lines below: a listing of its own
        code_region("=", {200, 214, 206, 226}),        // right of it, no column in common
    };
    const PageContent content = assemble::page(regions);
    REQUIRE(content.blocks.size() == 3);
    CHECK(content.blocks[0].text == "int main() {\n    int x = 1;\n\n    return x;\n}");
    CHECK(content.blocks[0].bbox.y1 == 164);
    CHECK(content.blocks[1].text == "far = 1;");
    CHECK(content.blocks[2].text == "=");
}

TEST_CASE("page puts back the pieces the layout cut out of a listing sideways") {
    // Monospace at 6 pt a character, 12 pt lines from y = 100, the listing's left edge at 72: a
    // grammar whose column of "=" (at character 8) the layout took for a region of its own, and
    // the "')' ;" that ends its last row; each goes back at its column in the row it sits on.
    // A piece whose column holds a character of the listing, and one beside it but above its
    // top, stay blocks of their own.
    const std::string grammar =
        "expr      term , { '+' , term } ;\n"
        "term      factor , { '*' , factor } ;\n"
        "primary = number | '(' , expr ,";
    const std::vector<Region> regions = {
        code_region(grammar, {72, 100, 294, 136}),  // 37 characters at most
        code_region("=\n=", {120, 101, 126, 123}),
        code_region("')' ;", {264, 125, 294, 136}),  // character 32 of the last row
    };
    const PageContent content = assemble::page(regions);
    REQUIRE(content.blocks.size() == 1);
    CHECK(content.blocks[0].text ==
          "expr    = term , { '+' , term } ;\n"
          "term    = factor , { '*' , factor } ;\n"
          "primary = number | '(' , expr , ')' ;");
    CHECK(content.blocks[0].bbox.y1 == 136);

    const std::vector<Region> apart = {
        code_region(grammar, {72, 100, 294, 136}),
        code_region("==", {84, 101, 96, 111}),  // on "expr": its characters are in the way
        code_region("=", {120, 80, 126, 90}),   // above the listing's top
    };
    const PageContent kept = assemble::page(apart);
    REQUIRE(kept.blocks.size() == 3);
    CHECK(kept.blocks[0].text == grammar);

    // Boxes a hand-made UDF left flat (no height) place no row: the piece is not written into
    // the listing's first row (the join one under the other then takes it, below the listing).
    const std::vector<Region> flat = {
        code_region(grammar, {72, 100, 294, 100}),
        code_region("=", {120, 100, 126, 100}),
    };
    const PageContent joined = assemble::page(flat);
    REQUIRE(joined.blocks.size() == 1);
    CHECK(joined.blocks[0].text.starts_with("expr      term"));
}

TEST_CASE("page makes a code region a code block with its rows and columns as they are") {
    Region listing;
    listing.kind = RegionKind::code;
    listing.text = "-c, --check   checks the syntax only\n    -h, --help    display this help";
    listing.text_source = "layer";
    listing.bbox = {72, 100, 400, 140};
    Region prose = listing;
    prose.kind = RegionKind::text;
    prose.text = "Options:";
    const PageContent content = assemble::page(std::vector<Region>{prose, listing});
    REQUIRE(content.blocks.size() == 2);
    CHECK(content.blocks[0].type == "text");
    CHECK(content.blocks[1].type == "code");
    CHECK(content.blocks[1].text == listing.text);
    const nlohmann::json list =
        nlohmann::json::parse(assemble::content_list(std::vector<PageContent>{content}).text);
    REQUIRE(list.size() == 2);
    CHECK(list[1]["type"] == "code");
    CHECK(list[1]["code_body"].get<std::string>().find(
              "-c, --check   checks the syntax only\n    -h, --help") != std::string::npos);
}

namespace {

// An OCR'd page built word by word (no font names, no font sizes), as std.ocr gives one: each
// line's words with their ink boxes, the line's box around them, its baseline `ascent` below its
// top and its paragraph.
struct OcrPage {
    OcrResult page;
    double y = 100;

    void line(const std::vector<std::pair<std::string, std::pair<double, double>>>& words,
              double ascent, int paragraph, double step = 12) {
        std::string text;
        BBox box{1e9, y, 0, y + ascent + 2};
        for (const auto& [word, span] : words) {
            text += (text.empty() ? "" : " ") + word;
            page.words.push_back({word, {span.first, y, span.second, y + ascent + 2}, 90, 0, ""});
            box.x0 = std::min(box.x0, span.first);
            box.x1 = std::max(box.x1, span.second);
        }
        page.lines.push_back({text, box, 90, y + ascent, 0, paragraph, 0});
        y += step;
    }

    // A line set in a fixed-pitch font, `pitch` points a character from x = 72: each word's ink
    // starts a little into its first cell and ends short of its last, more for punctuation.
    void mono(const std::string& text, int paragraph, double pitch = 5.4) {
        std::vector<std::pair<std::string, std::pair<double, double>>> words;
        std::size_t at = 0;
        while ((at = text.find_first_not_of(' ', at)) != std::string::npos) {
            const std::size_t end = std::min(text.find(' ', at), text.size());
            const std::string word = text.substr(at, end - at);
            auto bearing = [&](char c) {
                return std::isalnum(static_cast<unsigned char>(c)) != 0 ? 0.12 * pitch
                                                                        : 0.35 * pitch;
            };
            words.push_back({word,
                             {72 + static_cast<double>(at) * pitch + bearing(word.front()),
                              72 + static_cast<double>(end) * pitch - bearing(word.back())}});
            at = end;
        }
        line(words, 5.5, paragraph, 11);
    }

    // A line of words in a proportional font: `widths` gives each letter's width (others 4.5),
    // and each word starts `advance(word)` after the one before.
    void proportional(const std::string& text, int paragraph,
                      const std::function<double(const std::string&, double)>& next_x) {
        const std::map<char, double> widths = {{'i', 2.8}, {'l', 2.8}, {'t', 2.8}, {'f', 3.3},
                                               {'r', 3.3}, {'m', 7.8}, {'w', 7.2}, {'W', 9.4},
                                               {'M', 8.9}, {'j', 2.8}};
        std::vector<std::pair<std::string, std::pair<double, double>>> words;
        double x = 72;
        std::size_t at = 0;
        while (at < text.size()) {
            const std::size_t end = std::min(text.find(' ', at), text.size());
            const std::string word = text.substr(at, end - at);
            double width = 0;
            for (char c : word) width += widths.count(c) > 0 ? widths.at(c) : 4.5;
            words.push_back({word, {x, x + width}});
            x = next_x(word, x + width);
            at = end + 1;
        }
        line(words, 7, paragraph, 12);
    }
};

std::vector<std::string> code_blocks(const PageContent& content) {
    std::vector<std::string> out;
    for (const Block& block : content.blocks) {
        if (block.type == "code") out.push_back(block.text);
    }
    return out;
}

}  // namespace

TEST_CASE("from_ocr: an OCR'd listing at one character pitch is one code block, indented") {
    // No font names: the words' boxes alone (widths per character, word starts a whole number of
    // cells apart) tell the listing, and each line's offset in cells is its indentation.
    const std::string listing =
        "def growth(before, after):\n"
        "    if before == 0:\n"
        "        return None\n"
        "    return round(100 * (after - before) / before)";
    OcrPage ocr;
    ocr.proportional("The growth is computed as follows", 0,
                     [](const std::string&, double end) { return end + 2.5; });
    ocr.y += 10;
    int paragraph = 1;
    std::size_t start = 0;
    while (start <= listing.size()) {
        const std::size_t end = std::min(listing.find('\n', start), listing.size());
        ocr.mono(listing.substr(start, end - start), paragraph++);  // Tesseract splits listings
        start = end + 1;
    }
    // A label under it, in a bold face whose one word happens to span 11 cells of the pitch.
    ocr.line({{"Description", {72, 72 + 10.75 * 5.4}}}, 5.5, paragraph++, 12);
    ocr.y += 10;
    ocr.proportional("and the result is printed", paragraph,
                     [](const std::string&, double end) { return end + 2.5; });
    const PageContent content = assemble::from_ocr(ocr.page);
    INFO(assemble::markdown(std::vector<PageContent>{content}).text);
    CHECK(code_blocks(content) == std::vector<std::string>{listing});
    REQUIRE(content.blocks.size() == 4);
    CHECK(content.blocks[0].text == "The growth is computed as follows");
    CHECK(content.blocks[2].text == "Description");
    CHECK(content.blocks[3].text == "and the result is printed");
}

TEST_CASE("from_ocr: a prose line between two OCR'd commands does not join them into code") {
    // Each command fits one pitch; together they would be enough for a listing, but the prose
    // line between them is off the pitch in more than one word: it is no misread code line.
    OcrPage ocr;
    ocr.mono("$ bdftopcf courier12.bdf", 0);
    ocr.proportional("You may then want to compress the resulting font files", 1,
                     [](const std::string&, double end) { return end + 2.5; });
    ocr.mono("$ gzip courier12.pcf", 2);
    const PageContent content = assemble::from_ocr(ocr.page);
    INFO(assemble::markdown(std::vector<PageContent>{content}).text);
    for (const std::string& code : code_blocks(content)) {
        CHECK(code.find("compress") == std::string::npos);
    }
    CHECK(std::any_of(content.blocks.begin(), content.blocks.end(), [](const Block& block) {
        return block.type == "text" && block.text.find("compress") != std::string::npos;
    }));
}

TEST_CASE("from_ocr: proportional text whose words start a whole number of cells apart is text") {
    // The words start where a 5-point pitch would put them (their characters and a space), but
    // their widths per character differ ("minimum" against "little"): no code.
    OcrPage ocr;
    for (const std::string& text : {std::string("the minimum will fit into a little room"),
                                    std::string("with more items than we have time for"),
                                    std::string("while the mill turns it will stay")}) {
        double start = 72;
        ocr.proportional(text, 0, [&](const std::string& word, double) {
            start += 5.0 * static_cast<double>(word.size() + 1);
            return start;
        });
    }
    const PageContent content = assemble::from_ocr(ocr.page);
    INFO(assemble::markdown(std::vector<PageContent>{content}).text);
    CHECK(code_blocks(content).empty());
    REQUIRE(content.blocks.size() == 1);
    CHECK(content.blocks[0].type == "text");
}

TEST_CASE("page: an OCR'd region whose lines are set at one pitch is a code block") {
    // std.ocr.RegionText keeps a text or heading region's OCR lines and words: page() finds code
    // in them as from_ocr does (the layout cannot tell a listing from text without fonts). The
    // same lines from the text layer, or in a proportional font, stay the region's text.
    const std::string listing =
        "def growth(before, after):\n"
        "    if before == 0:\n"
        "        return None";
    OcrPage code;
    int paragraph = 0;
    std::size_t start = 0;
    while (start <= listing.size()) {
        const std::size_t end = std::min(listing.find('\n', start), listing.size());
        code.mono(listing.substr(start, end - start), paragraph++);
        start = end + 1;
    }
    OcrPage prose;
    for (const std::string& text : {std::string("the minimum will fit into a little room"),
                                    std::string("with more items than we have time for")}) {
        prose.proportional(text, 0, [](const std::string&, double end) { return end + 2.5; });
    }
    auto region_of = [](const OcrPage& ocr, RegionKind kind, const std::string& source) {
        Region region;
        region.kind = kind;
        region.level = kind == RegionKind::heading ? 2 : 0;
        region.text_source = source;
        region.lines = ocr.page.lines;
        region.words = ocr.page.words;
        for (const Line& line : ocr.page.lines) {
            region.text += (region.text.empty() ? "" : "\n") + line.text;
        }
        return region;
    };
    struct Case {
        const char* what;
        Region region;
        bool code;
    };
    const std::vector<Case> cases = {
        {"a text region at one pitch", region_of(code, RegionKind::text, "ocr"), true},
        {"a heading region at one pitch (code set large)",
         region_of(code, RegionKind::heading, "ocr"), true},
        {"the same lines from the text layer", region_of(code, RegionKind::text, "layer"), false},
        {"prose in a proportional font", region_of(prose, RegionKind::text, "ocr"), false},
    };
    for (const Case& c : cases) {
        INFO(c.what);
        const PageContent content = assemble::page(std::vector<Region>{c.region});
        INFO(assemble::markdown(std::vector<PageContent>{content}).text);
        if (c.code) {
            CHECK(code_blocks(content) == std::vector<std::string>{listing});
            CHECK(std::none_of(content.blocks.begin(), content.blocks.end(),
                               [](const Block& block) { return block.text_level > 0; }));
        } else {
            CHECK(code_blocks(content).empty());
            REQUIRE_FALSE(content.blocks.empty());
            CHECK(content.blocks.front().text.find(c.region.lines.front().text) == 0);
        }
    }
}

TEST_CASE("from_ocr: a table's rows of even-width words and numbers off the cells are no code") {
    // Digits and these letters are all 5.5 points wide, so every word fits one pitch; the
    // columns start at places no pitch puts them (half a cell off): a table, not a listing.
    OcrPage ocr;
    const std::vector<std::vector<std::string>> rows = {
        {"queue", "480", "300", "62"}, {"backup", "960", "710", "74"}, {"cache", "48", "40", "83"}};
    for (const auto& row : rows) {
        std::vector<std::pair<std::string, std::pair<double, double>>> words;
        const std::array<double, 4> columns = {72, 133.5, 178.2, 226.9};
        for (std::size_t c = 0; c < row.size(); ++c) {
            words.push_back(
                {row[c], {columns[c], columns[c] + 5.5 * static_cast<double>(row[c].size())}});
        }
        ocr.line(words, 7, 0, 12);
    }
    const PageContent content = assemble::from_ocr(ocr.page);
    INFO(assemble::markdown(std::vector<PageContent>{content}).text);
    CHECK(code_blocks(content).empty());
}

TEST_CASE("heading levels: OCR'd pages without an outline rank their headings by height") {
    // Ascents 13.3, 11.2 and 9.1 points over a 7-point body: each page's ratios alone make the
    // first two level 2 (1.9 and 1.6 times the body); across the document they rank 1, 2 and 3.
    auto page = [](int index, const std::vector<std::pair<std::string, double>>& lines) {
        OcrPage ocr;
        ocr.page.page_index = index;
        ocr.page.width = 612;
        ocr.page.height = 792;
        int paragraph = 0;
        for (const auto& [text, ascent] : lines) {
            ocr.line({{text, {72, 72 + 4.5 * static_cast<double>(text.size())}}}, ascent,
                     paragraph++, 2 * ascent + 8);
        }
        return assemble::from_ocr(ocr.page);
    };
    const std::vector<PageContent> pages = {page(0, {{"Cluster Notes", 13.3},
                                                     {"Body one.", 7},
                                                     {"Body two.", 7},
                                                     {"Body three.", 7},
                                                     {"Overview", 11.2},
                                                     {"Body four.", 7}}),
                                            page(1, {{"Details", 11.2},
                                                     {"Body five.", 7},
                                                     {"Fine Points", 9.1},
                                                     {"Body six.", 7},
                                                     {"Body seven.", 7}})};
    CHECK(pages[0].blocks[0].text_level == 2);  // the page's own ratio
    const auto levels = levels_of(pages);
    CHECK(levels[0] == std::pair<std::string, int>{"Cluster Notes", 1});
    CHECK(levels[4] == std::pair<std::string, int>{"Overview", 2});
    CHECK(levels[6] == std::pair<std::string, int>{"Details", 2});
    CHECK(levels[8] == std::pair<std::string, int>{"Fine Points", 3});
}

TEST_CASE("heading levels: section numbers settle OCR'd headings whose heights straddle a rank") {
    // "1 Capacity" and "2 Incidents" are one size, measured 10.9 and 9.7 points: more than 10%
    // apart, so the heights alone rank them 2 and 3 and "2.1 Disk Failures" 4. The numbers put
    // both sections at one level and the subsection one below.
    std::vector<PageContent> pages = {
        letter_page(0, {heading("Storage Report", 1, 13.3), heading("1 Capacity", 2, 10.9),
                        heading("Body.", 0, 0), heading("2 Incidents", 2, 9.7),
                        heading("2.1 Disk Failures", 3, 8.6), heading("A.1 Terms", 3, 8.6)})};
    CHECK(levels_of(pages) == std::vector<std::pair<std::string, int>>{{"Storage Report", 1},
                                                                       {"1 Capacity", 2},
                                                                       {"Body.", 0},
                                                                       {"2 Incidents", 2},
                                                                       {"2.1 Disk Failures", 3},
                                                                       {"A.1 Terms", 3}});
    // On text-layer pages the font sizes are exact: they alone rank the levels.
    for (PageContent& page : pages) page.text_source = "layer";
    CHECK(levels_of(pages)[3] == std::pair<std::string, int>{"2 Incidents", 3});
}

TEST_CASE(
    "page sizes an OCR'd region by its lines: headings under the size rule, and their ranks") {
    // An OCR'd page has no fonts: a region's size is its OCR lines' largest ascent (from_ocr's
    // measure). Three body regions at 7 points; the last region is each row's, its lines' ascents
    // given. A numbered heading or a short title alone at 1.2 times the body is a heading, and so
    // is such a line first in a region of several (the layout joined it to its paragraph).
    struct Row {
        std::vector<std::pair<std::string, double>> lines;
        bool heading;
        std::string rest = "";  // the text block after the heading, when the region had more
    };
    const std::vector<Row> rows = {
        {{{"2.1 Disk Failures", 8.4}}, true},
        {{{"Lessons Learned", 8.4}}, true},
        {{{"2.1 Disk Failures", 7}}, false},  // the body size
        {{{"2.1 Disk Failures", 8.4}, {"Two disks failed.", 7}}, true, "Two disks failed."},
        {{{"Lessons Learned", 8.4}, {"We keep spares.", 7}}, true, "We keep spares."},
        {{{"2.1 Disk Failures", 7}, {"Two disks failed.", 7}}, false},    // all at the body size
        {{{"Two disks failed.", 7}, {"2.1 Disk Failures", 8.4}}, false},  // not first
        {{{"3 disks were replaced", 8.4}}, false},                        // no capitalized word
    };
    auto region_of = [](const std::vector<std::pair<std::string, double>>& lines, double top) {
        OcrPage ocr;
        ocr.y = top;
        for (const auto& [text, ascent] : lines) {
            ocr.line({{text, {72, 72 + 4.5 * static_cast<double>(text.size())}}}, ascent, 0);
        }
        Region region;
        region.text_source = "ocr";
        region.page_width = 612;
        region.page_height = 792;
        region.lines = ocr.page.lines;
        region.words = ocr.page.words;
        region.text = ocr.page.lines.front().text;
        for (std::size_t i = 1; i < ocr.page.lines.size(); ++i)
            region.text += "\n" + ocr.page.lines[i].text;
        region.bbox = {72, top, 400, ocr.y};
        return region;
    };
    for (const Row& row : rows) {
        INFO(row.lines.front().first << " " << row.lines.front().second);
        std::vector<Region> regions;
        for (int i = 0; i < 3; ++i) {
            regions.push_back(region_of({{"Body text of a paragraph.", 7}}, 100.0 + 40 * i));
        }
        regions.push_back(region_of(row.lines, 220));
        const PageContent content = assemble::page(regions);
        REQUIRE(content.blocks.size() == (row.rest.empty() ? 4u : 5u));
        CHECK((content.blocks[3].text_level > 0) == row.heading);
        if (row.heading) CHECK(content.blocks[3].text == row.lines.front().first);
        if (!row.rest.empty()) {
            CHECK(content.blocks[4].text == row.rest);
            CHECK(content.blocks[4].text_level == 0);
        }
        // Without its lines a region has no size to compare.
        Region bare = regions.back();
        bare.lines.clear();
        regions.back() = bare;
        CHECK(assemble::page(regions).blocks[3].text_level == 0);
    }

    // Across the document the sizes rank the headings: the layout called the title a level-2
    // heading (1.9 times its page's body) and the sections level 3; the subsection it left as text.
    auto heading_region = [&](const std::string& text, int level, double ascent, double top) {
        Region region = region_of({{text, ascent}}, top);
        region.kind = RegionKind::heading;
        region.level = level;
        return region;
    };
    const std::vector<PageContent> pages = {
        assemble::page(std::vector<Region>{heading_region("Storage Cluster Report", 2, 13.3, 80),
                                           region_of({{"Body text of a paragraph.", 7}}, 120),
                                           heading_region("1 Capacity", 3, 11.2, 160),
                                           region_of({{"Body text of a paragraph.", 7}}, 200),
                                           region_of({{"1.1 Growth by Team", 8.4}}, 240),
                                           region_of({{"Body text of a paragraph.", 7}}, 280)}),
        assemble::page(std::vector<Region>{heading_region("2 Incidents", 3, 11.2, 80),
                                           region_of({{"Body text of a paragraph.", 7}}, 120)})};
    const auto levels = levels_of(pages);
    REQUIRE(levels.size() == 8u);
    CHECK(levels[0] == std::pair<std::string, int>{"Storage Cluster Report", 1});
    CHECK(levels[2] == std::pair<std::string, int>{"1 Capacity", 2});
    CHECK(levels[4] == std::pair<std::string, int>{"1.1 Growth by Team", 3});
    CHECK(levels[6] == std::pair<std::string, int>{"2 Incidents", 2});
}

TEST_CASE("page: an OCR'd item alone in its region joins the list next to it, in line with it") {
    // The layout cut a bulleted list into regions, and OCR read the bullet of the item left alone
    // as "+" or an em dash, which it also reads where no list is: next to a list block, its left
    // edge within half a line and at most a line and a half away, it is that list's item.
    auto region = [](const std::string& text, double x, double top, int lines,
                     const std::string& source = "ocr") {
        Region r;
        r.text = text;
        r.text_source = source;
        r.page_width = 612;
        r.page_height = 792;
        r.bbox = {x, top, 400, top + 12.0 * lines};
        return r;
    };
    const Region list =
        region("\u2022 Spare disks in every rack.\n\u2022 No full-speed rebuilds.", 72, 300, 2);
    struct Case {
        const char* what;
        std::vector<Region> regions;
        std::vector<std::string> types;  // the blocks' types in order
        std::string list_text;           // the list block's text, when one is expected
    };
    const std::string joined =
        "\u2022 Spare disks in every rack.\n\u2022 No full-speed rebuilds.\n"
        "\u2022 Firmware updates need a second person.";
    const std::vector<Case> cases = {
        {"below the list, in line",
         {list, region("+ Firmware updates need a second person.", 73, 328, 1)},
         {"list"},
         joined},
        {"an em dash, wrapped onto a second line",
         {list, region("\u2014 Firmware updates need a\nsecond person.", 71, 326, 2)},
         {"list"},
         joined},
        {"above the list, in line",
         {region("+ Firmware updates need a second person.", 72, 282, 1), list},
         {"list"},
         "\u2022 Firmware updates need a second person.\n\u2022 Spare disks in every rack.\n"
         "\u2022 No full-speed rebuilds."},
        {"above two lists in a row: the first takes it, the second stays",
         {region("+ Firmware updates need a second person.", 72, 282, 1), list,
          region("\u2022 Spare disks in every rack.\n\u2022 No full-speed rebuilds.", 72, 326, 2)},
         {"list", "list"},
         "\u2022 Firmware updates need a second person.\n\u2022 Spare disks in every rack.\n"
         "\u2022 No full-speed rebuilds."},
        {"indented past the list's bullets",
         {list, region("+ Firmware updates need a second person.", 90, 328, 1)},
         {"list", "text"},
         ""},
        {"three lines below the list",
         {list, region("+ Firmware updates need a second person.", 72, 360, 1)},
         {"list", "text"},
         ""},
        {"no list next to it",
         {region("Body text of a paragraph.", 72, 300, 1),
          region("+ Firmware updates need a second person.", 72, 316, 1)},
         {"text", "text"},
         ""},
        {"from the text layer, a plus is a plus",
         {list, region("+ Firmware updates need a second person.", 72, 328, 1, "layer")},
         {"list", "text"},
         ""},
        {"two items of its own: region_list's (a list of its own)",
         {list, region("+ Firmware updates.\n+ Second person.", 72, 328, 2)},
         {"list", "list"},
         ""},
    };
    for (const Case& c : cases) {
        INFO(c.what);
        const PageContent content = assemble::page(c.regions);
        std::vector<std::string> types;
        for (const Block& block : content.blocks) types.push_back(block.type);
        CHECK(types == c.types);
        if (!c.list_text.empty() && !content.blocks.empty()) {
            CHECK(content.blocks.front().text == c.list_text);
        }
    }
}

TEST_CASE("page reads a column of OCR'd text regions as one page when a listing spans them") {
    // A config file the layout cut into two regions: each alone has three words that measure a
    // pitch, under from_ocr's six; together they are one listing, with its blank line. (Its first
    // line, letters with nothing to measure, starts no run: from_ocr's rule, as on a whole page.)
    auto region_of = [](const std::vector<std::string>& rows, double x, double top) {
        OcrPage ocr;
        ocr.y = top;
        for (std::size_t i = 0; i < rows.size(); ++i) ocr.mono(rows[i], static_cast<int>(i));
        Region region;
        region.text_source = "ocr";
        region.lines = ocr.page.lines;
        region.words = ocr.page.words;
        for (Line& line : region.lines) {
            line.bbox.x0 += x - 72;
            line.bbox.x1 += x - 72;
        }
        for (Word& word : region.words) {
            word.bbox.x0 += x - 72;
            word.bbox.x1 += x - 72;
        }
        for (const Line& line : region.lines) {
            region.text += (region.text.empty() ? "" : "\n") + line.text;
        }
        region.bbox = {x, top, x + 200, ocr.y - 11 + 7.5};
        return region;
    };
    const std::vector<std::string> input = {"[input]", "format = \"csv\"", "header = true"};
    const std::vector<std::string> output = {"[output]", "format = \"table\"", "limit = 20"};
    const std::string listing =
        "format = \"csv\"\nheader = true\n\n[output]\nformat = \"table\"\nlimit = 20";
    Region prose;
    prose.text_source = "ocr";
    prose.text = "The file holds two tables.";
    prose.lines = {Line{prose.text, {72, 60, 300, 67.5}, 90, 65.5, 0, 0, 0}};
    prose.bbox = {72, 60, 300, 67.5};
    struct Case {
        const char* what;
        std::vector<Region> regions;
        std::vector<std::string> code;
    };
    const std::vector<Case> cases = {
        {"one under the other, a line apart",
         {region_of(input, 72, 100), region_of(output, 72, 144)},
         {listing}},
        {"each alone", {region_of(input, 72, 100)}, {}},
        {"the second far to the right",
         {region_of(input, 72, 100), region_of(output, 300, 144)},
         {}},
        {"the second five lines below",
         {region_of(input, 72, 100), region_of(output, 72, 188)},
         {}},
        {"prose above the listing stays its own text block",
         {prose, region_of(input, 72, 100), region_of(output, 72, 144)},
         {listing}},
    };
    for (const Case& c : cases) {
        INFO(c.what);
        const PageContent content = assemble::page(c.regions);
        INFO(assemble::markdown(std::vector<PageContent>{content}).text);
        CHECK(code_blocks(content) == c.code);
        if (c.regions.front().text == prose.text) {
            REQUIRE_FALSE(content.blocks.empty());
            CHECK(content.blocks.front().type == "text");
            CHECK(content.blocks.front().text == prose.text);
        }
    }
}

TEST_CASE("page puts back a table's head or last row that OCR's layout left outside it") {
    // A 2 x 4 table whose columns span x 266-310, 380-420, 480-520 and 600-640; a one-line
    // region above or below it whose words fall into its columns, with a column gap wherever
    // they change column, is its row.
    const std::vector<std::pair<double, double>> columns = {
        {266, 310}, {380, 420}, {480, 520}, {600, 640}};
    Region table;
    table.kind = RegionKind::table;
    table.text_source = "ocr";
    table.rows = 2;
    table.cols = 4;
    table.bbox = {262, 778, 644, 808};
    table.text = "search 96 TB 118 TB +23%\nbilling 40 TB 44 TB +10%";
    const std::vector<std::vector<std::string>> data = {{"search", "96 TB", "118 TB", "+23%"},
                                                        {"billing", "40 TB", "44 TB", "+10%"}};
    for (int r = 0; r < 2; ++r) {
        for (int c = 0; c < 4; ++c) {
            const auto [x0, x1] = columns[static_cast<std::size_t>(c)];
            table.cells.push_back(TableCell{r,
                                            c,
                                            {x0, 780.0 + 14 * r, x1, 792.0 + 14 * r},
                                            data[static_cast<std::size_t>(r)][c]});
        }
    }
    // A one-line OCR'd text region of `words` (text, x0, x1) at `top`.
    auto row = [](const std::vector<std::tuple<std::string, double, double>>& words, double top) {
        Region region;
        region.text_source = "ocr";
        Line line;
        line.bbox = {1e9, top, 0, top + 12};
        line.baseline = top + 9;
        for (const auto& [text, x0, x1] : words) {
            region.words.push_back(Word{text, {x0, top, x1, top + 12}, 90, 0, ""});
            line.text += (line.text.empty() ? "" : " ") + text;
            line.bbox.x0 = std::min(line.bbox.x0, x0);
            line.bbox.x1 = std::max(line.bbox.x1, x1);
        }
        region.lines = {line};
        region.text = line.text;
        region.bbox = line.bbox;
        return region;
    };
    const Region head = row({{"Team", 266, 300},
                             {"Second", 372, 408},
                             {"quarter", 411, 448},
                             {"Third", 470, 498},
                             {"quarter", 501, 538},
                             {"Change", 600, 640}},
                            764);
    const Region last = row({{"research", 266, 310},
                             {"150", 380, 396},
                             {"TB", 399, 412},
                             {"171", 480, 496},
                             {"TB", 499, 512},
                             {"+14%", 600, 630}},
                            810);
    const Region caption = row({{"Table", 300, 330},
                                {"2:", 334, 345},
                                {"Growth", 349, 390},
                                {"by", 394, 406},
                                {"team", 410, 436},
                                {"and", 440, 460},
                                {"quarter", 464, 505},
                                {"of", 509, 520},
                                {"year", 524, 550}},
                               764);
    Region far_head = head;
    for (Word& word : far_head.words) word.bbox.y0 -= 40, word.bbox.y1 -= 40;
    far_head.lines[0].bbox.y0 -= 40;
    far_head.lines[0].bbox.y1 -= 40;
    far_head.bbox.y0 -= 40;
    far_head.bbox.y1 -= 40;
    Region two_lines = head;
    two_lines.lines.push_back(two_lines.lines[0]);
    const Region one_column = row({{"Notes", 266, 300}, {"follow", 303, 340}}, 764);
    Region after = row({{"Totals", 266, 300}, {"follow.", 303, 340}}, 900);
    after.lines.push_back(after.lines[0]);  // two lines: no table row
    // From the text layer, a region keeps its words and no lines, only when they make one row.
    Region layer_head = head;
    layer_head.text_source = "layer";
    layer_head.lines.clear();
    Region layer_two_rows = layer_head;
    for (std::size_t i = 3; i < layer_two_rows.words.size(); ++i) {
        layer_two_rows.words[i].bbox.y0 += 14;
        layer_two_rows.words[i].bbox.y1 += 14;
    }
    // Every word inside a column, but a plain space where the line goes from one to the next.
    const Region spaced = row({{"Pools", 266, 310},
                               {"internationalization", 316, 420},
                               {"and", 480, 520},
                               {"more", 600, 640}},
                              764);
    struct Case {
        const char* what;
        std::vector<Region> regions;
        int rows;                        // the table's rows after (0: no table block)
        std::vector<std::string> first;  // its first row's cells
        std::vector<std::string> final;  // its last row's cells
        std::size_t blocks;
    };
    const std::vector<std::string> head_cells = {"Team", "Second quarter", "Third quarter",
                                                 "Change"};
    const std::vector<std::string> last_cells = {"research", "150 TB", "171 TB", "+14%"};
    const std::vector<Case> cases = {
        {"the head row above", {head, table}, 3, head_cells, data[1], 1},
        {"the last row below", {table, last}, 3, data[0], last_cells, 1},
        {"both", {head, table, last}, 4, head_cells, last_cells, 1},
        {"both, with a paragraph after", {head, table, last, after}, 4, head_cells, last_cells, 2},
        {"a caption over the columns", {caption, table}, 2, data[0], data[1], 2},
        {"a head row three lines above", {far_head, table}, 2, data[0], data[1], 2},
        {"two lines", {two_lines, table}, 2, data[0], data[1], 2},
        {"words in one column only", {one_column, table}, 2, data[0], data[1], 2},
        {"a plain space between two columns' words", {spaced, table}, 2, data[0], data[1], 2},
        {"the head row from the text layer (words, no lines)",
         {layer_head, table},
         3,
         head_cells,
         data[1],
         1},
        {"two rows of words from the text layer", {layer_two_rows, table}, 2, data[0], data[1], 2},
    };
    for (const Case& c : cases) {
        INFO(c.what);
        const PageContent content = assemble::page(c.regions);
        CHECK(content.blocks.size() == c.blocks);
        const auto found = std::find_if(content.blocks.begin(), content.blocks.end(),
                                        [](const Block& block) { return block.type == "table"; });
        REQUIRE(found != content.blocks.end());
        CHECK(found->rows == c.rows);
        REQUIRE(found->cells.size() == static_cast<std::size_t>(found->rows * found->cols));
        std::vector<std::string> first, final;
        for (int col = 0; col < found->cols; ++col) {
            first.push_back(found->cells[static_cast<std::size_t>(col)].text);
            final.push_back(
                found->cells[static_cast<std::size_t>((found->rows - 1) * found->cols + col)].text);
        }
        CHECK(first == c.first);
        CHECK(final == c.final);
        CHECK(found->text.rfind(c.first.front(), 0) == 0);
        CHECK(found->text.find(c.final.front()) != std::string::npos);
        if (c.regions.back().text == after.text) CHECK(content.blocks.back().text == after.text);
        for (std::size_t i = 0; i < found->cells.size(); ++i) {
            CHECK(found->cells[i].row == static_cast<int>(i) / found->cols);
            CHECK(found->cells[i].col == static_cast<int>(i) % found->cols);
        }
    }
}

TEST_CASE("page: a numbered or lettered item alone in its region joins the list it continues") {
    // "3." alone makes no list (it may start a sentence): next to a list, in line with it, it is
    // that list's item when it continues the list's numbering, from the text layer or from OCR.
    auto region = [](const std::string& text, double top, int lines, const std::string& source) {
        Region r;
        r.text = text;
        r.text_source = source;
        r.page_width = 612;
        r.page_height = 792;
        r.bbox = {72, top, 400, top + 12.0 * lines};
        return r;
    };
    struct Case {
        const char* what;
        std::string list;  // the list region's text, at y 300
        std::string item;  // the lone item's, right below it (or above, when `above`)
        bool above;
        bool joins;
        bool joins_under_ocr;
    };
    const std::vector<Case> cases = {
        {"3. after 1. and 2.", "1. Report the error.\n2. Skip tokens.", "3. Continue.", false, true,
         true},
        {"5. after 1. and 2.", "1. Report the error.\n2. Skip tokens.", "5. Continue.", false,
         false, false},
        {"3) after 2.", "1. Report the error.\n2. Skip tokens.", "3) Continue.", false, false,
         false},
        {"c) after a) and b)", "a) Report the error.\nb) Skip tokens.", "c) Continue.", false, true,
         true},
        {"(c) after (a) and (b)", "(a) Report the error.\n(b) Skip tokens.", "(c) Continue.", false,
         true, true},
        {"1. above 2. and 3.", "2. Skip tokens.\n3. Continue.", "1. Report the error.", true, true,
         true},
        {"1. above 4. and 5.", "4. Skip tokens.\n5. Continue.", "1. Report the error.", true, false,
         false},
        // OCR's "+" is a bullet: it continues bullets, not numbers (from the layer it is no item).
        {"+ after 1. and 2.", "1. Report the error.\n2. Skip tokens.", "+ Continue.", false, false,
         false},
        {"+ above - items", "- Skip tokens.\n- Continue.", "+ Report the error.", true, false,
         true},
    };
    for (const std::string source : {"layer", "ocr"}) {
        for (const Case& c : cases) {
            INFO(source << ": " << c.what);
            std::vector<Region> regions = {region(c.list, 300, 2, source)};
            const Region lone = region(c.item, c.above ? 282 : 326, 1, source);
            regions.insert(c.above ? regions.begin() : regions.end(), lone);
            const PageContent content = assemble::page(regions);
            REQUIRE_FALSE(content.blocks.empty());
            const bool joins = source == "ocr" ? c.joins_under_ocr : c.joins;
            CHECK(content.blocks.size() == (joins ? 1u : 2u));
            const auto list = std::find_if(content.blocks.begin(), content.blocks.end(),
                                           [](const Block& b) { return b.type == "list"; });
            REQUIRE(list != content.blocks.end());
            // Its text, after the marker (OCR's "+" is held as a bullet).
            const bool holds =
                list->text.find(c.item.substr(c.item.find(' ') + 1)) != std::string::npos;
            CHECK(holds == joins);
        }
    }
}
