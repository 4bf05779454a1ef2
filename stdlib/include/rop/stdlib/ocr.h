// rop/stdlib/ocr.h: OCR on Tesseract — pages (std.ocr.Tesseract) and layout regions
// (std.ocr.RegionText), one engine per actor, a batch of items from many documents per call.
// rop-link: rop_stdlib_ocr rop_stdlib_rules tesseract lept
//
// Tesseract's LSTM uses OpenMP; with several actors on few cores its threads fight (6x slower
// per page measured here). Each engine sets OMP_THREAD_LIMIT=1 before Init and, because libgomp
// reads that variable only at process start, also makes every recognition's OpenMP regions run
// on the calling actor thread alone (max-active-levels 0), so one actor uses one core.
#pragma once

#include <rop/stdlib/types.h>
#include <rop/udf.h>

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace rop::stdlib::ocr {

// Page segmentation modes (Tesseract's --psm): auto = 3, single_block = 6, sparse = 11.
enum class Segmentation { auto_layout, single_column, single_block, single_line, sparse };

// map Page -> OcrResult (batch): the class is one actor's engine. Setup loads `lang` ("eng",
// "eng+deu") from `datapath` (empty: Tesseract's default folder); a language without its
// traineddata file is an error (std::runtime_error) at setup, not a record failure. The engine
// itself is loaded on the first page that needs OCR, so a run whose pages all read their text
// layer pays for no model. Each page's result has its text (paragraphs
// separated by a blank line), words and lines with boxes in points and confidences 0..100. A
// page without an image fails its record ("page has no image"). A page whose text_source is
// "layer" (std.pdf.pages decided its text layer is sane) skips the engine: its result is the
// layer's words and lines, confidence 100, text_source "layer"; it needs no image.
class Tesseract {
  public:
    explicit Tesseract(std::string lang = "eng", Segmentation mode = Segmentation::auto_layout,
                       std::string datapath = "");
    ~Tesseract();
    Tesseract(Tesseract&&) noexcept;
    Tesseract& operator=(Tesseract&&) noexcept;

    std::vector<OcrResult> operator()(std::span<const Page> pages);
    // For the result store's keys (--cache): Tesseract's version and the traineddata files of
    // its default folder (names, sizes, modification times), so an upgrade re-runs OCR.
    static std::string cache_identity();

    struct Engine;

  private:
    std::unique_ptr<Engine> engine_;
};

// map Region -> Region (batch): OCRs each region's image (the crop std.layout.Regions made) and
// returns the region with `text` and `confidence` set; a table region with a cell grid from its
// rules gets every cell's text too, and one without (or whose rules give it one column) a grid
// from where the words OCR finds stand, when they make one (rows, cols, cells; its text the
// rows with cells joined by " | "). A text or heading region also keeps the lines and words OCR
// found (Region::lines, words), which std.assemble.page reads for code. Figures keep empty text,
// and regions whose text_source is "layer" (std.layout.Regions filled them from the text layer)
// pass through unchanged. Setup as for Tesseract; `mode` defaults to one block.
class RegionText {
  public:
    explicit RegionText(std::string lang = "eng", Segmentation mode = Segmentation::single_block,
                        std::string datapath = "");
    ~RegionText();
    RegionText(RegionText&&) noexcept;
    RegionText& operator=(RegionText&&) noexcept;

    std::vector<Region> operator()(std::span<const Region> regions);
    static std::string cache_identity() { return Tesseract::cache_identity(); }

  private:
    std::unique_ptr<Tesseract::Engine> engine_;
};

// map OcrResult -> std::string: the page's text.
std::string text(const OcrResult& result);

// filter Region: true when OCR found text in the region (or it is a figure).
bool has_text(const Region& region);

}  // namespace rop::stdlib::ocr
