// std.ocr: Tesseract (pages), RegionText (layout regions), text, has_text.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "engine.h"
#include "text_grid.h"

namespace rop::stdlib::ocr {
namespace {

constexpr int kPad = 12;  // white border around a region crop: Tesseract reads edges badly

// The region's crop with a white border of kPad pixels.
Image padded(const Image& image) {
    Image out;
    out.width = image.width + 2 * kPad;
    out.height = image.height + 2 * kPad;
    out.channels = image.channels;
    auto pixels = std::make_shared<std::vector<std::uint8_t>>(out.stride() * out.height, 255);
    for (int y = 0; y < image.height; ++y) {
        std::memcpy(pixels->data() + out.stride() * (y + kPad) + kPad * out.channels,
                    image.pixels->data() + image.stride() * y, image.stride());
    }
    out.pixels = std::move(pixels);
    return out;
}

int to_pixels(double points, int dpi) { return static_cast<int>(std::lround(points * dpi / 72.0)); }

// A table region's grid from where the words OCR found in it stand (layout::detail::
// grid_from_pieces, as on a text-layer page); a word with no letter or digit (a speck Tesseract
// reads as "__": layout::detail::holds_letter_or_digit) is left out. False, leaving the region
// as it is, when they make none.
bool grid_from_words(const std::vector<Word>& words, Region& region) {
    std::vector<layout::detail::TextPiece> pieces;
    for (const Word& word : words) {
        if (layout::detail::holds_letter_or_digit(word.text)) {
            pieces.push_back({word.bbox, word.text});
        }
    }
    return layout::detail::grid_into(region, std::move(pieces));
}

// A table region's cells read one by one from its (padded) crop: one rectangle per cell, a few
// pixels inside its rules; its text the rows with cells joined by " | ", its confidence the
// mean of the cells that read something.
void read_cells(Tesseract::Engine& engine, const Image& image, Region& region) {
    const int inset = std::max(2, region.dpi / 36);
    float sum = 0;
    int counted = 0;
    const tesseract::PageSegMode saved = engine.api().GetPageSegMode();
    engine.api().SetPageSegMode(tesseract::PSM_SINGLE_BLOCK);
    for (TableCell& cell : region.cells) {
        const int left = to_pixels(cell.bbox.x0 - region.bbox.x0, region.dpi) + kPad + inset;
        const int top = to_pixels(cell.bbox.y0 - region.bbox.y0, region.dpi) + kPad + inset;
        const int width = to_pixels(cell.bbox.width(), region.dpi) - 2 * inset;
        const int height = to_pixels(cell.bbox.height(), region.dpi) - 2 * inset;
        if (width <= 4 || height <= 4) continue;
        float confidence = 0;
        cell.text = engine.rectangle_text(image, region.dpi, left, top, width, height, confidence);
        std::replace(cell.text.begin(), cell.text.end(), '\n', ' ');
        if (!cell.text.empty()) sum += confidence, ++counted;
    }
    engine.api().SetPageSegMode(saved);
    region.text = layout::detail::table_text(region.cells);
    region.confidence = counted > 0 ? sum / counted : 0;
}

// A page whose text comes from its layer, as an OcrResult: its words and lines as they are, the
// text lines by "\n" and paragraphs by "\n\n" (as the engine's), confidence 100.
OcrResult from_layer(const Page& page) {
    OcrResult result;
    result.doc_path = page.doc_path;
    result.doc_name = page.doc_name;
    result.page_index = page.index;
    result.width = page.width;
    result.height = page.height;
    result.words = page.words;
    result.lines = page.lines;
    for (std::size_t i = 0; i < page.lines.size(); ++i) {
        if (i > 0) {
            result.text += page.lines[i].paragraph == page.lines[i - 1].paragraph ? "\n" : "\n\n";
        }
        result.text += page.lines[i].text;
    }
    result.confidence = 100;
    result.text_source = "layer";
    result.outline = page.outline;
    return result;
}

}  // namespace

Tesseract::Tesseract(std::string lang, Segmentation mode, std::string datapath)
    : engine_(std::make_unique<Engine>(lang, mode, datapath)) {}
Tesseract::~Tesseract() = default;
Tesseract::Tesseract(Tesseract&&) noexcept = default;
Tesseract& Tesseract::operator=(Tesseract&&) noexcept = default;

std::vector<OcrResult> Tesseract::operator()(std::span<const Page> pages) {
    std::vector<OcrResult> results;
    results.reserve(pages.size());
    for (const Page& page : pages) {
        if (page.text_source == "layer") {  // no engine: the page's own text layer
            results.push_back(from_layer(page));
            continue;
        }
        if (page.image.empty() || page.dpi <= 0) {
            throw rop::RecordFailure(page.doc_name + ": page " + std::to_string(page.index + 1) +
                                     ": page has no image");
        }
        OcrResult result;
        result.doc_path = page.doc_path;
        result.doc_name = page.doc_name;
        result.page_index = page.index;
        result.width = page.width;
        result.height = page.height;
        result.outline = page.outline;
        engine_->recognize(page.image, page.dpi, 0, 0, result);
        results.push_back(std::move(result));
    }
    return results;
}

RegionText::RegionText(std::string lang, Segmentation mode, std::string datapath)
    : engine_(std::make_unique<Tesseract::Engine>(lang, mode, datapath)) {}
RegionText::~RegionText() = default;
RegionText::RegionText(RegionText&&) noexcept = default;
RegionText& RegionText::operator=(RegionText&&) noexcept = default;

std::vector<Region> RegionText::operator()(std::span<const Region> regions) {
    std::vector<Region> results;
    results.reserve(regions.size());
    for (const Region& input : regions) {
        Region region = input;
        if (region.kind == RegionKind::figure || region.text_source == "layer" ||
            region.image.empty() || region.dpi <= 0) {
            results.push_back(std::move(region));
            continue;
        }
        const Image image = padded(region.image);
        // A table without rules, or whose rules give it one column (a frame and a rule under
        // the head row), takes its grid from where its words stand, as on a text-layer page;
        // when they make none, its rules' cells (if any) are read one by one.
        const bool table = region.kind == RegionKind::table;
        if (table && !region.cells.empty() && region.cols != 1) {
            read_cells(*engine_, image, region);
        } else {
            OcrResult result;
            engine_->recognize(image, region.dpi, region.bbox.x0 - kPad * 72.0 / region.dpi,
                               region.bbox.y0 - kPad * 72.0 / region.dpi, result);
            region.text = result.text;
            region.confidence = result.confidence;
            if (table && !grid_from_words(result.words, region) && !region.cells.empty())
                read_cells(*engine_, image, region);
            if (!table) {  // for std.assemble.page's line rules (code set at one pitch)
                region.lines = std::move(result.lines);
                region.words = std::move(result.words);
            }
        }
        results.push_back(std::move(region));
    }
    return results;
}

std::string text(const OcrResult& result) { return result.text; }

bool has_text(const Region& region) {
    if (region.kind == RegionKind::figure) return true;
    return region.text.find_first_not_of(" \n\t\r|") != std::string::npos;
}

}  // namespace rop::stdlib::ocr
