// Pages drawn with their fonts from a per-document cache (see page_display.h).
#include "page_display.h"

#include <Annot.h>
#include <Dict.h>
#include <Gfx.h>
#include <GfxFont.h>
#include <OutputDev.h>
#include <PDFDoc.h>
#include <Page.h>

#include <vector>

namespace rop::stdlib::pdf {
namespace {

// poppler has no way to hand a page its fonts: GfxResources makes them from the /Font
// dictionary it is given (and GfxFontDict's constructor is not even exported). So the page's
// resources go to Gfx with an empty /Font dictionary, and the cached fonts into the empty
// GfxFontDict poppler makes of it. The three members below are where Gfx keeps its resources,
// where they keep their fonts, and where the font dictionary keeps its list. An explicit
// instantiation may name private members ([temp.spec.general]); the pointers are read through
// `member`. A poppler whose members differ fails to compile here, never at run time.
template <class Tag, typename Tag::type Member>
struct Expose {
    friend typename Tag::type member(Tag) { return Member; }
};
struct GfxResourceStack {
    using type = GfxResources* Gfx::*;
    friend type member(GfxResourceStack);
};
struct ResourceFonts {
    using type = GfxFontDict* GfxResources::*;
    friend type member(ResourceFonts);
};
struct FontList {
    using type = std::vector<std::shared_ptr<GfxFont>> GfxFontDict::*;
    friend type member(FontList);
};
template struct Expose<GfxResourceStack, &Gfx::res>;
template struct Expose<ResourceFonts, &GfxResources::fonts>;
template struct Expose<FontList, &GfxFontDict::fonts>;

}  // namespace

std::optional<std::vector<std::shared_ptr<GfxFont>>> FontCache::fonts_of(::Page& page, XRef* xref) {
    Dict* resources = page.getResourceDict();
    if (!resources) return std::nullopt;
    Object entry = resources->lookup("Font");
    if (!entry.isDict()) return std::nullopt;
    Dict* dict = entry.getDict();
    // GfxFontDict's order: lookup by name returns the first font of that name.
    std::vector<std::shared_ptr<GfxFont>> list;
    list.reserve(static_cast<std::size_t>(dict->getLength()));
    for (int i = 0; i < dict->getLength(); ++i) {
        const Object& value = dict->getValNF(i);
        if (!value.isRef()) return std::nullopt;
        const Ref ref = value.getRef();
        const char* tag = dict->getKey(i);
        auto key = std::make_tuple(ref.num, ref.gen, std::string(tag));
        auto it = fonts_.find(key);
        if (it == fonts_.end()) {
            if (fonts_.size() >= kMaxFonts) fonts_.clear();
            std::shared_ptr<GfxFont> font;
            Object font_dict = value.fetch(xref);
            if (font_dict.isDict()) {
                font = GfxFont::makeFont(xref, tag, ref, font_dict.getDict());
                ++made_;
                if (font && !font->isOk()) font.reset();
            }
            it = fonts_.emplace(std::move(key), std::move(font)).first;
        }
        list.push_back(it->second);
    }
    return list;
}

void display_page(PDFDoc& doc, FontCache& cache, OutputDev& out, int number, double dpi,
                  bool (*abort_check)(void*), void* abort_data) {
    ::Page* page = doc.getPage(number);
    XRef* xref = doc.getXRef();
    std::optional<std::vector<std::shared_ptr<GfxFont>>> fonts;
    if (page) fonts = cache.fonts_of(*page, xref);
    if (!fonts) {
        doc.displayPageSlice(&out, number, dpi, dpi, 0, false, true, false, -1, -1, -1, -1,
                             abort_check, abort_data);
        return;
    }
    // Page::displaySlice and Page::createGfx for these arguments, the page's resources given to
    // Gfx with an empty /Font dictionary, whose GfxFontDict then gets the cached fonts.
    if (!out.checkPageSlice(page, dpi, dpi, 0, false, true, -1, -1, -1, -1, false, abort_check,
                            abort_data)) {
        return;
    }
    int rotate = page->getRotate();
    if (rotate >= 360) {
        rotate -= 360;
    } else if (rotate < 0) {
        rotate += 360;
    }
    PDFRectangle box;
    bool crop = true;
    page->makeBox(dpi, dpi, rotate, false, out.upsideDown(), -1, -1, -1, -1, &box, &crop);
    if (!crop) crop = (box == *page->getCropBox()) && out.needClipToCropBox();
    std::unique_ptr<Dict> resources(page->getResourceDict()->copy(xref));
    resources->set("Font", Object(new Dict(xref)));
    Gfx gfx(&doc, &out, number, resources.get(), dpi, dpi, &box,
            crop ? page->getCropBox() : nullptr, rotate, abort_check, abort_data, xref);
    GfxFontDict* dict = gfx.*member(GfxResourceStack{})->*member(ResourceFonts{});
    dict->*member(FontList{}) = std::move(*fonts);
    Object contents = page->getContents();
    if (!contents.isNull()) {
        gfx.saveState();
        gfx.display(&contents);
        gfx.restoreState();
    } else {
        out.dump();  // as poppler: an empty page still sets up the device
    }
    Annots* annots = page->getAnnots();
    if (!annots->getAnnots().empty()) {
        for (Annot* annot : annots->getAnnots()) annot->draw(&gfx, false);
        out.dump();
    }
}

}  // namespace rop::stdlib::pdf
