// std.pdf: open, title, streaming pages (images and native text) and the broken-file reasons.
#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "rop/stdlib/pdf.h"

using namespace rop::stdlib;

namespace {

const std::string kData = ROP_TEST_DATA_DIR;

File file(const std::string& relative) { return File{kData + "/" + relative, relative, {}}; }

std::string failure_of(const std::string& relative) {
    try {
        pdf::open(file(relative));
    } catch (const rop::RecordFailure& failure) {
        return failure.reason();
    }
    return "(no failure)";
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

struct StopAfterFirst final : rop::Emitter<Page> {
    int emitted = 0;
    void emit(Page) override {
        ++emitted;
        throw std::runtime_error("stop");
    }
};

}  // namespace

TEST_CASE("open reads page count and metadata") {
    File input = file("docs/report.pdf");
    input.metadata["lang"] = "eng";
    const Document doc = pdf::open(input);
    CHECK(doc.page_count == 3);
    CHECK(doc.title == "Quarterly Report");
    CHECK(doc.author == "Rop Tests");
    CHECK(doc.info.at("Title") == "Quarterly Report");
    CHECK(doc.metadata.at("lang") == "eng");
    CHECK(pdf::title(doc) == "Quarterly Report");
    CHECK(pdf::page_count(doc) == 3);
    CHECK(pdf::open(File{"file://" + kData + "/docs/letter.pdf", "letter", {}}).page_count == 2);
    Document untitled = doc;
    untitled.title.clear();
    CHECK(pdf::title(untitled) == "report");
}

TEST_CASE("pages streams every page in order with its image and text layer") {
    const Document doc = pdf::open(file("docs/report.pdf"));
    rop::CollectingEmitter<Page> out;
    pdf::pages(doc, out, 100, pdf::Color::gray);
    REQUIRE(out.children.size() == 3);
    for (int i = 0; i < 3; ++i) {
        const Page& page = out.children[i];
        CHECK(page.index == i);
        CHECK(page.page_count == 3);
        CHECK(page.width == 612);
        CHECK(page.height == 792);
        CHECK(page.dpi == 100);
        CHECK(page.image.width == 850);
        CHECK(page.image.height == 1100);
        CHECK(page.image.channels == 1);
        REQUIRE(page.image.pixels);
        CHECK(page.image.pixels->size() == 850u * 1100u);
    }
    CHECK(contains(out.children[0].text, "Quarterly Report"));
    CHECK(contains(out.children[0].text, "The quick brown fox jumps over the lazy dog."));
    CHECK(contains(out.children[1].text, "Results Table"));
    CHECK(contains(out.children[1].text, "North"));
    CHECK(contains(out.children[2].text, "Growth will continue next year."));
    CHECK(out.children[0].text.find("Quarterly") < out.children[0].text.find("quick brown"));
    REQUIRE_FALSE(out.children[0].words.empty());
    CHECK(out.children[0].words.front().text == "Quarterly");
    CHECK(out.children[0].words.front().bbox.x0 > 70);
    CHECK(out.children[0].words.front().bbox.x0 < 75);
    // Ink where the heading is, white paper in the corner.
    const auto& pixels = *out.children[0].image.pixels;
    CHECK(pixels[0] == 255);
    bool ink = false;
    for (int y = 100; y < 140 && !ink; ++y) {
        for (int x = 100; x < 400 && !ink; ++x) ink = pixels[y * 850 + x] < 128;
    }
    CHECK(ink);
}

TEST_CASE("pages renders RGB and can force OCR") {
    const Document doc = pdf::open(file("docs/letter.pdf"));
    rop::CollectingEmitter<Page> out;
    pdf::pages(doc, out, 72, pdf::Color::rgb, pdf::TextSource::ocr);
    REQUIRE(out.children.size() == 2);
    CHECK(out.children[1].image.channels == 3);
    CHECK(out.children[1].image.pixels->size() == 612u * 792u * 3u);
    CHECK(out.children[1].text_source == "ocr");
    CHECK(out.children[1].text_check == "ocr: forced (text: ocr)");
    // The layer is still read: a pipeline can compare OCR with it.
    CHECK(contains(out.children[1].text, "Kind regards from the second page."));
    CHECK_THROWS_AS(pdf::pages(doc, out, 5), rop::RecordFailure);
}

TEST_CASE("pages emits page 0 before it renders page 1") {
    const Document doc = pdf::open(file("docs/report.pdf"));
    StopAfterFirst out;
    CHECK_THROWS_AS(pdf::pages(doc, out, 50), std::runtime_error);
    CHECK(out.emitted == 1);
}

// The page count reaches the progress ETA through rop::expected_children before page 0.
struct ExpectedBeforeFirst final : rop::Emitter<Page>, rop::ExpectedChildrenSink {
    std::vector<std::uint64_t> expected;
    std::vector<std::size_t> expected_at_emit;  // hints seen when each page came
    void expect(std::uint64_t children) override { expected.push_back(children); }
    void emit(Page) override { expected_at_emit.push_back(expected.size()); }
};

TEST_CASE("pages announces its page count before the first page") {
    const Document doc = pdf::open(file("docs/report.pdf"));
    ExpectedBeforeFirst out;
    rop::current_expected_children_sink() = &out;
    pdf::pages(doc, out, 50);
    rop::current_expected_children_sink() = nullptr;
    REQUIRE(out.expected == std::vector<std::uint64_t>{static_cast<std::uint64_t>(doc.page_count)});
    REQUIRE(out.expected_at_emit.size() == static_cast<std::size_t>(doc.page_count));
    CHECK(out.expected_at_emit.front() == 1);
}

TEST_CASE("broken files fail their record with a clear reason") {
    CHECK(failure_of("corrupt/empty.pdf") == "corrupt/empty.pdf: empty file");
    CHECK(failure_of("corrupt/garbage.pdf") == "corrupt/garbage.pdf: not a PDF (no %PDF- header)");
    CHECK(failure_of("corrupt/truncated.pdf") ==
          "corrupt/truncated.pdf: truncated PDF (no %%EOF at the end)");
    CHECK(failure_of("corrupt/encrypted.pdf") ==
          "corrupt/encrypted.pdf: encrypted PDF (needs a password)");
    CHECK(failure_of("corrupt/no_pages.pdf") == "corrupt/no_pages.pdf: PDF has no pages");
    CHECK(contains(failure_of("corrupt/missing.pdf"), "corrupt/missing.pdf: cannot open"));
    // The expand fails the same way when handed a Document whose file went bad.
    Document doc;
    doc.path = kData + "/corrupt/garbage.pdf";
    doc.name = "garbage";
    rop::CollectingEmitter<Page> out;
    CHECK_THROWS_AS(pdf::pages(doc, out), rop::RecordFailure);
    CHECK(out.children.empty());
}

namespace {

std::vector<Page> mixed_pages(pdf::TextSource text) {
    rop::CollectingEmitter<Page> out;
    pdf::pages(pdf::open(file("text/mixed.pdf")), out, 100, pdf::Color::gray, text);
    return out.children;
}

bool starts_with(const std::string& text, const std::string& prefix) {
    return text.rfind(prefix, 0) == 0;
}

}  // namespace

TEST_CASE("text: detect reads born-digital pages from their layer and sends a scan to OCR") {
    const std::vector<Page> pages = mixed_pages(pdf::TextSource::detect);
    REQUIRE(pages.size() == 4);
    CHECK(pages[0].text_source == "layer");
    CHECK(pages[1].text_source == "ocr");
    CHECK(pages[2].text_source == "layer");
    CHECK(pages[3].text_source == "layer");
    INFO(pages[0].text_check << " | " << pages[1].text_check);
    CHECK(pages[0].text_check == "layer: 100 characters, 100% of the ink in their boxes");
    // The scan has no text layer at all: all its ink lies outside (the absent) words.
    CHECK(pages[1].words.empty());
    CHECK(starts_with(pages[1].text_check, "ocr: "));
    CHECK(contains(pages[1].text_check,
                   "of the page is ink outside the text layer's words (they "
                   "hold 0.0% of the ink)"));
}

TEST_CASE("every page carries the document's outline with each entry's depth") {
    const std::vector<Page> pages = mixed_pages(pdf::TextSource::detect);
    REQUIRE(pages[0].outline);
    REQUIRE(pages[0].outline->size() == 3);
    CHECK((*pages[0].outline)[0].title == "Born Digital");
    CHECK((*pages[0].outline)[0].level == 1);
    CHECK((*pages[0].outline)[1].title == "Scanned Part");
    CHECK((*pages[0].outline)[1].level == 2);
    CHECK((*pages[0].outline)[2].title == "3 Back to Text");
    CHECK((*pages[0].outline)[2].level == 1);
    CHECK(pages[3].outline == pages[0].outline);  // one copy for the document
    rop::CollectingEmitter<Page> report;
    pdf::pages(pdf::open(file("docs/report.pdf")), report, 50);
    REQUIRE(report.children[0].outline);
    CHECK(report.children[0].outline->empty());
}

TEST_CASE("text: layer and text: ocr force every page, the scan included") {
    for (const Page& page : mixed_pages(pdf::TextSource::layer)) {
        CHECK(page.text_source == "layer");
        CHECK(page.text_check == "layer: forced (text: layer)");
    }
    const std::vector<Page> ocr = mixed_pages(pdf::TextSource::ocr);
    for (const Page& page : ocr) {
        CHECK(page.text_source == "ocr");
        CHECK(page.text_check == "ocr: forced (text: ocr)");
    }
    // Forced OCR still carries the layer (for comparisons), and its words and lines.
    CHECK(contains(ocr[0].text, "Born Digital"));
    CHECK_FALSE(ocr[0].lines.empty());
}

TEST_CASE("pages groups the layer's words into lines and paragraphs with font sizes") {
    const std::vector<Page> pages = mixed_pages(pdf::TextSource::detect);
    const Page& page = pages[0];
    REQUIRE(page.lines.size() == 5);
    CHECK(page.lines[0].text == "Mixed Sources Handbook");
    CHECK(page.lines[1].text == "Born Digital");
    CHECK(page.lines[2].text == "This page has a text layer that poppler reads.");
    CHECK(page.lines[3].text == "Its words come with fonts and boxes.");
    CHECK(page.lines[4].text == "1");
    // Paragraphs: header, heading, the two body lines together, the page number.
    CHECK(page.lines[0].paragraph == 0);
    CHECK(page.lines[1].paragraph == 1);
    CHECK(page.lines[2].paragraph == 2);
    CHECK(page.lines[3].paragraph == 2);
    CHECK(page.lines[4].paragraph == 3);
    CHECK(page.lines[0].font_size == 10);
    CHECK(page.lines[1].font_size == 24);
    CHECK(page.lines[2].font_size == 12);
    CHECK(page.lines[1].confidence == 100);
    // Boxes in points: the heading starts at the 72 pt margin.
    CHECK(page.lines[1].bbox.x0 > 71);
    CHECK(page.lines[1].bbox.x0 < 74);
    REQUIRE_FALSE(page.words.empty());
    CHECK(page.words[1].text == "Sources");
    CHECK(contains(page.words[1].font, "DejaVu"));
    CHECK(page.words[1].font_size == 10);
}
