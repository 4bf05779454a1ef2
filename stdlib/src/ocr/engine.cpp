// The Tesseract engine shared by the OCR operators (see engine.h).
#include "engine.h"

#include <dlfcn.h>
#include <tesseract/resultiterator.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <vector>

namespace rop::stdlib::ocr {
namespace {

tesseract::PageSegMode psm_of(Segmentation mode) {
    switch (mode) {
        case Segmentation::auto_layout: return tesseract::PSM_AUTO;
        case Segmentation::single_column: return tesseract::PSM_SINGLE_COLUMN;
        case Segmentation::single_block: return tesseract::PSM_SINGLE_BLOCK;
        case Segmentation::single_line: return tesseract::PSM_SINGLE_LINE;
        case Segmentation::sparse: return tesseract::PSM_SPARSE_TEXT;
    }
    return tesseract::PSM_AUTO;
}

std::string take_text(char* text) {
    std::unique_ptr<char[]> owned(text);
    return owned ? std::string(owned.get()) : std::string();
}

std::string trimmed(std::string text) {
    const std::size_t end = text.find_last_not_of(" \n\t\r\f");
    text.erase(end == std::string::npos ? 0 : end + 1);
    const std::size_t begin = text.find_first_not_of(" \n\t\r\f");
    return begin == std::string::npos ? std::string() : text.substr(begin);
}

BBox unite(const BBox& a, const BBox& b) {
    return BBox{std::min(a.x0, b.x0), std::min(a.y0, b.y0), std::max(a.x1, b.x1),
                std::max(a.y1, b.y1)};
}

// The folder Tesseract reads traineddata from: `datapath`, else $TESSDATA_PREFIX, else Debian's.
std::filesystem::path tessdata_dir(const std::string& datapath) {
    if (!datapath.empty()) return datapath;
    const char* prefix = std::getenv("TESSDATA_PREFIX");
    return prefix && *prefix ? std::filesystem::path(prefix)
                             : "/usr/share/tesseract-ocr/5/tessdata";
}

std::string load_error(const std::string& lang, const std::string& datapath) {
    return "std.ocr: cannot load Tesseract language '" + lang + "'" +
           (datapath.empty() ? std::string() : " from '" + datapath + "'");
}

// Throws the load error when one of `lang`'s languages ("eng+deu") has no traineddata file.
void check_languages(const std::string& lang, const std::string& datapath) {
    const std::filesystem::path dir = tessdata_dir(datapath);
    std::size_t start = 0;
    while (true) {
        const std::size_t end = lang.find('+', start);
        const std::string one = lang.substr(start, end - start);
        std::error_code error;
        if (one.empty() || !std::filesystem::is_regular_file(dir / (one + ".traineddata"), error)) {
            throw std::runtime_error(load_error(lang, datapath));
        }
        if (end == std::string::npos) return;
        start = end + 1;
    }
}

}  // namespace

void single_threaded_openmp() {
    using SetLevels = void (*)(int);
    // libgomp is loaded with libtesseract; look it up instead of adding -fopenmp to every link.
    static const SetLevels set_max_active_levels =
        reinterpret_cast<SetLevels>(::dlsym(RTLD_DEFAULT, "omp_set_max_active_levels"));
    if (set_max_active_levels) set_max_active_levels(0);
}

std::string Tesseract::cache_identity() {
    std::string id = std::string("tesseract ") + tesseract::TessBaseAPI::Version();
    std::error_code error;
    std::vector<std::string> files;
    const std::filesystem::path dir = tessdata_dir("");
    for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
        if (entry.path().extension() != ".traineddata") continue;
        const auto time = std::filesystem::last_write_time(entry.path(), error);
        files.push_back(entry.path().filename().string() + ":" +
                        std::to_string(entry.file_size(error)) + ":" +
                        std::to_string(time.time_since_epoch().count()));
    }
    std::sort(files.begin(), files.end());
    for (const std::string& f : files) id += " " + f;
    return id;
}

Tesseract::Engine::Engine(const std::string& lang, Segmentation mode, const std::string& datapath)
    : lang_(lang), mode_(mode), datapath_(datapath) {
    check_languages(lang_, datapath_);
}

Tesseract::Engine::~Engine() {
    if (loaded_) api_.End();
}

tesseract::TessBaseAPI& Tesseract::Engine::api() {
    if (loaded_) return api_;
    // Before Init: one OpenMP thread per engine (see ocr.h for why this may be too late).
    ::setenv("OMP_THREAD_LIMIT", "1", 1);
    if (api_.Init(datapath_.empty() ? nullptr : datapath_.c_str(), lang_.c_str(),
                  tesseract::OEM_LSTM_ONLY) != 0) {
        throw std::runtime_error(load_error(lang_, datapath_));
    }
    api_.SetPageSegMode(psm_of(mode_));
    api_.SetVariable("debug_file", "/dev/null");  // no "Invalid resolution" chatter on stderr
    loaded_ = true;
    return api_;
}

void Tesseract::Engine::recognize(const Image& image, int dpi, double offset_x, double offset_y,
                                  OcrResult& result) {
    tesseract::TessBaseAPI& api = this->api();
    single_threaded_openmp();
    api.SetImage(image.pixels->data(), image.width, image.height, image.channels,
                 static_cast<int>(image.stride()));
    api.SetSourceResolution(dpi);
    if (api.Recognize(nullptr) != 0) throw rop::RecordFailure("OCR failed on the page");
    const double scale = 72.0 / dpi;
    auto box = [&](tesseract::PageIterator& it, tesseract::PageIteratorLevel level) {
        int left = 0, top = 0, right = 0, bottom = 0;
        it.BoundingBox(level, &left, &top, &right, &bottom);
        return BBox{offset_x + left * scale, offset_y + top * scale, offset_x + right * scale,
                    offset_y + bottom * scale};
    };
    std::unique_ptr<tesseract::ResultIterator> it(api.GetIterator());
    int block = -1;
    int paragraph = -1;
    double confidence_sum = 0;
    std::vector<int> line_words;
    if (it) {
        do {
            if (it->Empty(tesseract::RIL_WORD)) continue;
            // Each IsAtBeginningOf above the word walks its line from the start, and a block or
            // a paragraph starts only where a line does: ask for those at a line's start only.
            const bool line_start = it->IsAtBeginningOf(tesseract::RIL_TEXTLINE);
            if (line_start && it->IsAtBeginningOf(tesseract::RIL_BLOCK)) ++block;
            if (line_start && it->IsAtBeginningOf(tesseract::RIL_PARA)) ++paragraph;
            const bool new_line = line_start || result.lines.empty();
            Word word;
            word.text = trimmed(take_text(it->GetUTF8Text(tesseract::RIL_WORD)));
            word.bbox = box(*it, tesseract::RIL_WORD);
            word.confidence = it->Confidence(tesseract::RIL_WORD);
            if (word.text.empty()) continue;
            if (new_line) {
                Line line;
                line.bbox = word.bbox;
                line.block = std::max(block, 0);
                line.paragraph = std::max(paragraph, 0);
                int x1 = 0, y1 = 0, x2 = 0, y2 = 0;
                line.baseline = it->Baseline(tesseract::RIL_TEXTLINE, &x1, &y1, &x2, &y2)
                                    ? offset_y + (y1 + y2) / 2.0 * scale
                                    : box(*it, tesseract::RIL_TEXTLINE).y1;
                result.lines.push_back(line);
                line_words.push_back(0);
            }
            ++line_words.back();
            Line& line = result.lines.back();
            if (!line.text.empty()) line.text += ' ';
            line.text += word.text;
            line.bbox = unite(line.bbox, word.bbox);
            line.confidence += word.confidence;  // a sum until the end
            confidence_sum += word.confidence;
            result.words.push_back(std::move(word));
        } while (it->Next(tesseract::RIL_WORD));
    }
    // Per-line mean confidences, and the page text: lines by "\n", paragraphs by "\n\n".
    for (std::size_t i = 0; i < result.lines.size(); ++i) {
        Line& line = result.lines[i];
        line.confidence /= static_cast<float>(line_words[i]);
        if (i > 0) result.text += line.paragraph == result.lines[i - 1].paragraph ? "\n" : "\n\n";
        result.text += line.text;
    }
    result.confidence =
        result.words.empty() ? 0.0f : static_cast<float>(confidence_sum / result.words.size());
}

std::string Tesseract::Engine::rectangle_text(const Image& image, int dpi, int left, int top,
                                              int width, int height, float& confidence) {
    tesseract::TessBaseAPI& api = this->api();
    single_threaded_openmp();
    api.SetImage(image.pixels->data(), image.width, image.height, image.channels,
                 static_cast<int>(image.stride()));
    api.SetSourceResolution(dpi);
    api.SetRectangle(left, top, width, height);
    std::string text = trimmed(take_text(api.GetUTF8Text()));
    confidence = text.empty() ? 0.0f : static_cast<float>(api.MeanTextConf());
    return text;
}

}  // namespace rop::stdlib::ocr
