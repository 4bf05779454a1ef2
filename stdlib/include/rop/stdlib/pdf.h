// rop/stdlib/pdf.h: PDF documents on poppler — open a document (page count, metadata, title) and
// expand it into pages, streaming, each with its image at a chosen dpi and its native text layer.
// rop-link: rop_stdlib_pdf poppler-cpp
//
// Broken inputs fail their own document, never the run: a file poppler cannot open, an encrypted
// or zero-page one, or one with a page that cannot be rendered throws rop::RecordFailure with a
// reason that starts with the file's name. Whatever poppler opens and renders, rop accepts.
#pragma once

#include <rop/stdlib/types.h>
#include <rop/udf.h>

#include <cstdint>
#include <string>

namespace rop::stdlib::pdf {

enum class Color { gray, rgb };

// map File -> Document: opens the PDF and reads its info dictionary. Reasons for a
// rop::RecordFailure, when poppler cannot open the file, say why from its bytes: "cannot open",
// "empty file", "not a PDF", "encrypted PDF (needs a password)", "truncated PDF", "cannot parse
// PDF"; and "PDF has no pages".
Document open(const File& file);

// map Document -> std::string: the title, or the file name's stem when the PDF has none.
std::string title(const Document& doc);

// map Document -> int: the number of pages.
int page_count(const Document& doc);

// Where a page's text comes from (`text:` of pages). `detect` decides per page, as MinerU's
// `parse_method: auto` does (`auto` is a C++ keyword, so it cannot name an enumerator): the text
// layer when it is present and sane, OCR when not. `layer` and `ocr` force one for every page.
enum class TextSource { detect, layer, ocr };

// expand Document -> Page (streaming): renders the pages in order and emits each as soon as it
// is rendered, so page 0 can be OCR'd while later pages render. `dpi` is the image resolution
// (36..1200), `color` gray or rgb. Every page also carries its native text layer: its text, its
// words (boxes, font names and sizes) and their lines and paragraphs. `text` sets
// Page::text_source: under `detect`, "layer" unless the layer's characters are more than 10%
// unreadable (U+FFFD, private-use, control, invalid UTF-8) or, with fewer than 200 characters,
// the ink outside its words is over 0.2% of the page and more than the ink inside them (a scan,
// an image of text); Page::text_check says why. std.ocr passes "layer" pages through without
// running its engine. `max_pixels` bounds each page's image: a page whose size x dpi would exceed
// it is rendered at the largest dpi that fits (Page::dpi says which). Any page that fails fails the
// whole document with rop::RecordFailure ("page N: cannot read the page", "page N: render failed:
// poppler returned a 1x1 image for 1275x1650 px", ...): never a blank page in an ok one.
void pages(const Document& doc, rop::Emitter<Page>& out, int dpi = 150, Color color = Color::gray,
           TextSource text = TextSource::detect, std::int64_t max_pixels = 100'000'000);

// map Page -> int: the page's zero-based index.
int page_number(const Page& page);

// map Page -> std::string: the page's native text layer.
std::string page_text(const Page& page);

}  // namespace rop::stdlib::pdf
