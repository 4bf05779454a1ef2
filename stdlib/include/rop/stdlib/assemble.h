// rop/stdlib/assemble.h: fold a document's pages (or a page's regions) into its outputs — the
// document's Markdown and a MinerU-style content list (JSON) in reading order.
// rop-link: rop_stdlib_assemble
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
// `heading_ratio` times the page's median line height become heading blocks (text_level 1 at
// twice the median, 2 at 1.6 times, else 3). Hyphenated line breaks are joined.
PageContent from_ocr(const OcrResult& page, double heading_ratio = 1.3);

// reduce Region -> PageContent: a page's regions (in reading order) as blocks: headings keep
// their level, tables their cells, figures become "image" blocks, formulas "equation" blocks.
PageContent page(std::span<const Region> regions);

// reduce PageContent -> Markdown: headings as '#' lines, paragraphs, tables with a grid as
// Markdown tables; blocks separated by a blank line, pages in order.
Markdown markdown(std::span<const PageContent> pages);

// reduce PageContent -> JsonText: the content list, a JSON array in reading order, one object
// per block: {"type": "text"|"table"|"image"|"equation", "text", "text_level" (headings only),
// "page_idx", "bbox": [x0, y0, x1, y1] in points}; tables add "table_body" (an HTML table) when
// they have cells.
JsonText content_list(std::span<const PageContent> pages);

// reduce OcrResult -> Markdown / JsonText: from_ocr with the defaults, then markdown() /
// content_list(), for pipelines that go straight from OCR to the document.
Markdown markdown_from_ocr(std::span<const OcrResult> pages);
JsonText content_list_from_ocr(std::span<const OcrResult> pages);

}  // namespace rop::stdlib::assemble
