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

// expand Document -> Page (streaming): renders the pages in order and emits each as soon as it
// is rendered, so page 0 can be OCR'd while later pages render. `dpi` is the image resolution
// (36..1200), `color` gray or rgb; `text` reads the native text layer (and its word boxes when
// `words`). `max_pixels` bounds each page's image: a page whose size x dpi would exceed it is
// rendered at the largest dpi that fits (Page::dpi says which). Any page that fails fails the
// whole document with rop::RecordFailure ("page N: cannot read the page", "page N: render
// failed: poppler returned a 1x1 image for 1275x1650 px", ...): never a blank page in an ok one.
void pages(const Document& doc, rop::Emitter<Page>& out, int dpi = 150, Color color = Color::gray,
           bool text = true, bool words = false, std::int64_t max_pixels = 100'000'000);

// map Page -> int: the page's zero-based index.
int page_number(const Page& page);

// map Page -> std::string: the page's native text layer.
std::string page_text(const Page& page);

}  // namespace rop::stdlib::pdf
