// rop/stdlib/pdf.h: PDF documents on poppler — open a document (page count, metadata, title),
// expand it into pages, streaming, each with its native text layer, and render their images at a
// chosen dpi, in the expand or in a map of their own that spreads a document over its actors.
// rop-link: rop_stdlib_pdf poppler-cpp poppler
//
// Broken inputs fail their own document, never the run: a file poppler cannot open, an encrypted
// or zero-page one, or one with a page that cannot be rendered throws rop::RecordFailure with a
// reason that starts with the file's name. Whatever poppler opens and renders, rop accepts.
#pragma once

#include <rop/stdlib/types.h>
#include <rop/udf.h>

#include <cstdint>
#include <memory>
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

// Where a page is read and its image drawn (`render:` of pages). `here`: pages reads each page
// (its text layer) and renders it itself, one page after another on its actor. `needed` and
// `all`: pages only lists the pages (their size, dpi and the outline, which is cheap) and
// std.pdf.Render, a map, reads each page and draws its image, so that one document's pages
// spread over Render's actors: under `needed` only the images a page needs, under `all` every
// page's.
enum class Rendering { here, needed, all };

// expand Document -> Page (streaming): emits the pages in order, each as soon as it is read, so
// page 0 can be OCR'd while later pages are read. `dpi` is the image resolution (36..1200),
// `color` gray or rgb. Every page carries its native text layer: its text, its words (boxes,
// font names and sizes) and their lines and paragraphs. `text` sets Page::text_source: under
// `detect`, "layer" unless the layer's characters are more than 10% unreadable (U+FFFD,
// private-use, control, invalid UTF-8) or, with fewer than 200 characters, the ink outside its
// words is over 0.2% of the page and more than the ink inside them (a scan, an image of text);
// Page::text_check says why. std.ocr passes "layer" pages through without running its engine.
// `max_pixels` bounds each page's image: a page whose size x dpi would exceed it is rendered at
// the largest dpi that fits (Page::dpi says which). Under `render: needed | all` (above) the
// pages carry no text layer and no image yet (Page::pending_text names the `text` asked for):
// std.pdf.Render reads them. `max_page_seconds` is the CPU time the first pass over a page's
// content may take (its render here, or in std.pdf.Render the reading of what it draws): past it
// the page fails ("page N: over its time budget: ..."), as a content stream that inflates to
// gigabytes would otherwise hold an actor for minutes. Any page that fails fails the whole
// document with rop::RecordFailure ("page N: cannot read the page", "page N: render failed:
// poppler returned a 1x1 image for 1275x1650 px", ...): never a blank page in an ok one.
void pages(const Document& doc, rop::Emitter<Page>& out, int dpi = 150, Color color = Color::gray,
           TextSource text = TextSource::detect, std::int64_t max_pixels = 100'000'000,
           Rendering render = Rendering::here, double max_page_seconds = 10);

// map Page -> Page: reads a page of pages(render: needed | all) as pages(render: here) does, and
// draws its image when it needs one (Page::image_needed says why, empty when not): when its text
// is OCR'd; when it has fewer than 200 characters and draws anything besides its text (the ink
// check needs the image); when what it draws could hold a table drawn with rules
// (std.assemble.from_page finds those in the image), judged from its drawing operators; and
// under `render: all`. So a page whose text comes from its layer is mostly never rendered. Any
// other page passes through as it is. Each actor keeps the last few documents it opened: a
// document's pages cost one open per actor. Failures fail the page, and so its document
// (rop::RecordFailure): "page N: render failed: ...", "page N: over its time budget: ...", and
// the open's reasons when the file changed since pages read it.
class Render {
  public:
    explicit Render(double max_page_seconds = 10);
    ~Render();
    Render(Render&&) noexcept;
    Render& operator=(Render&&) noexcept;

    Page operator()(const Page& page);

    struct Documents;

  private:
    std::unique_ptr<Documents> documents_;
    double max_page_seconds_;
};

// map Page -> int: the page's zero-based index.
int page_number(const Page& page);

// map Page -> std::string: the page's native text layer.
std::string page_text(const Page& page);

}  // namespace rop::stdlib::pdf
