// Every .rop file of the repository (examples/ and tests/, found when the test runs): a file
// that parses formats to text that parses to the same tree with the same comments, and that
// formats to itself; a file that does not parse is refused with exactly the parser's errors.
#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "format/format.h"
#include "format/structure.h"
#include "format_util.h"
#include "frontend/lexer.h"
#include "frontend/parser.h"

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> rop_files() {
    std::vector<fs::path> files;
    for (const char* dir : {"examples", "tests"}) {
        for (const auto& entry : fs::recursive_directory_iterator(fs::path(ROP_SOURCE_DIR) / dir)) {
            if (entry.is_regular_file() && entry.path().extension() == ".rop") {
                files.push_back(entry.path());
            }
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

struct Parsed {
    std::string structure;
    std::vector<std::string> comments;  // sorted, trailing spaces dropped
    std::vector<std::string> diags;     // "E0010@3:5"
};

Parsed parse_text(const std::string& text) {
    rop::SourceManager sources;
    rop::FileId file = sources.add_buffer("t.rop", text);
    rop::DiagnosticEngine diags(sources);
    rop::ast::Program program = rop::parse(file, sources, diags);
    Parsed out;
    out.structure = rop::format::structure(program, sources);
    std::vector<rop::SourceRange> comments;
    rop::DiagnosticEngine ignored(sources);
    rop::lex(file, sources, ignored, &comments);
    for (const rop::SourceRange& c : comments) {
        std::string comment(sources.text(file).substr(c.begin, c.end - c.begin));
        comment.erase(comment.find_last_not_of(" \t") + 1);
        out.comments.push_back(comment);
    }
    std::sort(out.comments.begin(), out.comments.end());
    for (const rop::Diagnostic& d : diags.finish()) {
        rop::LineCol at = sources.line_col(file, d.range.begin);
        out.diags.push_back(std::string(rop::diag_info(d.id).code) + "@" + std::to_string(at.line) +
                            ":" + std::to_string(at.column));
    }
    return out;
}

}  // namespace

TEST_CASE("every .rop file: round trip, idempotence, or the parser's own errors", "[format]") {
    const std::vector<fs::path> files = rop_files();
    REQUIRE(files.size() >= 90);  // the glob found the corpus (about 100 files today)
    std::size_t formatted = 0;
    std::size_t refused = 0;
    for (const fs::path& path : files) {
        INFO(path.string());
        const std::string text = read(path);
        const Parsed original = parse_text(text);
        const rop::test::FormatRun run = rop::test::format_text(text);
        if (!original.diags.empty()) {
            CHECK_FALSE(run.text);
            CHECK(run.diags == original.diags);
            ++refused;
            continue;
        }
        REQUIRE(run.text);
        const Parsed again = parse_text(*run.text);
        CHECK(again.diags.empty());
        CHECK(again.structure == original.structure);
        CHECK(again.comments == original.comments);
        CHECK(rop::test::fmt(*run.text) == *run.text);
        ++formatted;
    }
    // Both kinds are there: the diagnostics goldens include syntax errors.
    CHECK(formatted >= 80);
    CHECK(refused >= 5);
}

TEST_CASE("the examples are canonical", "[format]") {
    for (const fs::path& path : rop_files()) {
        if (path.string().find("/examples/") == std::string::npos) continue;
        INFO(path.string());
        const std::string text = read(path);
        CHECK(rop::test::fmt(text) == text);
    }
}

TEST_CASE("first_different_line", "[format]") {
    using rop::format::first_different_line;
    CHECK_FALSE(first_different_line("a\nb\n", "a\nb\n"));
    CHECK(first_different_line("a\nb\n", "a\nc\n") == 2u);
    CHECK(first_different_line("a\nb", "a\nb\n") == 2u);
    CHECK(first_different_line("a\n", "a\nb\n") == 2u);
    CHECK(first_different_line("x", "") == 1u);
}
