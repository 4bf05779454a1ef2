// core.h (internal to rop_stdlib_pdf): what std.pdf needs from poppler's core API
// (libpoppler-private-dev) beyond poppler-cpp: a page's text layer and the marks it paints, read
// from its drawing operators in one pass without rendering it, and the page rendered as
// poppler-cpp's page_renderer does; both under a CPU-time budget that stops poppler between two
// operators of the content stream.
#pragma once

#include <rop/stdlib/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace rop::stdlib::pdf {

// The most fonts a CoreDocument keeps for its pages (page_display.h, FontCache).
inline constexpr std::size_t kMaxFontsKept = 64;

// One PDF opened through poppler's core API (PDFDoc), for one thread at a time.
class CoreDocument {
  public:
    // Null when poppler cannot open the file or it is locked (the caller has opened it with
    // poppler-cpp before, which says why).
    static std::unique_ptr<CoreDocument> open(const std::string& path);
    ~CoreDocument();
    CoreDocument(const CoreDocument&) = delete;
    CoreDocument& operator=(const CoreDocument&) = delete;

    int pages() const;
    // Fonts poppler has made for this document's pages so far: each once, whichever pass or page
    // needs it again (page_display.h).
    std::int64_t fonts_made() const;
    std::size_t fonts_kept() const;  // fonts the cache holds now, at most kMaxFontsKept

    struct Impl;  // core.cpp: poppler's PDFDoc
    Impl& impl() { return *impl_; }

  private:
    explicit CoreDocument(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

// What a page paints that can darken its image, from its drawing operators: every stroked
// segment (its box grown by half the line width, a hairline by half a point), every filled
// subpath, every image and shading (its box), in points with the origin at the top-left of the
// page as displayed (its rotation applied), clipped to the page. Marks painted in a light color
// (gray, and the mean of red, green and blue, both at least kLightColor) are left out: drawn on
// white they darken no pixel below std.layout's ink level. Text is not a mark.
inline constexpr double kLightColor = 0.55;
struct PageMarks {
    std::vector<BBox> marks;
    int images = 0;  // of which images, image masks and shadings
    bool over_budget = false;
    double cpu_s = 0;  // the thread's CPU seconds the pass took
};

// A page's text layer and its marks in one pass over its content (poppler's TextOutputDev, which
// also records the marks), as poppler-cpp reads the layer in two: `text` is what page::text()
// gives in non_raw_non_physical_layout, `words` what page::text_list(text_list_include_font)
// gives, in its order. Strings are poppler's UTF-8 before poppler-cpp's ustring conversion.
struct LayerBox {
    std::string text;
    double x = 0, y = 0, width = 0, height = 0;  // as poppler-cpp's rectf holds a box
    bool space_after = false;
    double font_size = 0;
    std::string font;  // the font of its first glyph, by the page's font list; "" when unlisted
};
struct PageRead {
    PageMarks marks;
    std::string text;
    std::vector<LayerBox> words;
};
PageRead read_page(CoreDocument& doc, int index, double max_seconds);

// The page rendered at `dpi` in gray (1 channel) or RGB (3), as poppler-cpp's page_renderer
// renders it with antialiasing and text antialiasing (Splash, white paper, no hinting): the same
// pixels. `over_budget` when poppler was stopped by the budget (the image is then incomplete).
struct Rendered {
    Image image;
    bool valid = false;  // poppler made a bitmap
    bool over_budget = false;
    double cpu_s = 0;
};
Rendered render_page(CoreDocument& doc, int index, int dpi, int channels, double max_seconds);

}  // namespace rop::stdlib::pdf
