// page_display.h (internal to rop_stdlib_pdf): a page drawn on one of poppler's output devices as
// PDFDoc::displayPageSlice draws it, with the page's fonts taken from a cache kept per document.
// poppler builds every font of a page's resources again for each page it draws (it reads and
// decodes each embedded font file to learn its encoding): half of pdftotext's time on a
// born-digital manual, where the same dozen fonts serve every page (B4-layer).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core.h"

class GfxFont;
class OutputDev;
class Page;
class PDFDoc;
class XRef;

namespace rop::stdlib::pdf {

// The fonts poppler made for a document's pages, each by its object and the name a page's
// resources give it (a font's name is part of it: poppler finds a page's fonts by name). A font
// poppler could not make is kept as null, as poppler keeps it. At most kMaxFonts are kept: a
// document whose pages bring more new fonts than that starts the cache again. A manual has 7 to
// 28; the bound keeps a hostile document's fonts (a CID font's maps can take half a megabyte)
// to what a page of that many would hold.
class FontCache {
  public:
    static constexpr std::size_t kMaxFonts = kMaxFontsKept;

    // The page's fonts in the order of its /Font dictionary, as poppler's GfxFontDict lists
    // them, or nothing when they are not all indirect objects (poppler names an inline font by
    // where it stands; such a page is drawn as poppler draws it).
    std::optional<std::vector<std::shared_ptr<GfxFont>>> fonts_of(::Page& page, XRef* xref);

    std::int64_t made() const { return made_; }  // fonts poppler made, over the cache's life
    std::size_t kept() const { return fonts_.size(); }

  private:
    std::map<std::tuple<int, int, std::string>, std::shared_ptr<GfxFont>> fonts_;
    std::int64_t made_ = 0;
};

// Page `number` (1-based) of `doc` on `out` at `dpi`, as doc.displayPageSlice(out, number, dpi,
// dpi, 0, useMediaBox false, crop true, printing false, no slice, abort_check, abort_data) draws
// it (annotations included), with its fonts from `fonts`.
void display_page(PDFDoc& doc, FontCache& fonts, OutputDev& out, int number, double dpi,
                  bool (*abort_check)(void*), void* abort_data);

}  // namespace rop::stdlib::pdf
