// Variants of every parse-clean .rop file of the repository (seeded, so a failure replays):
// extra spaces and line breaks inside statements must not change what `ropc fmt` writes, and
// comments added after any token must come out in a text that formats to itself and parses to
// the same program.
#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "format/structure.h"
#include "format_util.h"
#include "frontend/lexer.h"
#include "frontend/parser.h"

namespace {

namespace fs = std::filesystem;

std::vector<std::string> clean_corpus() {
    std::vector<fs::path> paths;
    for (const char* dir : {"examples", "tests"}) {
        for (const auto& entry : fs::recursive_directory_iterator(fs::path(ROP_SOURCE_DIR) / dir)) {
            if (entry.is_regular_file() && entry.path().extension() == ".rop") {
                paths.push_back(entry.path());
            }
        }
    }
    std::sort(paths.begin(), paths.end());
    std::vector<std::string> texts;
    for (const fs::path& path : paths) {
        std::ifstream in(path, std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        if (rop::test::format_text(text.str()).text) texts.push_back(text.str());
    }
    return texts;
}

// Where a token ends, and whether it ends a statement (';').
struct Gap {
    std::size_t at;
    bool after_semicolon;
};

std::vector<Gap> gaps(const std::string& text) {
    rop::SourceManager sources;
    rop::FileId file = sources.add_buffer("t.rop", text);
    rop::DiagnosticEngine diags(sources);
    std::vector<Gap> out;
    for (const rop::Token& token : rop::lex(file, sources, diags)) {
        if (token.kind == rop::TokenKind::Eof) break;
        out.push_back({token.range.end, token.kind == rop::TokenKind::Semicolon});
    }
    return out;
}

std::string structure(const std::string& text) {
    rop::SourceManager sources;
    rop::FileId file = sources.add_buffer("t.rop", text);
    rop::DiagnosticEngine diags(sources);
    return rop::format::structure(rop::parse(file, sources, diags), sources);
}

// `text` with `insert(rng)` put at up to `count` random gaps (from the end, so offsets hold).
template <typename Insert>
std::string vary(const std::string& text, const std::vector<Gap>& candidates, std::mt19937& rng,
                 int count, Insert insert) {
    std::vector<std::size_t> chosen;
    for (int i = 0; i < count && !candidates.empty(); ++i) {
        chosen.push_back(candidates[rng() % candidates.size()].at);
    }
    std::sort(chosen.rbegin(), chosen.rend());
    std::string out = text;
    for (std::size_t at : chosen) out.insert(at, insert(rng));
    return out;
}

}  // namespace

TEST_CASE("spaces and line breaks inside statements do not change the output", "[format]") {
    std::mt19937 rng(20261201);
    const std::vector<std::string> corpus = clean_corpus();
    REQUIRE(corpus.size() >= 80);
    for (const std::string& text : corpus) {
        const std::string expected = rop::test::fmt(text);
        std::vector<Gap> inside;
        for (const Gap& gap : gaps(text)) {
            if (!gap.after_semicolon) inside.push_back(gap);
        }
        for (int round = 0; round < 5; ++round) {
            const std::string variant = vary(text, inside, rng, 6, [](std::mt19937& r) {
                static const char* kSpace[] = {" ", "\t", "\n", "  \n   ", "\n\n"};
                return std::string(kSpace[r() % 5]);
            });
            INFO(variant);
            CHECK(rop::test::fmt(variant) == expected);
        }
    }
}

TEST_CASE("comments added after any token: same program, output formats to itself", "[format]") {
    std::mt19937 rng(7);
    for (const std::string& text : clean_corpus()) {
        const std::string program = structure(text);
        const std::vector<Gap> all = gaps(text);
        for (int round = 0; round < 5; ++round) {
            int n = 0;
            const std::string variant = vary(text, all, rng, 4, [&n](std::mt19937& r) {
                std::string comment = (r() % 2 ? " # note " : "\n// note ") + std::to_string(n++);
                return comment + (r() % 3 == 0 ? "\n\n" : "\n");
            });
            INFO(variant);
            const rop::test::FormatRun run = rop::test::format_text(variant);
            REQUIRE(run.text);
            CHECK(structure(*run.text) == program);
            CHECK(rop::test::fmt(*run.text) == *run.text);
        }
    }
}
