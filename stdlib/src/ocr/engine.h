// The Tesseract engine behind std.ocr.Tesseract and std.ocr.RegionText: one TessBaseAPI, set up
// once per actor, recognizing 8-bit gray or RGB images.
#pragma once

#include <tesseract/baseapi.h>

#include <filesystem>
#include <string>

#include "rop/stdlib/ocr.h"

namespace rop::stdlib::ocr {

// Makes Tesseract's OpenMP regions run on the calling thread alone. OMP_THREAD_LIMIT=1 only works
// when set before the process starts (libgomp reads it once); the max-active-levels ICV of the
// calling thread can still be set to 0, which turns every parallel region it starts into a team
// of one. Called before each recognition, on the actor's thread. A no-op without libgomp.
void single_threaded_openmp();

// The folder Tesseract reads traineddata from: `datapath`, else $TESSDATA_PREFIX, else Debian's.
std::filesystem::path tessdata_dir(const std::string& datapath);

// Throws the engine's load error (std::runtime_error) when one of `lang`'s languages ("eng+deu")
// has no traineddata file there: the check an actor makes at setup, before any engine is loaded.
void check_languages(const std::string& lang, const std::string& datapath);

struct Tesseract::Engine {
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

    tesseract::TessBaseAPI api;
};

}  // namespace rop::stdlib::ocr
