// std.ocr.Tesseract: text, words and lines of rendered test pages, a batch across documents.
#include <dlfcn.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "render_pages.h"
#include "rop/stdlib/ocr.h"
#include "rop/stdlib/pdf.h"

using namespace rop::stdlib;

namespace {

using testing::kData;
using testing::render;

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("Tesseract reads a batch of pages from two documents, in order") {
    std::vector<Page> batch = render("docs/report.pdf", 150);
    for (Page& page : render("docs/letter.pdf", 150)) batch.push_back(std::move(page));
    ocr::Tesseract engine("eng");
    const std::vector<OcrResult> results = engine(batch);
    REQUIRE(results.size() == 5);
    CHECK(results[0].doc_name == "docs/report.pdf");
    CHECK(results[0].page_index == 0);
    CHECK(results[4].doc_name == "docs/letter.pdf");
    CHECK(results[4].page_index == 1);

    const std::string& first = results[0].text;
    CHECK(contains(first, "Quarterly Report"));
    CHECK(contains(first, "The quick brown fox jumps over the lazy dog."));
    CHECK(first.find("Quarterly Report") < first.find("quick brown"));
    CHECK(first.find("quick brown") < first.find("Second paragraph"));
    CHECK(contains(results[1].text, "North"));
    CHECK(contains(results[2].text, "Growth will continue next year."));
    CHECK(contains(results[3].text, "This letter has two pages."));
    CHECK(contains(results[4].text, "Kind regards from the second page."));
    CHECK(ocr::text(results[3]) == results[3].text);

    // Words and lines carry boxes in points and confidences.
    REQUIRE_FALSE(results[0].words.empty());
    const Word& word = results[0].words.front();
    CHECK(word.text == "Quarterly");
    CHECK(word.bbox.x0 > 68);
    CHECK(word.bbox.x0 < 76);
    CHECK(word.bbox.y0 > 72);
    CHECK(word.bbox.y1 < 116);
    CHECK(word.confidence > 80);
    REQUIRE(results[0].lines.size() >= 4);
    CHECK(results[0].lines[0].text == "Quarterly Report");
    CHECK(results[0].lines[1].text == "The quick brown fox jumps over the lazy dog.");
    CHECK(results[0].lines[0].bbox.height() > results[0].lines[1].bbox.height() * 1.5);
    CHECK(results[0].confidence > 80);
}

TEST_CASE("Tesseract fails a page without an image as one record") {
    ocr::Tesseract engine("eng");
    std::vector<Page> batch(1);
    batch[0].doc_name = "x.pdf";
    CHECK_THROWS_AS(engine(batch), rop::RecordFailure);
    CHECK_THROWS_AS(ocr::Tesseract("no-such-language"), std::runtime_error);
}

TEST_CASE("an OCR call leaves the calling thread's OpenMP regions single-threaded") {
    using GetLevels = int (*)();
    const auto get_max_active_levels =
        reinterpret_cast<GetLevels>(::dlsym(RTLD_DEFAULT, "omp_get_max_active_levels"));
    REQUIRE(get_max_active_levels != nullptr);  // libgomp comes with libtesseract
    ocr::Tesseract engine("eng");
    std::vector<Page> batch = render("docs/letter.pdf", 72);
    batch.resize(1);
    CHECK(engine(batch).size() == 1);
    CHECK(get_max_active_levels() == 0);
}

TEST_CASE("Tesseract passes layer pages through without the engine and OCRs the scan") {
    std::vector<Page> batch = render("text/mixed.pdf", 150, pdf::TextSource::detect);
    REQUIRE(batch.size() == 4);
    REQUIRE(batch[0].text_source == "layer");
    REQUIRE(batch[1].text_source == "ocr");
    // A layer page needs no image: the engine never sees it (it would fail "page has no image").
    batch[0].image = Image{};
    ocr::Tesseract engine("eng");
    const std::vector<OcrResult> results = engine(batch);
    REQUIRE(results.size() == 4);
    CHECK(results[0].text_source == "layer");
    CHECK(results[0].confidence == 100);
    CHECK(results[0].text ==
          "Mixed Sources Handbook\n\nBorn Digital\n\nThis page has a text layer that poppler "
          "reads.\nIts words come with fonts and boxes.\n\n1");
    REQUIRE(results[0].lines.size() == 5);
    CHECK(results[0].lines[1].font_size == 24);
    CHECK(results[0].words.size() == batch[0].words.size());
    // The scan went through Tesseract.
    CHECK(results[1].text_source == "ocr");
    CHECK(contains(results[1].text, "Scanned Part"));
    CHECK(contains(results[1].text, "This page is only a picture of its text."));
    CHECK(results[1].confidence > 80);
    CHECK(results[1].confidence < 100);
    CHECK(results[1].lines.front().font_size == 0);
    CHECK(results[2].text_source == "layer");
    CHECK(contains(results[2].text, "The third page is born digital again."));
}

TEST_CASE("Tesseract checks its languages at setup and loads its model on the first OCR page") {
    // A folder whose eng.traineddata is there but empty: setup finds every language's file, the
    // layer page passes without the engine, and the first scan loads it and fails to.
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("rop-tessdata-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "eng.traineddata").flush();
    std::vector<Page> batch = render("text/mixed.pdf", 150, pdf::TextSource::detect);
    REQUIRE(batch.size() == 4);
    REQUIRE(batch[0].text_source == "layer");
    REQUIRE(batch[1].text_source == "ocr");
    ocr::Tesseract engine("eng", ocr::Segmentation::auto_layout, dir.string());
    const std::vector<Page> layer_page(batch.begin(), batch.begin() + 1);
    CHECK(engine(layer_page).at(0).text_source == "layer");
    const std::vector<Page> scan(batch.begin() + 1, batch.begin() + 2);
    try {
        engine(scan);
        FAIL("an empty traineddata file loaded");
    } catch (const std::runtime_error& error) {
        CHECK(std::string(error.what()) ==
              "std.ocr: cannot load Tesseract language 'eng' from '" + dir.string() + "'");
    }
    // A language without its file is refused at setup, alone or after a good one.
    CHECK_THROWS_AS(ocr::Tesseract("eng+deu", ocr::Segmentation::auto_layout, dir.string()),
                    std::runtime_error);
    CHECK_THROWS_AS(ocr::RegionText("xx"), std::runtime_error);
    CHECK_THROWS_AS(ocr::Tesseract("eng+"), std::runtime_error);
    CHECK_NOTHROW(ocr::RegionText("eng"));
    std::filesystem::remove_all(dir);
}
