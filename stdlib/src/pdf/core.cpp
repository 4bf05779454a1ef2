// poppler's core API for std.pdf (see core.h): a page's marks and its image, under a budget.
#include "core.h"

#include <GfxState.h>
#include <GlobalParams.h>
#include <OutputDev.h>
#include <PDFDoc.h>
#include <SplashOutputDev.h>
#include <TextOutputDev.h>
#include <goo/GooString.h>
#include <splash/SplashBitmap.h>

#include <algorithm>
#include <ctime>
#include <utility>

#include "page_display.h"

namespace rop::stdlib::pdf {
namespace {

double thread_cpu_s() {
    timespec now{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

// poppler's abort check (Gfx asks between operators of the content stream): stop once the
// thread has spent its budget.
struct Budget {
    double start = thread_cpu_s();
    double max_seconds = 0;
    bool over = false;

    static bool check(void* data) {
        auto* budget = static_cast<Budget*>(data);
        budget->over = budget->over || thread_cpu_s() - budget->start > budget->max_seconds;
        return budget->over;
    }
    double spent() const { return thread_cpu_s() - start; }
};

void silent(ErrorCategory, Goffset, const char*) {}

bool light(const GfxRGB& rgb) {
    const double r = colToDbl(rgb.r), g = colToDbl(rgb.g), b = colToDbl(rgb.b);
    const double gray = 0.299 * r + 0.587 * g + 0.114 * b;
    return gray >= kLightColor && (r + g + b) / 3 >= kLightColor;
}

// Records the boxes of what a page paints (core.h, PageMarks) on top of `Base`, TextOutputDev,
// which reads the text layer in the same pass.
template <class Base>
class Marks : public Base {
  public:
    template <class... Args>
    explicit Marks(PageMarks& out, Args&&... args) : Base(std::forward<Args>(args)...), out_(out) {}

    bool needNonText() override { return true; }
    bool useShadedFills(int) override { return true; }

    void startPage(int number, GfxState* state, XRef* xref) override {
        width_ = state ? state->getPageWidth() : 0;
        height_ = state ? state->getPageHeight() : 0;
        Base::startPage(number, state, xref);
    }

    void stroke(GfxState* state) override {
        stroked(state);
        Base::stroke(state);
    }
    void fill(GfxState* state) override {
        filled(state);
        Base::fill(state);
    }
    void eoFill(GfxState* state) override {
        filled(state);
        Base::eoFill(state);
    }

    bool functionShadedFill(GfxState* state, GfxFunctionShading*) override {
        return shading(state);
    }
    bool axialShadedFill(GfxState* state, GfxAxialShading*, double, double) override {
        return shading(state);
    }
    bool radialShadedFill(GfxState* state, GfxRadialShading*, double, double) override {
        return shading(state);
    }
    bool gouraudTriangleShadedFill(GfxState* state, GfxGouraudTriangleShading*) override {
        return shading(state);
    }
    bool patchMeshShadedFill(GfxState* state, GfxPatchMeshShading*) override {
        return shading(state);
    }

    // Images: the unit square through the CTM. OutputDev's own reads past an inline image's
    // data, which the content stream's parser needs.
    void drawImageMask(GfxState* state, Object* ref, Stream* str, int width, int height,
                       bool invert, bool interpolate, bool inline_image) override {
        image(state);
        OutputDev::drawImageMask(state, ref, str, width, height, invert, interpolate, inline_image);
    }
    void drawImage(GfxState* state, Object* ref, Stream* str, int width, int height,
                   GfxImageColorMap* map, bool interpolate, const int* mask_colors,
                   bool inline_image) override {
        image(state);
        OutputDev::drawImage(state, ref, str, width, height, map, interpolate, mask_colors,
                             inline_image);
    }
    void drawMaskedImage(GfxState* state, Object*, Stream*, int, int, GfxImageColorMap*, bool,
                         Stream*, int, int, bool, bool) override {
        image(state);
    }
    void drawSoftMaskedImage(GfxState* state, Object*, Stream*, int, int, GfxImageColorMap*, bool,
                             Stream*, int, int, GfxImageColorMap*, bool) override {
        image(state);
    }

  private:
    void add(BBox box) {
        box.x0 = std::max(box.x0, 0.0);
        box.y0 = std::max(box.y0, 0.0);
        box.x1 = std::min(box.x1, width_);
        box.y1 = std::min(box.y1, height_);
        if (box.x1 < box.x0 || box.y1 < box.y0) return;  // off the page
        out_.marks.push_back(box);
    }

    void stroked(GfxState* state) {
        GfxRGB rgb;
        state->getStrokeRGB(&rgb);
        if (light(rgb)) return;
        const double half = std::max(0.5, state->getTransformedLineWidth() / 2);
        const GfxPath* path = state->getPath();
        for (int s = 0; s < path->getNumSubpaths(); ++s) {
            const GfxSubpath* sub = path->getSubpath(s);
            for (int i = 1; i < sub->getNumPoints(); ++i) {
                double x0, y0, x1, y1;
                state->transform(sub->getX(i - 1), sub->getY(i - 1), &x0, &y0);
                state->transform(sub->getX(i), sub->getY(i), &x1, &y1);
                add(BBox{std::min(x0, x1) - half, std::min(y0, y1) - half, std::max(x0, x1) + half,
                         std::max(y0, y1) + half});
            }
            if (sub->isClosed() || sub->getNumPoints() != 1) continue;
            double x, y;  // a lone point: a dot with a round cap
            state->transform(sub->getX(0), sub->getY(0), &x, &y);
            add(BBox{x - half, y - half, x + half, y + half});
        }
    }

    void filled(GfxState* state) {
        GfxRGB rgb;
        state->getFillRGB(&rgb);
        if (light(rgb)) return;
        const GfxPath* path = state->getPath();
        for (int s = 0; s < path->getNumSubpaths(); ++s) {
            const GfxSubpath* sub = path->getSubpath(s);
            BBox box{1e300, 1e300, -1e300, -1e300};
            for (int i = 0; i < sub->getNumPoints(); ++i) {
                double x, y;
                state->transform(sub->getX(i), sub->getY(i), &x, &y);
                box = BBox{std::min(box.x0, x), std::min(box.y0, y), std::max(box.x1, x),
                           std::max(box.y1, y)};
            }
            if (sub->getNumPoints() > 0) add(box);
        }
    }

    bool shading(GfxState* state) {
        double x0, y0, x1, y1;
        state->getClipBBox(&x0, &y0, &x1, &y1);
        add(BBox{std::min(x0, x1), std::min(y0, y1), std::max(x0, x1), std::max(y0, y1)});
        ++out_.images;
        return true;
    }

    void image(GfxState* state) {
        BBox box{1e300, 1e300, -1e300, -1e300};
        for (const auto& [u, v] : {std::pair{0.0, 0.0}, {1.0, 0.0}, {0.0, 1.0}, {1.0, 1.0}}) {
            double x, y;
            state->transform(u, v, &x, &y);
            box = BBox{std::min(box.x0, x), std::min(box.y0, y), std::max(box.x1, x),
                       std::max(box.y1, y)};
        }
        add(box);
        ++out_.images;
    }

    PageMarks& out_;
    double width_ = 0;
    double height_ = 0;
};

void append_text(void* stream, const char* text, int length) {
    static_cast<std::string*>(stream)->append(text, static_cast<std::size_t>(length));
}

}  // namespace

struct CoreDocument::Impl {
    GlobalParamsIniter params{silent};  // poppler's globals, counted across its users
    std::unique_ptr<PDFDoc> doc;
    FontCache fonts;  // the pages' fonts, made once for both passes (page_display.h)
    // The renderer of this document's pages, kept between pages as pdftoppm keeps it: its font
    // engine and glyph caches are the document's (a fresh one loaded every font again, page
    // after page), and its pixels are those of a fresh one (test_pdf_render).
    std::unique_ptr<SplashOutputDev> splash;
    int splash_channels = 0;
};

CoreDocument::CoreDocument(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CoreDocument::~CoreDocument() = default;

std::unique_ptr<CoreDocument> CoreDocument::open(const std::string& path) {
    auto impl = std::make_unique<Impl>();
    impl->doc = std::make_unique<PDFDoc>(std::make_unique<GooString>(path));
    if (!impl->doc->isOk() || impl->doc->getNumPages() <= 0) return nullptr;
    return std::unique_ptr<CoreDocument>(new CoreDocument(std::move(impl)));
}

int CoreDocument::pages() const { return impl_->doc->getNumPages(); }

std::int64_t CoreDocument::fonts_made() const { return impl_->fonts.made(); }

std::size_t CoreDocument::fonts_kept() const { return impl_->fonts.kept(); }

PageRead read_page(CoreDocument& doc, int index, double max_seconds) {
    PageRead read;
    // poppler-cpp's page::text(rectf(), non_raw_non_physical_layout): a TextOutputDev writing its
    // dump (physical layout off, raw order off) over a cropped displayPage at 72 dpi; its
    // text_list() makes the word list of such a device (crop off, which the text layer ignores).
    Marks<TextOutputDev> out(read.marks, append_text, &read.text, false, 0.0, false);
    Budget budget;
    budget.max_seconds = max_seconds;
    display_page(*doc.impl().doc, doc.impl().fonts, out, index + 1, 72, Budget::check, &budget);
    read.marks.over_budget = budget.over;
    if (budget.over) {
        read.marks.cpu_s = budget.spent();
        return read;
    }
    // text_list_include_font: a word's font is its first glyph's. poppler-cpp names it from a
    // FontInfoScanner over the page, whose FontInfo takes the name from the same GfxFont the text
    // device kept; the scanner also looks every font without an embedded file up in fontconfig,
    // which cost half of this pass on born-digital pages (B4-layer), for a name the device has.
    if (std::unique_ptr<TextWordList> list = out.makeWordList()) {
        read.words.reserve(static_cast<std::size_t>(list->getLength()));
        for (int i = 0; i < list->getLength(); ++i) {
            const TextWord* word = list->get(i);
            LayerBox box;
            std::unique_ptr<GooString> text(word->getText());
            box.text = text->toStr();
            double x0, y0, x1, y1;
            word->getBBox(&x0, &y0, &x1, &y1);
            box.x = x0;
            box.y = y0;
            box.width = x1 - x0;
            box.height = y1 - y0;
            box.space_after = word->hasSpaceAfter();
            box.font_size = word->getFontSize();
            if (word->getLength() > 0) {
                const GooString* name = word->getFontInfo(0)->getFontName();
                if (name) box.font = name->toStr();
            }
            read.words.push_back(std::move(box));
        }
    }
    read.marks.cpu_s = budget.spent();
    return read;
}

Rendered render_page(CoreDocument& doc, int index, int dpi, int channels, double max_seconds) {
    Rendered result;
    CoreDocument::Impl& impl = doc.impl();
    if (!impl.splash || impl.splash_channels != channels) {
        SplashColor paper;
        paper[0] = paper[1] = paper[2] = 0xff;
        // poppler-cpp's page_renderer (antialiasing and text_antialiasing hints, no hinting,
        // gray8 or rgb24): the same device with the same settings, so the same pixels.
        impl.splash =
            std::make_unique<SplashOutputDev>(channels == 1 ? splashModeMono8 : splashModeRGB8, 4,
                                              false, paper, true, splashThinLineDefault);
        impl.splash->setFontAntialias(true);
        impl.splash->setVectorAntialias(true);
        impl.splash->setFreeTypeHinting(false, false);
        impl.splash->startDoc(impl.doc.get());
        impl.splash_channels = channels;
    }
    SplashOutputDev& out = *impl.splash;
    Budget budget;
    budget.max_seconds = max_seconds;
    display_page(*impl.doc, impl.fonts, out, index + 1, dpi, Budget::check, &budget);
    result.over_budget = budget.over;
    result.cpu_s = budget.spent();
    SplashBitmap* bitmap = out.getBitmap();
    if (!bitmap || bitmap->getWidth() <= 0 || bitmap->getHeight() <= 0) return result;
    result.valid = true;
    Image& image = result.image;
    image.width = bitmap->getWidth();
    image.height = bitmap->getHeight();
    image.channels = channels;
    // Row by row into reserved memory: a zero-filled buffer cost a tenth of a render.
    auto pixels = std::make_shared<std::vector<std::uint8_t>>();
    pixels->reserve(image.stride() * image.height);
    const auto* data = reinterpret_cast<const std::uint8_t*>(bitmap->getDataPtr());
    for (int y = 0; y < image.height; ++y) {
        const std::uint8_t* row = data + static_cast<std::size_t>(bitmap->getRowSize()) * y;
        pixels->insert(pixels->end(), row, row + image.stride());
    }
    image.pixels = std::move(pixels);
    return result;
}

}  // namespace rop::stdlib::pdf
