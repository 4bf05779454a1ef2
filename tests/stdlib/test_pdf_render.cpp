// std.pdf's reading and rendering as a Call of its own: pages(render: needed | all) lists the
// pages, std.pdf.Render reads each (its text layer and marks in one pass of poppler's core API)
// and draws the images it needs, and together they give each page the text layer, image and text
// source pages(render: here) gives it through poppler-cpp; the marks' rule candidates on made-up
// boxes; the core renderer against poppler-cpp's; and the time budget (max_page_seconds) on a
// page whose content is a million operators.
#include <poppler-document.h>
#include <poppler-image.h>
#include <poppler-page-renderer.h>
#include <poppler-page.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core.h"
#include "rop/stdlib/pdf.h"
#include "rule_candidates.h"

using namespace rop::stdlib;

namespace {

const std::string kData = ROP_TEST_DATA_DIR;

Document open_doc(const std::string& relative) {
    return pdf::open(File{kData + "/" + relative, relative, {}});
}

std::vector<Page> read_pages(const std::string& relative, pdf::Rendering render,
                             pdf::TextSource text = pdf::TextSource::detect, int dpi = 100,
                             pdf::Color color = pdf::Color::gray) {
    rop::CollectingEmitter<Page> out;
    pdf::pages(open_doc(relative), out, dpi, color, text, 100'000'000, render);
    return out.children;
}

// The pages as std.pdf.Render gives them.
std::vector<Page> rendered(const std::vector<Page>& pages, double max_page_seconds = 10) {
    pdf::Render render(max_page_seconds);
    std::vector<Page> out;
    for (const Page& page : pages) out.push_back(render(page));
    return out;
}

bool same_pixels(const Image& a, const Image& b) {
    return a.width == b.width && a.height == b.height && a.channels == b.channels && a.pixels &&
           b.pixels && *a.pixels == *b.pixels;
}

bool starts_with(const std::string& text, const std::string& prefix) {
    return text.rfind(prefix, 0) == 0;
}

std::string stream(const std::string& content) {
    return "<< /Length " + std::to_string(content.size()) + " >>\nstream\n" + content +
           "\nendstream";
}

// A PDF of `objects` (object 1 the catalog), with a correct xref table.
std::string pdf_of(const std::vector<std::string>& objects) {
    std::string pdf = "%PDF-1.4\n";
    std::vector<std::size_t> offsets;
    for (std::size_t i = 0; i < objects.size(); ++i) {
        offsets.push_back(pdf.size());
        pdf += std::to_string(i + 1) + " 0 obj\n" + objects[i] + "\nendobj\n";
    }
    const std::size_t xref = pdf.size();
    pdf += "xref\n0 " + std::to_string(objects.size() + 1) + "\n0000000000 65535 f \n";
    for (std::size_t offset : offsets) {
        char line[32];
        std::snprintf(line, sizeof line, "%010zu 00000 n \n", offset);
        pdf += line;
    }
    pdf += "trailer\n<< /Size " + std::to_string(objects.size() + 1) +
           " /Root 1 0 R >>\nstartxref\n" + std::to_string(xref) + "\n%%EOF\n";
    return pdf;
}

// A one-page PDF (US Letter) whose content stream is `content` (Helvetica is its font F1).
std::string one_page_pdf(const std::string& content) {
    return pdf_of({"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                   "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
                   "/Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica "
                   ">> >> >> >>",
                   stream(content)});
}

struct TempPdf {
    std::string path;
    // A one-page PDF of `content` (one_page_pdf), or the whole PDF `pdf` when `whole`.
    explicit TempPdf(const std::string& content, bool whole = false) {
        static int count = 0;
        path = (std::filesystem::temp_directory_path() /
                ("rop-pdf-render-" + std::to_string(::getpid()) + "-" + std::to_string(count++) +
                 ".pdf"))
                   .string();
        std::ofstream(path, std::ios::binary) << (whole ? content : one_page_pdf(content));
    }
    ~TempPdf() { std::filesystem::remove(path); }
};

// A million tiny strokes: 14 MB of operators on one page (what a content stream that inflates
// without end costs, in small).
std::string million_strokes() {
    std::string content;
    content.reserve(14'000'000);
    for (int i = 0; i < 1'000'000; ++i) content += "0 0 m 1 1 l S\n";
    return content;
}

// Five lines of 53 characters (not counting spaces) at 10 pt: 265, enough to need no ink check.
std::string text_lines() {
    std::string content = "BT /F1 10 Tf 72 740 Td 12 TL\n";
    for (int i = 0; i < 5; ++i) {
        content += "(Lorem ipsum dolor sit amet consectetur adipiscing elit sed do e) '\n";
    }
    return content + "ET\n";
}

Page needs(const std::string& content) {
    const TempPdf pdf(text_lines() + content);
    rop::CollectingEmitter<Page> out;
    pdf::pages(pdf::open(File{pdf.path, "page.pdf", {}}), out, 150, pdf::Color::gray,
               pdf::TextSource::detect, 100'000'000, pdf::Rendering::needed);
    REQUIRE(out.children.size() == 1);
    return pdf::Render()(out.children[0]);
}

std::string failure_of(const std::function<void()>& run) {
    try {
        run();
    } catch (const rop::RecordFailure& failure) {
        return failure.reason();
    }
    return "(no failure)";
}

}  // namespace

TEST_CASE("the core renderer draws the pixels poppler-cpp's page_renderer draws, page after page") {
    for (const char* relative : {"docs/report.pdf", "text/mixed.pdf", "structure/structure.pdf"}) {
        const std::string path = kData + "/" + relative;
        std::unique_ptr<poppler::document> doc(poppler::document::load_from_file(path));
        REQUIRE(doc);
        std::unique_ptr<pdf::CoreDocument> core = pdf::CoreDocument::open(path);
        REQUIRE(core);
        REQUIRE(core->pages() == doc->pages());
        // Pages in turn on one document: the core renderer keeps its device from page to page.
        for (const int channels : {1, 3}) {
            for (int index = 0; index < doc->pages(); ++index) {
                INFO(relative << " page " << index << " channels " << channels);
                poppler::page_renderer renderer;
                renderer.set_render_hint(poppler::page_renderer::antialiasing, true);
                renderer.set_render_hint(poppler::page_renderer::text_antialiasing, true);
                renderer.set_image_format(channels == 1 ? poppler::image::format_gray8
                                                        : poppler::image::format_rgb24);
                std::unique_ptr<poppler::page> page(doc->create_page(index));
                const poppler::image expected = renderer.render_page(page.get(), 100, 100);
                const pdf::Rendered got = pdf::render_page(*core, index, 100, channels, 60);
                REQUIRE(got.valid);
                REQUIRE(got.image.width == expected.width());
                REQUIRE(got.image.height == expected.height());
                bool same = true;
                for (int y = 0; y < expected.height() && same; ++y) {
                    same = std::memcmp(got.image.pixels->data() + got.image.stride() * y,
                                       expected.const_data() +
                                           static_cast<std::size_t>(expected.bytes_per_row()) * y,
                                       got.image.stride()) == 0;
                }
                CHECK(same);
            }
        }
    }
}

TEST_CASE("a document's fonts are made once, whichever page and pass needs them") {
    // Three pages: F1 is Helvetica (object 6) on the first and Courier (object 7) on the second;
    // the third's font dictionary is an object of its own and calls Helvetica F9. A font is
    // poppler's by its object and its name, so the cache holds four.
    const std::string helvetica = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>";
    const std::string courier = "<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>";
    auto page = [](const std::string& fonts, int contents) {
        return "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents " +
               std::to_string(contents) + " 0 R /Resources << /Font " + fonts + " >> >>";
    };
    const TempPdf file(
        pdf_of({"<< /Type /Catalog /Pages 2 0 R >>",
                "<< /Type /Pages /Kids [3 0 R 4 0 R 5 0 R] /Count 3 >>",
                page("<< /F1 6 0 R /F2 7 0 R >>", 8), page("<< /F1 7 0 R >>", 9),
                page("10 0 R", 11), helvetica, courier,
                stream("BT /F1 12 Tf 72 700 Td (sans) Tj /F2 12 Tf 0 -20 Td (mono) Tj ET"),
                stream("BT /F1 12 Tf 72 700 Td (mono) Tj ET"), "<< /F9 6 0 R >>",
                stream("BT /F9 12 Tf 72 700 Td (sans) Tj ET")}),
        true);
    std::unique_ptr<pdf::CoreDocument> core = pdf::CoreDocument::open(file.path);
    REQUIRE(core);
    REQUIRE(core->pages() == 3);
    const std::vector<std::vector<std::pair<std::string, std::string>>> expected = {
        {{"sans", "Helvetica"}, {"mono", "Courier"}},
        {{"mono", "Courier"}},
        {{"sans", "Helvetica"}}};
    auto check_page = [&](int index) {
        INFO("page " << index + 1);
        const pdf::PageRead read = pdf::read_page(*core, index, 10);
        REQUIRE(read.words.size() == expected[index].size());
        for (std::size_t i = 0; i < read.words.size(); ++i) {
            CHECK(read.words[i].text == expected[index][i].first);
            CHECK(read.words[i].font == expected[index][i].second);
        }
    };
    for (int index = 0; index < 3; ++index) check_page(index);
    CHECK(core->fonts_made() == 4);
    // Again, backwards, and rendered: every font is the cache's.
    for (int index = 2; index >= 0; --index) check_page(index);
    for (int index = 0; index < 3; ++index) CHECK(pdf::render_page(*core, index, 72, 1, 10).valid);
    CHECK(core->fonts_made() == 4);

    // A page whose fonts stand inline in its resources is drawn as poppler draws it.
    const TempPdf inline_font("BT /F1 12 Tf 72 700 Td (inline) Tj ET");
    std::unique_ptr<pdf::CoreDocument> plain = pdf::CoreDocument::open(inline_font.path);
    REQUIRE(plain);
    const pdf::PageRead read = pdf::read_page(*plain, 0, 10);
    REQUIRE(read.words.size() == 1);
    CHECK(read.words[0].text == "inline");
    CHECK(read.words[0].font == "Helvetica");
    CHECK(plain->fonts_made() == 0);

    // A document whose pages bring more fonts than the cache keeps: two pages of 40 fonts each
    // (objects 5 to 84, F1 to F40 on both pages). The cache starts again at its bound, never
    // holds more, and every page still reads with its own fonts.
    {
        std::vector<std::string> objects = {"<< /Type /Catalog /Pages 2 0 R >>",
                                            "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>"};
        std::string content = "BT 72 700 Td";
        for (int font = 1; font <= 40; ++font) {
            content += " /F" + std::to_string(font) + " 12 Tf (w" + std::to_string(font) + ") Tj";
            content += " 0 -14 Td";
        }
        content += " ET";
        for (int sheet = 0; sheet < 2; ++sheet) {
            std::string fonts;
            for (int font = 1; font <= 40; ++font) {
                fonts += " /F" + std::to_string(font) + " " +
                         std::to_string(4 + 40 * sheet + font) + " 0 R";
            }
            objects.push_back(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 85 0 R "
                "/Resources << /Font <<" +
                fonts + " >> >> >>");
        }
        for (int font = 0; font < 80; ++font) objects.push_back(helvetica);
        objects.push_back(stream(content));
        const TempPdf many(pdf_of(objects), true);
        std::unique_ptr<pdf::CoreDocument> doc = pdf::CoreDocument::open(many.path);
        REQUIRE(doc);
        for (const int index : {0, 1, 1, 0}) {
            INFO("page " << index + 1);
            const pdf::PageRead got = pdf::read_page(*doc, index, 10);
            REQUIRE(got.words.size() == 40u);
            CHECK(got.words.front().text == "w1");
            CHECK(got.words.back().text == "w40");
            CHECK(got.words.back().font == "Helvetica");
            CHECK(doc->fonts_kept() <= pdf::kMaxFontsKept);
        }
        CHECK(doc->fonts_made() > 80);  // made again after the cache started over
    }

    // A real document: its pages read a second time make no font.
    std::unique_ptr<pdf::CoreDocument> manual =
        pdf::CoreDocument::open(kData + "/structure/structure.pdf");
    REQUIRE(manual);
    for (int index = 0; index < manual->pages(); ++index) pdf::read_page(*manual, index, 10);
    const std::int64_t made = manual->fonts_made();
    CHECK(made > 0);
    for (int index = 0; index < manual->pages(); ++index) pdf::read_page(*manual, index, 10);
    CHECK(manual->fonts_made() == made);
}

TEST_CASE("render: needed lists the pages, and Render reads them and draws those that need it") {
    // pages only lists them: size, dpi, outline, what to read.
    const std::vector<Page> listed = read_pages("docs/report.pdf", pdf::Rendering::needed);
    REQUIRE(listed.size() == 3);
    for (const Page& page : listed) {
        CHECK(page.image.empty());
        CHECK(page.words.empty());
        CHECK(page.text.empty());
        CHECK(page.text_source.empty());
        CHECK(page.pending_text == "detect");
        CHECK(page.text_check == "not read yet (std.pdf.Render reads it)");
        CHECK(page.image_needed.empty());
        CHECK(page.image_channels == 1);
        CHECK(page.dpi == 100);
        CHECK(page.width == 612);
        REQUIRE(page.outline);
    }
    // report.pdf: page 2 holds a ruled table; letter.pdf: plain paragraphs.
    const std::vector<Page> report = rendered(listed);
    for (const Page& page : report) {
        INFO("page " << page.index << ": " << page.image_needed);
        CHECK(page.pending_text.empty());
        CHECK(page.text_source == "layer");
        CHECK_FALSE(page.words.empty());
        CHECK(page.image.empty() == page.image_needed.empty());
    }
    CHECK(report[0].text_check == "layer: 123 characters, nothing drawn besides them");
    CHECK(report[0].image_needed.empty());
    CHECK(report[2].image_needed.empty());
    // Page 2: 104 characters and its table's 8 rules: the ink decides, from the image.
    CHECK(report[1].image_needed == "ink check (104 characters, 8 marks drawn)");
    CHECK(report[1].text_check == "layer: 104 characters, 51% of the ink in their boxes");
    for (const Page& page : rendered(read_pages("docs/letter.pdf", pdf::Rendering::needed))) {
        CHECK(page.image_needed.empty());
        CHECK(page.image.empty());
    }
    // mixed.pdf's page 2 is a scan: no text, an image; the ink sends it to OCR.
    const std::vector<Page> mixed = rendered(read_pages("text/mixed.pdf", pdf::Rendering::needed));
    REQUIRE(mixed.size() == 4);
    CHECK(mixed[1].text_source == "ocr");
    CHECK(mixed[1].image_needed == "ink check (0 characters, 1 marks drawn)");
    CHECK_FALSE(mixed[1].image.empty());
    CHECK(mixed[0].text_source == "layer");
    CHECK(mixed[0].text_check == "layer: 100 characters, nothing drawn besides them");
    CHECK(mixed[0].image_needed.empty());
    // text: ocr needs every image; render: all draws every page.
    for (const Page& page :
         rendered(read_pages("docs/letter.pdf", pdf::Rendering::needed, pdf::TextSource::ocr))) {
        CHECK(page.text_source == "ocr");
        CHECK(page.image_needed == "OCR (text: ocr)");
        CHECK_FALSE(page.image.empty());
    }
    for (const Page& page : rendered(read_pages("docs/letter.pdf", pdf::Rendering::all))) {
        CHECK(page.image_needed == "render: all");
        CHECK_FALSE(page.image.empty());
    }
}

TEST_CASE("a page of enough text needs its image only for what could be a ruled table") {
    const Page text = needs("");
    CHECK(text.text_source == "layer");
    CHECK(text.text_check == "layer: 265 characters (200 or more: the ink is not checked)");
    CHECK(text.image_needed.empty());
    // A 2x2 grid of 1 pt rules, 200 x 60 pt (PDF space: y up).
    const std::string grid =
        "1 w 72 500 m 272 500 l S 72 530 m 272 530 l S 72 560 m 272 560 l S "
        "72 500 m 72 560 l S 172 500 m 172 560 l S 272 500 m 272 560 l S\n";
    CHECK(needs(grid).image_needed ==
          "may hold a ruled table: a 201x61 pt group of 6 marks at (72, 232) pt");
    // The same rules in light gray draw no ink the rule finder sees; a header rule alone is no
    // table; a dark box frames one cell, no table (a syntax box), and a rule across it makes two.
    CHECK(needs("0.8 G " + grid).image_needed.empty());
    CHECK(needs("72 760 m 540 760 l S\n").image_needed.empty());
    CHECK(needs("72 400 200 40 re S\n").image_needed.empty());
    CHECK(needs("72 400 200 40 re S 172 400 m 172 440 l S\n").image_needed ==
          "may hold a ruled table: a 201x41 pt group of 5 marks at (72, 352) pt");
    CHECK(needs("0.9 g 72 400 200 40 re f\n").image_needed.empty());
    // Rules drawn with underscores are words, and count as marks.
    const Page underscores = needs(
        "BT /F1 10 Tf 72 300 Td (____________________) Tj 0 -10 Td "
        "(|) Tj 0 -10 Td (|) Tj ET\n");
    CHECK(starts_with(underscores.image_needed, "may hold a ruled table: "));
}

TEST_CASE("Render gives a page the text layer, image and text source render: here gives it") {
    for (const char* relative : {"docs/report.pdf", "text/mixed.pdf", "structure/structure.pdf"}) {
        for (const pdf::Color color : {pdf::Color::gray, pdf::Color::rgb}) {
            const std::vector<Page> here =
                read_pages(relative, pdf::Rendering::here, pdf::TextSource::detect, 100, color);
            const std::vector<Page> later = rendered(
                read_pages(relative, pdf::Rendering::all, pdf::TextSource::detect, 100, color));
            REQUIRE(here.size() == later.size());
            for (std::size_t i = 0; i < here.size(); ++i) {
                INFO(relative << " page " << i << ": " << later[i].image_needed);
                CHECK(same_pixels(later[i].image, here[i].image));
                CHECK(later[i].text_source == here[i].text_source);
                CHECK(later[i].text == here[i].text);
                REQUIRE(later[i].words.size() == here[i].words.size());
                for (std::size_t w = 0; w < here[i].words.size(); ++w) {
                    const Word& a = later[i].words[w];
                    const Word& b = here[i].words[w];
                    CHECK(a.text == b.text);
                    CHECK((a.bbox.x0 == b.bbox.x0 && a.bbox.y0 == b.bbox.y0 &&
                           a.bbox.x1 == b.bbox.x1 && a.bbox.y1 == b.bbox.y1));
                    CHECK(a.font == b.font);
                    CHECK(a.font_size == b.font_size);
                }
                REQUIRE(later[i].lines.size() == here[i].lines.size());
                for (std::size_t l = 0; l < here[i].lines.size(); ++l) {
                    CHECK(later[i].lines[l].text == here[i].lines[l].text);
                    CHECK(later[i].lines[l].paragraph == here[i].lines[l].paragraph);
                }
                if (starts_with(later[i].image_needed, "ink check")) {
                    CHECK(later[i].text_check == here[i].text_check);
                }
            }
        }
    }
    // A page that was read passes through as it is.
    pdf::Render render;
    const Page letter = render(read_pages("docs/letter.pdf", pdf::Rendering::needed)[0]);
    const Page again = render(letter);
    CHECK(again.image.empty());
    CHECK(again.text == letter.text);
    CHECK(again.text_check == letter.text_check);
}

TEST_CASE("a page over max_page_seconds fails its document, whichever pass ran over") {
    const TempPdf bomb(million_strokes());
    const Document doc = pdf::open(File{bomb.path, "bomb.pdf", {}});
    rop::CollectingEmitter<Page> out;
    pdf::pages(doc, out, 72, pdf::Color::gray, pdf::TextSource::detect, 100'000'000,
               pdf::Rendering::needed);
    REQUIRE(out.children.size() == 1);  // listed: nothing read yet
    pdf::Render reader(0.05);
    CHECK(failure_of([&] { reader(out.children[0]); }) ==
          "bomb.pdf: page 1: over its time budget: reading the page took more than 0.05 CPU-s "
          "(max_page_seconds)");
    out.children.clear();
    CHECK(failure_of([&] {
              pdf::pages(doc, out, 72, pdf::Color::gray, pdf::TextSource::detect, 100'000'000,
                         pdf::Rendering::here, 0.05);
          }) ==
          "bomb.pdf: page 1: over its time budget: rendering the page took more than 0.05 "
          "CPU-s (max_page_seconds)");
    Page page;
    page.doc_path = bomb.path;
    page.doc_name = "bomb.pdf";
    page.width = 612;
    page.height = 792;
    page.dpi = 72;
    page.image_needed = "render: all";
    page.image_channels = 1;
    pdf::Render render(0.05);
    CHECK(failure_of([&] { render(page); }) ==
          "bomb.pdf: page 1: over its time budget: rendering the page took more than 0.05 "
          "CPU-s (max_page_seconds)");
    CHECK(out.children.empty());
    CHECK(failure_of([&] {
              pdf::pages(doc, out, 72, pdf::Color::gray, pdf::TextSource::detect, 100'000'000,
                         pdf::Rendering::needed, 0);
          }) == "bomb.pdf: max_page_seconds 0 is not above 0");
}

TEST_CASE("rule candidates: marks that could hold a ruled table, at the renderer's dpi") {
    // At 150 dpi a horizontal rule is 75 px (36 pt), a vertical one 30 px (14.4 pt).
    const pdf::RuleThresholds t = pdf::rule_thresholds(150);
    CHECK(t.row_min == 36);
    CHECK(std::abs(t.column_min - 14.4) < 1e-9);
    CHECK(t.tolerance == 6 * 72.0 / 150);
    // A 2x2 grid of 1 pt rules, 200 x 60 pt: one group of 6 marks.
    std::vector<BBox> grid;
    for (double y : {100.0, 130.0, 160.0}) grid.push_back(BBox{72, y - 0.5, 272, y + 0.5});
    for (double x : {72.0, 172.0, 272.0}) grid.push_back(BBox{x - 0.5, 100, x + 0.5, 160});
    const std::vector<pdf::RuleCandidate> found = pdf::rule_candidates(grid, 150);
    REQUIRE(found.size() == 1);
    CHECK(found[0].marks == 6);
    CHECK(pdf::describe(found[0]) == "a 201x61 pt group of 6 marks at (72, 100) pt");
    // A header rule alone, and a short box (a link's border), hold none.
    CHECK(pdf::rule_candidates({BBox{72, 60, 540, 61}}, 150).empty());
    CHECK(pdf::rule_candidates({BBox{72, 60, 140, 72}}, 150).empty());
    // Marks 10 pt apart do not join; 2 pt apart they do (the rule finder's tolerance is 2.9 pt).
    // The second mark is a 4 pt bar, thicker than the tolerance: a rule and a thin stroke
    // crossing it are one row and one column, no grid at all (below).
    CHECK(pdf::rule_candidates({BBox{72, 60, 540, 61}, BBox{72, 71, 76, 90}}, 150).empty());
    CHECK(pdf::rule_candidates({BBox{72, 60, 540, 61}, BBox{72, 63, 76, 80}}, 150).size() == 1);
    CHECK(pdf::rule_candidates({BBox{72, 60, 540, 61}, BBox{72, 63, 73, 80}}, 150).empty());
    // At 36 dpi the minimum run is 20 px: 40 pt.
    CHECK(pdf::rule_thresholds(36).row_min == 40);
    CHECK(pdf::rule_candidates({BBox{0, 0, 35.5, 20}}, 36).empty());
    CHECK(pdf::rule_candidates({BBox{0, 0, 35.5, 20}}, 150).size() == 1);
    // Thin marks alone: a frame around one cell (two rows, two columns of rules) cannot hold
    // the rule finder's two cells; a third rule either way, or a mark thicker than its
    // tolerance anywhere in the group (a glyph rule, a curve's box), can.
    const std::vector<BBox> frame = {BBox{72, 99.5, 472, 100.5}, BBox{72, 159.5, 472, 160.5},
                                     BBox{71.5, 100, 72.5, 160}, BBox{471.5, 100, 472.5, 160}};
    CHECK(pdf::rule_candidates(frame, 150).empty());
    std::vector<BBox> two_rows = frame;
    two_rows.push_back(BBox{72, 129.5, 472, 130.5});
    CHECK(pdf::rule_candidates(two_rows, 150).size() == 1);
    std::vector<BBox> two_columns = frame;
    two_columns.push_back(BBox{271.5, 100, 272.5, 160});
    CHECK(pdf::rule_candidates(two_columns, 150).size() == 1);
    std::vector<BBox> with_glyphs = frame;
    with_glyphs.push_back(BBox{73, 120, 471, 130});  // "________" in a 10 pt font
    CHECK(pdf::rule_candidates(with_glyphs, 150).size() == 1);
    // Two rules within a pixel are one row; three thin-both-ways dots count in both directions.
    std::vector<BBox> doubled = frame;
    doubled.push_back(BBox{72, 99.8, 472, 100.8});
    CHECK(pdf::rule_candidates(doubled, 150).empty());
    std::vector<BBox> dots_inside = frame;
    for (double x : {150.0, 250.0, 350.0}) dots_inside.push_back(BBox{x, 101, x + 1, 102});
    CHECK(pdf::rule_candidates(dots_inside, 150).size() == 1);
    // Past kMaxGroupedMarks a page is a drawing: one candidate over all of it.
    std::vector<BBox> dots(pdf::kMaxGroupedMarks + 1, BBox{10, 10, 11, 11});
    dots.back() = BBox{500, 700, 501, 701};
    REQUIRE(pdf::rule_candidates(dots, 150).size() == 1);
    CHECK(pdf::rule_candidates(dots, 150)[0].box.x1 == 501);
}

TEST_CASE("rule words: underscores, dashes, bars and box drawing, nothing else") {
    CHECK(pdf::rule_word("________"));
    CHECK(pdf::rule_word("+---+---+"));
    CHECK(pdf::rule_word("|"));
    CHECK(pdf::rule_word("====="));
    CHECK(pdf::rule_word("\u2014\u2014\u2014"));        // em dashes
    CHECK(pdf::rule_word("\u250c\u2500\u252c\u2510"));  // box drawing
    CHECK_FALSE(pdf::rule_word(""));
    CHECK_FALSE(pdf::rule_word("a_b"));
    CHECK_FALSE(pdf::rule_word("--verbose"));
    CHECK_FALSE(pdf::rule_word("\u2022"));  // a bullet
    CHECK_FALSE(pdf::rule_word("\xe2\x80"));
}
