// rop/stdlib/assemble.h: fold a document's pages (or a page's regions) into its outputs — the
// document's Markdown and MinerU's content list (JSON) in reading order.
// rop-link: rop_stdlib_assemble rop_stdlib_rules
//
// The unit in between is PageContent: a page's blocks (text with a heading level, tables with
// their cells, images) in reading order. from_ocr makes one from a page's OCR, page() from a
// page's layout regions; markdown() and content_list() fold a document's PageContents.
#pragma once

#include <rop/stdlib/types.h>
#include <rop/udf.h>

#include <span>

namespace rop::stdlib::assemble {

// map OcrResult -> PageContent: one text block per OCR paragraph; runs of lines at least
// `heading_ratio` times the page's median line size (the text layer's font size, else the OCR
// line's ascent) become heading blocks (text_level 1 at twice the median, 2 at 1.6 times, else
// 3). Hyphenated line breaks are joined; a block's confidence is its lines' mean.
PageContent from_ocr(const OcrResult& page, double heading_ratio = 1.3);

// map (OcrResult, Page) -> PageContent: from_ocr, plus the tables drawn with rules in the page's
// image (std.layout's rule finder): each becomes a "table" block with its cell grid, placed before
// the first block that starts below its top; the lines whose center lies inside it fill its cells
// (word by word, each word to the cell holding its center) and leave the text. Then the tables
// set without rules, from where the other lines' words stand: three rows or more whose pieces
// (split at gaps of a line height, 8 pt at least) fall into the same two or more columns; not
// code, list items, headings, a table of contents or two columns of prose. For the text-layer and
// the OCR path alike; a page without an image has only the second kind.
PageContent from_page(const OcrResult& result, const Page& page, double heading_ratio = 1.3);

// reduce Region -> PageContent: a page's regions (in reading order) as blocks: headings keep
// their level, tables their cells, figures become "image" blocks, formulas "equation" blocks.
// An OCR'd text or heading region whose lines (Region::lines, std.ocr.RegionText's) hold code
// set at one pitch, as from_ocr finds it, becomes from_ocr's blocks of those lines, and so does a
// column of OCR'd text regions when a code block of their lines together reaches into two of them
// (a listing the layout cut one region under the other). A text region of one row of words
// right above or below a table region, whose words fall into its columns, is its head or last
// row. An OCR'd
// region's size (for the section-heading rules and the document's heading ranks) is its lines'
// largest ascent, as from_ocr measures a line (docs/stdlib.md).
PageContent page(std::span<const Region> regions);

// Both reduces below first type running text: a text block in the top or bottom 8% of its page
// whose text (digits as '#', lowercase) recurs at the same place on another page becomes
// "page_number" (when it reads as one: "7", "Page 7 of 9", "iv"), else "header" or "footer".

// reduce PageContent -> Markdown: headings as '#' lines, paragraphs, tables with a grid as
// Markdown tables; blocks separated by a blank line, pages in order; no images, headers,
// footers or page numbers.
Markdown markdown(std::span<const PageContent> pages);

// Which MinerU's content_list.json content_list() writes: MinerU 2.5's (code bodies bare, with a
// "guess_lang"; text as read) or MinerU 3's (code bodies fenced with the language; Markdown's
// inline marks in text escaped; images with a "content").
enum class ContentListFormat { mineru25, mineru3 };

// reduce PageContent -> JsonText: MinerU's content_list.json as its VLM backend writes it, a JSON
// array, each page's blocks in reading order and then its headers, footers and page numbers:
// {"type": "text", "text", "text_level" (headings only, 1..4), "bbox": [x0, y0, x1, y1] as
// integers 0..1000 of the page's width and height, "page_idx"}; "header", "footer",
// "page_number" the same without a level; "list" with "sub_type" and "list_items" (each item's
// marker as read, then its text); "code" with "sub_type", "code_caption", "code_body" (and
// "guess_lang"); "table" with "img_path" (empty), caption and footnote lists and "table_body"
// (HTML); "image"; "equation". No "text" beside list items, code or tables. With `extras`, rop's
// "text_source" and "confidence" on each item (docs/stdlib.md).
// (The defaults are qualified: ropc copies a default's text into the generated code, outside
// this namespace, when a later argument is given.)
JsonText content_list(std::span<const PageContent> pages,
                      ContentListFormat format = rop::stdlib::assemble::ContentListFormat::mineru25,
                      bool extras = false);

// reduce OcrResult -> Markdown / JsonText: from_ocr with the defaults, then markdown() /
// content_list(), for pipelines that go straight from OCR to the document.
Markdown markdown_from_ocr(std::span<const OcrResult> pages);
JsonText content_list_from_ocr(
    std::span<const OcrResult> pages,
    ContentListFormat format = rop::stdlib::assemble::ContentListFormat::mineru25,
    bool extras = false);

}  // namespace rop::stdlib::assemble
