// rop/stdlib/pdf.h: PDF documents on poppler — open a document (page count, metadata, title) and
// expand it into pages, streaming, each with its image at a chosen dpi and its native text layer.
// rop-link: rop_stdlib_pdf poppler-cpp
//
// Broken inputs fail their own document, never the run: an empty, garbage, truncated, encrypted
// or zero-page file throws rop::RecordFailure with a reason that starts with the file's name.
#pragma once

#include <string>

#include <rop/stdlib/types.h>
#include <rop/udf.h>

namespace rop::stdlib::pdf {

enum class Color { gray, rgb };

// map File -> Document: opens the PDF and reads its info dictionary. Reasons for a
// rop::RecordFailure: "cannot open", "empty file", "not a PDF", "truncated PDF", "cannot parse
// PDF", "encrypted PDF (needs a password)", "PDF has no pages".
Document open(const File& file);

// map Document -> std::string: the title, or the file name's stem when the PDF has none.
std::string title(const Document& doc);

// map Document -> int: the number of pages.
int page_count(const Document& doc);

// expand Document -> Page (streaming): renders the pages in order and emits each as soon as it
// is rendered, so page 0 can be OCR'd while later pages render. `dpi` is the image resolution
// (36..1200), `color` gray or rgb; `text` reads the native text layer (and its word boxes when
// `words`). A page that cannot be rendered fails the document with rop::RecordFailure ("page N:
// cannot render").
void pages(const Document& doc, rop::Emitter<Page>& out, int dpi = 150, Color color = Color::gray,
           bool text = true, bool words = false);

// map Page -> int: the page's zero-based index.
int page_number(const Page& page);

// map Page -> std::string: the page's native text layer.
std::string page_text(const Page& page);

}  // namespace rop::stdlib::pdf
