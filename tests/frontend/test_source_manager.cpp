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
    { std::ofstream(file, std::ios::binary) << "pipeline p;\n"; }

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
