// rop_make_test_pdfs OUTDIR: writes the document operators' test inputs.
//   OUTDIR/docs/report.pdf   3 pages: headings, paragraphs, a ruled 3x3 table on page 2
//   OUTDIR/docs/letter.pdf   2 pages of plain paragraphs
//   OUTDIR/manifest.jsonl    both documents with metadata (lang, source)
//   OUTDIR/corrupt/          truncated.pdf, garbage.pdf, empty.pdf, encrypted.pdf, no_pages.pdf
//   OUTDIR/edge/             files poppler opens though they bend the format (letter.pdf with
//                            4 KiB after %%EOF, with 2 KiB before %PDF-, without %%EOF), a
//                            200x200-inch page, and a 3-page file whose page 3 is broken
//   OUTDIR/text/mixed.pdf    4 pages with a running header and page numbers: pages 1, 3 and 4
//                            born-digital, page 2 an image of text (a scan: no text layer);
//                            an outline of two levels
//   OUTDIR/structure/structure.pdf  a page of bulleted lists (U+2022, a Symbol and a Wingdings
//                            bullet), a numbered list, an indented Courier code block and a
//                            ruled table
//   OUTDIR/structure/tables.pdf  a framed table with a rule under its head row only, and a table
//                            without rules
// The text is fixed (tests compare it); drawing uses cairo's PDF surface and DejaVu Sans.
#include <cairo-pdf.h>
#include <cairo.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr double kWidth = 612;  // US Letter, points
constexpr double kHeight = 792;
constexpr double kMargin = 72;
constexpr const char* kDate = "2026-01-01T00:00:00Z";  // fixed: same bytes every build

void heading(cairo_t* cr, double& y, const char* text, double size) {
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
    cairo_set_font_size(cr, size);
    y += size * 1.2;
    cairo_move_to(cr, kMargin, y);
    cairo_show_text(cr, text);
    y += size * 0.8;
}

void paragraph(cairo_t* cr, double& y, const std::vector<const char*>& lines) {
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, 12);
    for (const char* line : lines) {
        y += 16;
        cairo_move_to(cr, kMargin, y);
        cairo_show_text(cr, line);
    }
    y += 16;
}

// A ruled table: every cell boxed by 1pt lines, text at 12pt.
void table(cairo_t* cr, double& y, const std::vector<std::vector<const char*>>& rows) {
    const double cell_w = 130;
    const double cell_h = 28;
    const double top = y + 10;
    const std::size_t cols = rows.front().size();
    cairo_set_line_width(cr, 1.2);
    for (std::size_t r = 0; r <= rows.size(); ++r) {
        cairo_move_to(cr, kMargin, top + r * cell_h);
        cairo_line_to(cr, kMargin + cols * cell_w, top + r * cell_h);
    }
    for (std::size_t c = 0; c <= cols; ++c) {
        cairo_move_to(cr, kMargin + c * cell_w, top);
        cairo_line_to(cr, kMargin + c * cell_w, top + rows.size() * cell_h);
    }
    cairo_stroke(cr);
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, 12);
    for (std::size_t r = 0; r < rows.size(); ++r) {
        for (std::size_t c = 0; c < cols; ++c) {
            cairo_move_to(cr, kMargin + c * cell_w + 10, top + r * cell_h + 19);
            cairo_show_text(cr, rows[r][c]);
        }
    }
    y = top + rows.size() * cell_h + 10;
}

bool write_report(const std::string& path) {
    cairo_surface_t* surface = cairo_pdf_surface_create(path.c_str(), kWidth, kHeight);
    cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, "Quarterly Report");
    cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATE_DATE, kDate);
    cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_AUTHOR, "Rop Tests");
    cairo_t* cr = cairo_create(surface);
    cairo_set_source_rgb(cr, 0, 0, 0);

    double y = kMargin;
    heading(cr, y, "Quarterly Report", 28);
    paragraph(cr, y,
              {"The quick brown fox jumps over the lazy dog.",
               "Revenue grew in every region this quarter."});
    paragraph(cr, y, {"Second paragraph about costs and margins."});
    cairo_show_page(cr);

    y = kMargin;
    heading(cr, y, "Results Table", 20);
    paragraph(cr, y, {"Units sold per region are listed below."});
    table(cr, y, {{"Region", "Units", "Price"}, {"North", "120", "4.50"}, {"South", "80", "3.25"}});
    paragraph(cr, y, {"Totals are shown above."});
    cairo_show_page(cr);

    y = kMargin;
    heading(cr, y, "Conclusion", 20);
    paragraph(cr, y, {"Growth will continue next year."});
    cairo_show_page(cr);

    cairo_destroy(cr);
    cairo_surface_finish(surface);
    const bool ok = cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS;
    cairo_surface_destroy(surface);
    return ok;
}

bool write_letter(const std::string& path) {
    cairo_surface_t* surface = cairo_pdf_surface_create(path.c_str(), kWidth, kHeight);
    cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, "Short Letter");
    cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATE_DATE, kDate);
    cairo_t* cr = cairo_create(surface);
    double y = kMargin;
    paragraph(cr, y, {"Dear reader,", "This letter has two pages."});
    cairo_show_page(cr);
    y = kMargin;
    paragraph(cr, y, {"Kind regards from the second page."});
    cairo_show_page(cr);
    cairo_destroy(cr);
    cairo_surface_finish(surface);
    const bool ok = cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS;
    cairo_surface_destroy(surface);
    return ok;
}

// Page furniture of mixed.pdf: a running header near the top and the page number at the bottom.
void furniture(cairo_t* cr, int number) {
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, 10);
    cairo_move_to(cr, kMargin, 36);
    cairo_show_text(cr, "Mixed Sources Handbook");
    cairo_move_to(cr, kWidth / 2 - 4, kHeight - 30);
    cairo_show_text(cr, std::to_string(number).c_str());
}

// mixed.pdf: born-digital pages around one that is an image of text (what a scanner makes),
// the running header and page number drawn into that image too.
bool write_mixed(const std::string& path) {
    cairo_surface_t* surface = cairo_pdf_surface_create(path.c_str(), kWidth, kHeight);
    cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, "Mixed Sources");
    cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATE_DATE, kDate);
    // Bookmarks: the outline makes "Scanned Part" a section of "Born Digital", though all three
    // headings are drawn at 24 pt.
    const int born = cairo_pdf_surface_add_outline(surface, CAIRO_PDF_OUTLINE_ROOT, "Born Digital",
                                                   "page=1", CAIRO_PDF_OUTLINE_FLAG_OPEN);
    cairo_pdf_surface_add_outline(surface, born, "Scanned Part", "page=2",
                                  cairo_pdf_outline_flags_t{});
    cairo_pdf_surface_add_outline(surface, CAIRO_PDF_OUTLINE_ROOT, "3 Back to Text", "page=3",
                                  cairo_pdf_outline_flags_t{});
    cairo_t* cr = cairo_create(surface);
    cairo_set_source_rgb(cr, 0, 0, 0);
    double y = kMargin;
    furniture(cr, 1);
    heading(cr, y, "Born Digital", 24);
    paragraph(
        cr, y,
        {"This page has a text layer that poppler reads.", "Its words come with fonts and boxes."});
    cairo_show_page(cr);

    // Page 2 drawn into a 200 dpi grayscale image, painted over the whole page.
    constexpr double kScan = 200.0 / 72.0;
    cairo_surface_t* scan = cairo_image_surface_create(
        CAIRO_FORMAT_RGB24, static_cast<int>(kWidth * kScan), static_cast<int>(kHeight * kScan));
    cairo_t* paper = cairo_create(scan);
    cairo_set_source_rgb(paper, 1, 1, 1);
    cairo_paint(paper);
    cairo_scale(paper, kScan, kScan);
    cairo_set_source_rgb(paper, 0, 0, 0);
    y = kMargin;
    furniture(paper, 2);
    heading(paper, y, "Scanned Part", 24);
    paragraph(paper, y,
              {"This page is only a picture of its text.", "Nothing here can be selected."});
    cairo_destroy(paper);
    cairo_surface_flush(scan);
    cairo_save(cr);
    cairo_scale(cr, 1 / kScan, 1 / kScan);
    cairo_set_source_surface(cr, scan, 0, 0);
    cairo_paint(cr);
    cairo_restore(cr);
    cairo_surface_destroy(scan);
    cairo_show_page(cr);

    y = kMargin;
    cairo_set_source_rgb(cr, 0, 0, 0);
    furniture(cr, 3);
    heading(cr, y, "Back to Text", 24);
    paragraph(cr, y, {"The third page is born digital again."});
    cairo_show_page(cr);

    y = kMargin;
    furniture(cr, 4);
    paragraph(cr, y, {"The last page closes the handbook."});
    cairo_show_page(cr);
    cairo_destroy(cr);
    cairo_surface_finish(surface);
    const bool ok = cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS;
    cairo_surface_destroy(surface);
    return ok;
}

// A hand-built PDF from numbered objects, with a correct xref table.
std::string build_pdf(const std::vector<std::string>& objects, const std::string& trailer_extra) {
    std::string out = "%PDF-1.4\n%\xE2\xE3\xCF\xD3\n";
    std::vector<std::size_t> offsets;
    for (std::size_t i = 0; i < objects.size(); ++i) {
        offsets.push_back(out.size());
        out += std::to_string(i + 1) + " 0 obj\n" + objects[i] + "\nendobj\n";
    }
    const std::size_t xref = out.size();
    out += "xref\n0 " + std::to_string(objects.size() + 1) + "\n0000000000 65535 f \n";
    for (std::size_t offset : offsets) {
        char line[32];
        std::snprintf(line, sizeof line, "%010zu 00000 n \n", offset);
        out += line;
    }
    out += "trailer\n<< /Size " + std::to_string(objects.size() + 1) + " /Root 1 0 R " +
           trailer_extra + ">>\nstartxref\n" + std::to_string(xref) + "\n%%EOF\n";
    return out;
}

bool write_bytes(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return static_cast<bool>(out);
}

std::string read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Bytes that hold no PDF keyword: an LCG over the ASCII range from @ to DEL (no digit, no %, no <).
std::string junk(std::size_t size) {
    std::string out;
    for (unsigned i = 0, x = 777; i < size; ++i) {
        x = x * 1103515245u + 12345u;
        out += static_cast<char>(((x >> 16) & 0x3F) + 0x40);
    }
    return out;
}

// One run of text in a hand-built page: font resource, size, left x and baseline y from the top
// of a US Letter page (points), and the PDF string's contents.
struct Run {
    const char* font;
    double size;
    double x;
    double y;
    const char* text;
};

// A PDF of one US Letter page: its content stream, its /Font resources and their objects (5 on).
constexpr const char* kHelvetica =
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";
std::string one_page(const std::string& content, const std::string& fonts,
                     const std::vector<std::string>& font_objects) {
    std::vector<std::string> objects = {
        "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << "
        "/Font << " +
            fonts + " >> >> >>",
        "<< /Length " + std::to_string(content.size()) + " >>\nstream\n" + content + "endstream"};
    objects.insert(objects.end(), font_objects.begin(), font_objects.end());
    return build_pdf(objects, "");
}

// A content stream's text: each run drawn at its place (y measured from the page's top).
std::string text_operators(const std::vector<Run>& runs) {
    std::string content;
    for (const Run& run : runs) {
        char line[256];
        std::snprintf(line, sizeof line, "BT /%s %g Tf %g %g Td (%s) Tj ET\n", run.font, run.size,
                      run.x, kHeight - run.y, run.text);
        content += line;
    }
    return content;
}

// structure/structure.pdf: one page of lists, code and a ruled table, hand-built so that it uses
// the standard fonts poppler names as they are (Helvetica, Courier, Symbol) and a non-embedded
// Wingdings whose bullet reaches the text layer as the letter "l".
bool write_structure(const std::string& path) {
    const double code = 72 + 4 * 9.6;  // Courier 16 pt: 9.6 pt per character, 4 of indent
    const std::vector<Run> runs = {
        {"F1", 18, 72, 90, "Shopping Notes"},
        {"F1", 12, 72, 120, "Bring these items:"},
        {"F1", 12, 72, 138, "\\225"},  // WinAnsi's bullet, U+2022
        {"F1", 12, 90, 138, "Apples"},
        {"F3", 12, 72, 154, "\\267"},  // Symbol's bullet
        {"F1", 12, 90, 154, "Pears"},
        {"F4", 12, 72, 170, "l"},  // Wingdings' bullet
        {"F1", 12, 90, 170, "Plums from the market, the ripe ones that"},
        {"F1", 12, 90, 186, "are soft"},
        {"F1", 12, 72, 216, "Steps:"},
        {"F1", 12, 72, 234, "1."},
        {"F1", 12, 90, 234, "Wash the fruit."},
        {"F1", 12, 72, 250, "2."},
        {"F1", 12, 90, 250, "Cut it into halves."},
        {"F2", 16, 72, 290, "int main() {"},
        {"F2", 16, code, 308, "int x = 1;"},
        {"F2", 16, code, 344, "return x;"},
        {"F2", 16, 72, 362, "}"},
        {"F1", 12, 82, 419, "Fruit"},
        {"F1", 12, 212, 419, "Count"},
        {"F1", 12, 82, 447, "Apples"},
        {"F1", 12, 212, 447, "3"},
        {"F1", 12, 82, 475, "Pears"},
        {"F1", 12, 212, 475, "5"},
        {"F1", 12, 72, 520, "That is all."},
    };
    std::string content = text_operators(runs);
    // The table's rules: 2 columns of 130 pt, 3 rows of 28 pt, from (72, 400).
    content += "1.2 w\n";
    for (int r = 0; r <= 3; ++r) {
        content += "72 " + std::to_string(392 - r * 28) + " m 332 " + std::to_string(392 - r * 28) +
                   " l S\n";
    }
    for (int c = 0; c <= 2; ++c) {
        content +=
            std::to_string(72 + c * 130) + " 392 m " + std::to_string(72 + c * 130) + " 308 l S\n";
    }
    return write_bytes(
        path, one_page(content, "/F1 5 0 R /F2 6 0 R /F3 7 0 R /F4 8 0 R",
                       {kHelvetica, "<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>",
                        "<< /Type /Font /Subtype /Type1 /BaseFont /Symbol >>",
                        "<< /Type /Font /Subtype /TrueType /BaseFont /Wingdings /FirstChar 108 "
                        "/LastChar 108 /Widths [750] /FontDescriptor 9 0 R >>",
                        "<< /Type /FontDescriptor /FontName /Wingdings /Flags 4 "
                        "/FontBBox [0 -200 1000 900] /ItalicAngle 0 /Ascent 900 /Descent -200 "
                        "/CapHeight 700 /StemV 80 >>"}));
}

// structure/tables.pdf: one page of two tables that no rule divides into columns, in Helvetica
// 11 pt: a "box" table (a frame and a rule under its head row, as tbl's `box` draws it) of 4
// columns and 5 rows, and below it a table set without any rule, 3 columns and 4 rows; a
// paragraph above, between and below.
bool write_tables(const std::string& path) {
    std::vector<Run> runs = {
        {"F1", 18, 72, 90, "Storage Report"},
        {"F1", 11, 72, 120, "The pools at the end of the quarter were as follows."},
    };
    const double columns[] = {82, 200, 300, 400};
    const char* box[5][4] = {{"Pool", "Size (TB)", "Used (TB)", "Free (%)"},
                             {"fast", "120", "84", "30"},
                             {"bulk", "640", "402", "37"},
                             {"archive", "900", "811", "10"},
                             {"scratch", "60", "12", "80"}};
    for (int r = 0; r < 5; ++r) {
        for (int c = 0; c < 4; ++c) {
            runs.push_back({"F1", 11, columns[c], 164.0 + 18 * r + (r > 0 ? 6 : 0), box[r][c]});
        }
    }
    runs.push_back({"F1", 11, 72, 290, "Growth by team, without rules:"});
    const char* plain[4][3] = {{"Team", "Second quarter", "Third quarter"},
                               {"search", "96 TB", "118 TB"},
                               {"billing", "40 TB", "44 TB"},
                               {"media", "310 TB", "355 TB"}};
    for (int r = 0; r < 4; ++r) {
        for (int c = 0; c < 3; ++c) {
            runs.push_back({"F1", 11, columns[c], 320.0 + 16 * r, plain[r][c]});
        }
    }
    runs.push_back({"F1", 11, 72, 410, "The archive pool is nearly full."});
    std::string content = text_operators(runs);
    // The frame from (72, 148) to (480, 260), top-down, and the rule under the head row at 170.
    const auto y = [](double top) { return std::to_string(kHeight - top); };
    content += "1 w\n72 " + y(148) + " m 480 " + y(148) + " l 480 " + y(260) + " l 72 " + y(260) +
               " l h S\n72 " + y(170) + " m 480 " + y(170) + " l S\n";
    return write_bytes(path, one_page(content, "/F1 5 0 R", {kHelvetica}));
}

// The edge/ folder: what poppler accepts (and so must rop), and the per-page failures.
bool write_edge_cases(const std::filesystem::path& dir, const std::string& letter) {
    const std::size_t eof = letter.rfind("%%EOF");
    if (letter.empty() || eof == std::string::npos) return false;
    bool ok = write_bytes((dir / "trailing_bytes.pdf").string(), letter + junk(4096));
    ok = ok && write_bytes((dir / "late_header.pdf").string(), junk(2048) + letter);
    ok = ok && write_bytes((dir / "no_eof.pdf").string(), letter.substr(0, eof));
    const std::string square = "0 0 0 rg 72 72 144 144 re f";
    const std::string contents =
        "<< /Length " + std::to_string(square.size()) + " >>\nstream\n" + square + "\nendstream";
    // Page 1: 14400 x 14400 pt (200 x 200 inches, the largest page PDF allows without
    // UserUnit), 900 megapixels at 150 dpi; page 2: US Letter.
    ok = ok && write_bytes((dir / "huge_page.pdf").string(),
                           build_pdf({"<< /Type /Catalog /Pages 2 0 R >>",
                                      "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
                                      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 14400 14400] "
                                      "/Contents 5 0 R >>",
                                      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
                                      "/Contents 5 0 R >>",
                                      contents},
                                     ""));
    // Three pages, the third an integer instead of a page dictionary: poppler opens the file
    // and renders pages 1 and 2, and has no page 3.
    ok = ok && write_bytes((dir / "broken_page.pdf").string(),
                           build_pdf({"<< /Type /Catalog /Pages 2 0 R >>",
                                      "<< /Type /Pages /Kids [3 0 R 4 0 R 6 0 R] /Count 3 >>",
                                      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
                                      "/Contents 5 0 R >>",
                                      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
                                      "/Contents 5 0 R >>",
                                      contents, "42"},
                                     ""));
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: rop_make_test_pdfs OUTDIR\n");
        return 2;
    }
    namespace fs = std::filesystem;
    const fs::path root = argv[1];
    fs::create_directories(root / "docs");
    fs::create_directories(root / "corrupt");
    fs::create_directories(root / "edge");
    fs::create_directories(root / "text");
    fs::create_directories(root / "structure");
    const std::string report = (root / "docs" / "report.pdf").string();
    const std::string letter = (root / "docs" / "letter.pdf").string();
    bool ok = write_report(report) && write_letter(letter) &&
              write_mixed((root / "text" / "mixed.pdf").string());

    ok = ok && write_bytes((root / "manifest.jsonl").string(),
                           "{\"path\": \"docs/report.pdf\", \"lang\": \"eng\", \"pages\": 3}\n"
                           "\n"
                           "{\"path\": \"docs/letter.pdf\", \"name\": \"letter\", "
                           "\"source\": \"tests\"}\n");

    const std::string whole = read_bytes(report);
    ok = ok && !whole.empty() &&
         write_bytes((root / "corrupt" / "truncated.pdf").string(),
                     whole.substr(0, whole.size() * 6 / 10));
    std::string garbage = "This is not a PDF file at all.\n";
    for (unsigned i = 0, x = 12345; i < 2000; ++i) {
        x = x * 1103515245u + 12345u;
        garbage += static_cast<char>((x >> 16) & 0xFF);
    }
    ok = ok && write_bytes((root / "corrupt" / "garbage.pdf").string(), garbage);
    ok = ok && write_bytes((root / "corrupt" / "empty.pdf").string(), "");
    // Standard security handler, RC4 40-bit: /U does not match the empty user password, so the
    // file needs a password to open.
    const std::string hex32(64, 'a');
    ok = ok && write_bytes((root / "corrupt" / "encrypted.pdf").string(),
                           build_pdf({"<< /Type /Catalog /Pages 2 0 R >>",
                                      "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                                      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
                                      "<< /Filter /Standard /V 1 /R 2 /O <" + hex32 + "> /U <" +
                                          std::string(64, 'b') + "> /P -44 >>"},
                                     "/Encrypt 4 0 R /ID [<0123456789abcdef0123456789abcdef> "
                                     "<0123456789abcdef0123456789abcdef>] "));
    ok = ok && write_bytes((root / "corrupt" / "no_pages.pdf").string(),
                           build_pdf({"<< /Type /Catalog /Pages 2 0 R >>",
                                      "<< /Type /Pages /Kids [] /Count 0 >>"},
                                     ""));
    ok = ok && write_edge_cases(root / "edge", read_bytes(letter));
    ok = ok && write_structure((root / "structure" / "structure.pdf").string());
    ok = ok && write_tables((root / "structure" / "tables.pdf").string());
    if (!ok) {
        std::fprintf(stderr, "rop_make_test_pdfs: could not write the test files in %s\n", argv[1]);
        return 1;
    }
    return 0;
}
