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
    pdf::pages(doc, out, 100, pdf::Color::gray, true, true);
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

TEST_CASE("pages renders RGB and can skip the text layer") {
    const Document doc = pdf::open(file("docs/letter.pdf"));
    rop::CollectingEmitter<Page> out;
    pdf::pages(doc, out, 72, pdf::Color::rgb, false);
    REQUIRE(out.children.size() == 2);
    CHECK(out.children[1].image.channels == 3);
    CHECK(out.children[1].image.pixels->size() == 612u * 792u * 3u);
    CHECK(out.children[1].text.empty());
    CHECK_THROWS_AS(pdf::pages(doc, out, 5), rop::RecordFailure);
}

TEST_CASE("pages emits page 0 before it renders page 1") {
    const Document doc = pdf::open(file("docs/report.pdf"));
    StopAfterFirst out;
    CHECK_THROWS_AS(pdf::pages(doc, out, 50), std::runtime_error);
    CHECK(out.emitted == 1);
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
