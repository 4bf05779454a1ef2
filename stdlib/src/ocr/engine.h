// The Tesseract engine behind std.ocr.Tesseract and std.ocr.RegionText: one TessBaseAPI, set up
// once per actor, recognizing 8-bit gray or RGB images.
#pragma once

#include <tesseract/baseapi.h>

#include <string>

#include "rop/stdlib/ocr.h"

namespace rop::stdlib::ocr {

// Makes Tesseract's OpenMP regions run on the calling thread alone. OMP_THREAD_LIMIT=1 only works
// when set before the process starts (libgomp reads it once); the max-active-levels ICV of the
// calling thread can still be set to 0, which turns every parallel region it starts into a team
// of one. Called before each recognition, on the actor's thread. A no-op without libgomp.
void single_threaded_openmp();

struct Tesseract::Engine {
    // Checks that every language of `lang` ("eng+deu") has its traineddata in `datapath`
    // ($TESSDATA_PREFIX, else Debian's folder, when empty) and throws the load error
    // (std::runtime_error) when one has none. Tesseract itself is loaded on first use, so an
    // actor whose pages all read their text layer loads no model.
    Engine(const std::string& lang, Segmentation mode, const std::string& datapath);
    ~Engine();

    // Recognizes `image` (rendered at `dpi`) and fills result's text, words, lines and
    // confidence. Boxes are in points, shifted by (offset_x, offset_y) points: the position of
    // the image's top-left corner on the page.
    void recognize(const Image& image, int dpi, double offset_x, double offset_y,
                   OcrResult& result);

    // Only the text of a rectangle of the image (pixels), trimmed, and its mean confidence.
    std::string rectangle_text(const Image& image, int dpi, int left, int top, int width,
                               int height, float& confidence);

    // Tesseract's API, loaded on the first call (the load error when it cannot be).
    tesseract::TessBaseAPI& api();

  private:
    std::string lang_;
    Segmentation mode_;
    std::string datapath_;
    bool loaded_ = false;
    tesseract::TessBaseAPI api_;
};

}  // namespace rop::stdlib::ocr
