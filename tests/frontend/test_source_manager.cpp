// SourceManager: line table, line text, files from disk and their errors.
#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <fstream>

#include "support/source_manager.h"

using rop::LineCol;
using rop::SourceManager;

namespace {

std::string at(const SourceManager& sm, rop::FileId f, std::uint32_t offset) {
    LineCol lc = sm.line_col(f, offset);
    return std::to_string(lc.line) + ":" + std::to_string(lc.column);
}

}  // namespace

TEST_CASE("frontend: source manager maps offsets to 1-based line:column", "[frontend]") {
    SourceManager sm;
    auto f = sm.add_buffer("a.rop", "ab\ncd\n\nlast");
    CHECK(at(sm, f, 0) == "1:1");
    CHECK(at(sm, f, 1) == "1:2");
    CHECK(at(sm, f, 2) == "1:3");  // the newline itself belongs to line 1
    CHECK(at(sm, f, 3) == "2:1");
    CHECK(at(sm, f, 6) == "3:1");
    CHECK(at(sm, f, 7) == "4:1");
    CHECK(at(sm, f, 11) == "4:5");   // end of file
    CHECK(at(sm, f, 999) == "4:5");  // clamped, never out of bounds
    CHECK(sm.line_text(f, 1) == "ab");
    CHECK(sm.line_text(f, 3).empty());
    CHECK(sm.line_text(f, 4) == "last");
    CHECK(sm.line_text(f, 5).empty());
    CHECK(sm.line_text(f, 0).empty());
}

TEST_CASE("frontend: source manager strips CR of CRLF lines", "[frontend]") {
    SourceManager sm;
    auto f = sm.add_buffer("crlf.rop", "pipeline p;\r\nuse \"x\";\r\n");
    CHECK(sm.line_text(f, 1) == "pipeline p;");
    CHECK(sm.line_text(f, 2) == "use \"x\";");
    CHECK(at(sm, f, 13) == "2:1");
}

TEST_CASE("frontend: source manager ends lines at LF, CRLF and a lone CR alike", "[frontend]") {
    SourceManager sm;
    // Old Mac line ends (CR only), then CRLF, then LF, then a blank CR line and a final CR.
    auto f = sm.add_buffer("cr.rop", "pipeline p;\ruse \"x\";\r\nsink a -> b;\nc\r\rd\r");
    CHECK(sm.line_count(f) == 7);
    CHECK(sm.line_text(f, 1) == "pipeline p;");
    CHECK(sm.line_text(f, 2) == "use \"x\";");
    CHECK(sm.line_text(f, 3) == "sink a -> b;");
    CHECK(sm.line_text(f, 4) == "c");
    CHECK(sm.line_text(f, 5).empty());
    CHECK(sm.line_text(f, 6) == "d");
    CHECK(sm.line_text(f, 7).empty());
    CHECK(at(sm, f, 12) == "2:1");   // just past the first lone CR
    CHECK(at(sm, f, 11) == "1:12");  // the CR itself ends line 1
    CHECK(at(sm, f, 22) == "3:1");   // past CRLF: one line end, not two
    CHECK(at(sm, f, 38) == "6:1");
    CHECK(sm.line_start(f, 3) == 22);
}

TEST_CASE("frontend: source manager counts columns in characters, not bytes", "[frontend]") {
    SourceManager sm;
    // é is 2 bytes, 中 is 3, 😀 is 4; each is one column, as a tab is.
    auto f = sm.add_buffer("u.rop", "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\tx\n\xc3\xa9y");
    CHECK(at(sm, f, 0) == "1:1");
    CHECK(at(sm, f, 2) == "1:2");
    CHECK(at(sm, f, 5) == "1:3");
    CHECK(at(sm, f, 9) == "1:4");
    CHECK(at(sm, f, 10) == "1:5");  // x
    CHECK(at(sm, f, 14) == "2:2");  // y, after é on line 2
    // A byte that is not UTF-8 counts as one column, and so does each byte of a cut sequence.
    auto bad = sm.add_buffer("b.rop", "\xff\xe4\xb8x\x80y");
    CHECK(at(sm, bad, 3) == "1:4");  // x
    CHECK(at(sm, bad, 5) == "1:6");  // y
}

TEST_CASE("frontend: source manager columns stay exact across its 64-byte blocks", "[frontend]") {
    // Multi-byte characters straddling every block boundary, checked against a plain count.
    std::string text;
    for (int i = 0; i < 300; ++i)
        text += i % 3 == 0 ? "a" : i % 3 == 1 ? "\xc3\xa9" : "\xe2\x82\xac";
    SourceManager sm;
    auto f = sm.add_buffer("blocks.rop", text);
    std::uint32_t column = 1;
    for (std::size_t i = 0; i < text.size(); ++i) {
        bool starts = (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
        if (starts) {
            INFO("offset " << i);
            CHECK(sm.line_col(f, static_cast<std::uint32_t>(i)).column == column);
            ++column;
        }
    }
    CHECK(sm.line_col(f, static_cast<std::uint32_t>(text.size())).column == column);
}

TEST_CASE("frontend: source manager drops a UTF-8 byte order mark", "[frontend]") {
    SourceManager sm;
    auto f = sm.add_buffer("bom.rop", "\xef\xbb\xbfpipeline p;\nx");
    CHECK(sm.text(f) == "pipeline p;\nx");
    CHECK(sm.line_text(f, 1) == "pipeline p;");
    CHECK(at(sm, f, 0) == "1:1");
    CHECK(at(sm, f, 9) == "1:10");
    // Only at the very start: elsewhere U+FEFF is text like any other.
    auto g = sm.add_buffer("mid.rop", "a\xef\xbb\xbf");
    CHECK(sm.text(g).size() == 4);
}

TEST_CASE("frontend: source manager handles an empty buffer", "[frontend]") {
    SourceManager sm;
    auto f = sm.add_buffer("empty.rop", "");
    CHECK(at(sm, f, 0) == "1:1");
    CHECK(sm.line_text(f, 1).empty());
    CHECK(sm.text(f).empty());
}

TEST_CASE("frontend: source manager keeps text views stable while files are added", "[frontend]") {
    SourceManager sm;
    auto first = sm.add_buffer("short.rop", "x");  // short enough for the small-string buffer
    std::string_view view = sm.text(first);
    for (int i = 0; i < 1000; ++i) sm.add_buffer("f" + std::to_string(i), "y");
    CHECK(view.data() == sm.text(first).data());
    CHECK(view == "x");
    CHECK(sm.file_count() == 1001);
    CHECK(sm.name(first) == "short.rop");
}

TEST_CASE("frontend: source manager reads files and reports unreadable ones", "[frontend]") {
    namespace fs = std::filesystem;
    fs::path dir = fs::temp_directory_path() / "rop_frontend_sm_test";
    fs::create_directories(dir);
    fs::path file = dir / "p.rop";
    {
        std::ofstream(file, std::ios::binary) << "pipeline p;\n";
    }

    SourceManager sm;
    std::string error;
    auto id = sm.add_file(file.string(), &error);
    REQUIRE(id);
    CHECK(sm.text(*id) == "pipeline p;\n");
    CHECK(sm.name(*id) == file.string());

    auto missing = sm.add_file((dir / "nope.rop").string(), &error);
    CHECK_FALSE(missing);
    CHECK(error.rfind("cannot read '" + (dir / "nope.rop").string() + "': ", 0) == 0);

    error.clear();
    auto directory = sm.add_file(dir.string(), &error);
    CHECK_FALSE(directory);
    CHECK(error == "cannot read '" + dir.string() + "': is a directory");
    CHECK(sm.file_count() == 1);
    fs::remove_all(dir);
}
