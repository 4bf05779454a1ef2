// The lexer: token kinds and exact ranges, literal decoding, and every lexical diagnostic.
#include <catch2/catch_test_macros.hpp>
#include <limits>
#include <memory>

#include "frontend/dump.h"
#include "frontend/lexer.h"

using namespace rop;

namespace {

struct Lexed {
    SourceManager sources;
    std::vector<Token> tokens;
    std::vector<Diagnostic> diags;

    std::string at(std::size_t i) const {  // "line:col-line:col" of token i
        const SourceRange& r = tokens.at(i).range;
        LineCol b = sources.line_col(r.file, r.begin);
        LineCol e = sources.line_col(r.file, r.end);
        return std::to_string(b.line) + ":" + std::to_string(b.column) + "-" +
               std::to_string(e.line) + ":" + std::to_string(e.column);
    }
    std::string diag_at(std::size_t i) const {
        const Diagnostic& d = diags.at(i);
        LineCol b = sources.line_col(d.range.file, d.range.begin);
        LineCol e = sources.line_col(d.range.file, d.range.end);
        return std::string(diag_info(d.id).code) + "@" + std::to_string(b.line) + ":" +
               std::to_string(b.column) + "-" + std::to_string(e.line) + ":" +
               std::to_string(e.column);
    }
};

std::unique_ptr<Lexed> lex_text(const std::string& text) {
    auto out = std::make_unique<Lexed>();
    FileId f = out->sources.add_buffer("l.rop", text);
    DiagnosticEngine engine(out->sources);
    out->tokens = lex(f, out->sources, engine);
    out->diags = engine.finish();
    return out;
}

std::vector<TokenKind> kinds(const Lexed& l) {
    std::vector<TokenKind> out;
    for (const Token& t : l.tokens) out.push_back(t.kind);
    return out;
}

}  // namespace

TEST_CASE("frontend: lexer splits a statement into tokens with exact ranges", "[frontend]") {
    auto l = lex_text("ocr = map (pages, hint?) with std.ocr(lang: \"eng\") batch 48;\n");
    using K = TokenKind;
    CHECK(kinds(*l) == std::vector<K>{K::Ident,     K::Equal,  K::KwMap,    K::LParen, K::Ident,
                                      K::Comma,     K::Ident,  K::Question, K::RParen, K::KwWith,
                                      K::Ident,     K::Dot,    K::Ident,    K::LParen, K::Ident,
                                      K::Colon,     K::String, K::RParen,   K::Ident,  K::Int,
                                      K::Semicolon, K::Eof});
    CHECK(l->diags.empty());
    CHECK(l->at(0) == "1:1-1:4");
    CHECK(l->at(2) == "1:7-1:10");
    CHECK(l->at(7) == "1:23-1:24");
    CHECK(l->at(16) == "1:45-1:50");
    CHECK(l->tokens[16].string_value == "eng");
    CHECK(l->tokens[19].int_value == 48);
    CHECK(l->at(21) == "2:1-2:1");  // Eof sits at the end of the text
}

TEST_CASE("frontend: lexer knows every keyword and nothing more", "[frontend]") {
    auto l = lex_text(
        "pipeline use source sink map filter expand broadcast reduce as to with true "
        "false batch Map pipelines _x x9");
    using K = TokenKind;
    CHECK(kinds(*l) == std::vector<K>{K::KwPipeline, K::KwUse,    K::KwSource, K::KwSink,
                                      K::KwMap,      K::KwFilter, K::KwExpand, K::KwBroadcast,
                                      K::KwReduce,   K::KwAs,     K::KwTo,     K::KwWith,
                                      K::KwTrue,     K::KwFalse,  K::Ident,    K::Ident,
                                      K::Ident,      K::Ident,    K::Ident,    K::Eof});
}

TEST_CASE("frontend: lexer reads punctuation including the arrow and the question mark",
          "[frontend]") {
    auto l = lex_text("; : = ( ) [ ] , . -> ?");
    using K = TokenKind;
    CHECK(kinds(*l) == std::vector<K>{K::Semicolon, K::Colon, K::Equal, K::LParen, K::RParen,
                                      K::LBracket, K::RBracket, K::Comma, K::Dot, K::Arrow,
                                      K::Question, K::Eof});
    CHECK(l->at(9) == "1:19-1:21");
}

TEST_CASE("frontend: lexer skips # and // comments to the end of the line", "[frontend]") {
    auto l = lex_text("a # map ; \"unterminated\nb // c ;\n  # last");
    REQUIRE(l->tokens.size() == 3);
    CHECK(l->tokens[0].text == "a");
    CHECK(l->tokens[1].text == "b");
    CHECK(l->at(1) == "2:1-2:2");
    CHECK(l->diags.empty());
}

TEST_CASE("frontend: lexer decodes string escapes", "[frontend]") {
    auto l = lex_text(R"("a\nb\t\\\"\u{48}\u{e9}\u{1F600}")");
    REQUIRE(l->diags.empty());
    CHECK(l->tokens[0].kind == TokenKind::String);
    CHECK(l->tokens[0].string_value == "a\nb\t\\\"H\xc3\xa9\xf0\x9f\x98\x80");
    CHECK(l->at(0) == "1:1-1:34");
}

TEST_CASE("frontend: lexer reports invalid escapes at the escape and keeps going", "[frontend]") {
    auto l = lex_text(R"(x "a\qb\u{}\u{D800}\u{110000}\u{1234567}\u41" y)");
    REQUIRE(l->diags.size() == 6);
    CHECK(l->diag_at(0) == "E0003@1:5-1:7");  // \q
    CHECK(l->diags[0].message ==
          "invalid escape sequence '\\q'; valid escapes are \\n \\t \\\\ \\\" and \\u{XXXX}");
    CHECK(l->diag_at(1) == "E0003@1:8-1:12");   // \u{}
    CHECK(l->diag_at(2) == "E0003@1:12-1:20");  // surrogate
    CHECK(l->diags[2].message ==
          "'\\u{...}' names no Unicode scalar value (surrogate or above 10FFFF)");
    CHECK(l->diag_at(3) == "E0003@1:20-1:30");  // above 10FFFF
    CHECK(l->diag_at(4) == "E0003@1:30-1:41");  // seven digits
    CHECK(l->diag_at(5) == "E0003@1:41-1:43");  // \u without braces
    REQUIRE(l->tokens.size() == 4);
    CHECK(l->tokens[1].string_value == "ab41");
    CHECK(l->tokens[2].text == "y");
}

TEST_CASE("frontend: lexer reports an unterminated string and resumes on the next line",
          "[frontend]") {
    auto l = lex_text("use \"udfs/a.hpp;\nb");
    REQUIRE(l->diags.size() == 1);
    CHECK(l->diag_at(0) == "E0002@1:5-1:17");
    CHECK(l->diags[0].message == "missing terminating '\"' character");
    CHECK(l->tokens[1].string_value == "udfs/a.hpp;");
    CHECK(l->tokens[2].text == "b");
}

TEST_CASE("frontend: lexer reads integers to the 64-bit limits", "[frontend]") {
    auto l = lex_text("0 42 -7 9223372036854775807 -9223372036854775808");
    REQUIRE(l->diags.empty());
    CHECK(l->tokens[0].int_value == 0);
    CHECK(l->tokens[1].int_value == 42);
    CHECK(l->tokens[2].int_value == -7);
    CHECK(l->at(2) == "1:6-1:8");
    CHECK(l->tokens[3].int_value == std::numeric_limits<std::int64_t>::max());
    CHECK(l->tokens[4].int_value == std::numeric_limits<std::int64_t>::min());
}

TEST_CASE("frontend: lexer reports integer overflow as E0004", "[frontend]") {
    auto l = lex_text("9223372036854775808 -9223372036854775809");
    REQUIRE(l->diags.size() == 2);
    CHECK(l->diag_at(0) == "E0004@1:1-1:20");
    CHECK(l->diags[0].message == "integer literal '9223372036854775808' does not fit in 64 bits");
    CHECK(l->diag_at(1) == "E0004@1:21-1:41");
    CHECK(l->tokens[0].kind == TokenKind::Int);
}

TEST_CASE("frontend: lexer reads floats and reports out-of-range ones", "[frontend]") {
    auto l = lex_text("1.5 2e3 1.5e-3 -0.25 1e999");
    CHECK(l->tokens[0].float_value == 1.5);
    CHECK(l->tokens[1].kind == TokenKind::Float);
    CHECK(l->tokens[1].float_value == 2000.0);
    CHECK(l->tokens[2].float_value == 0.0015);
    CHECK(l->tokens[3].float_value == -0.25);
    REQUIRE(l->diags.size() == 1);
    CHECK(l->diag_at(0) == "E0004@1:22-1:27");
}

TEST_CASE("frontend: lexer reads durations as milliseconds", "[frontend]") {
    auto l = lex_text("30s 500ms 2m 1h 0s");
    REQUIRE(l->diags.empty());
    CHECK(l->tokens[0].kind == TokenKind::Duration);
    CHECK(l->tokens[0].int_value == 30'000);
    CHECK(l->tokens[1].int_value == 500);
    CHECK(l->tokens[2].int_value == 120'000);
    CHECK(l->tokens[3].int_value == 3'600'000);
    CHECK(l->tokens[4].int_value == 0);
    CHECK(l->at(1) == "1:5-1:10");
}

TEST_CASE("frontend: lexer rejects fractional and negative and huge and unknown durations",
          "[frontend]") {
    auto l = lex_text("1.5s -3s 9999999999999999h 10x 3min 4e");
    REQUIRE(l->diags.size() == 6);
    CHECK(l->diag_at(0) == "E0005@1:1-1:5");
    CHECK(l->diag_at(1) == "E0005@1:6-1:9");
    CHECK(l->diags[1].message == "a duration cannot be negative");
    CHECK(l->diag_at(2) == "E0004@1:10-1:27");
    CHECK(l->diag_at(3) == "E0005@1:30-1:31");  // the suffix is underlined
    CHECK(l->diags[3].message ==
          "invalid suffix 'x' on number literal; durations use ms, s, m or h");
    CHECK(l->diag_at(4) == "E0005@1:33-1:36");
    CHECK(l->diag_at(5) == "E0005@1:38-1:39");
    CHECK(l->tokens.size() == 7);  // one token each, no cascade
}

TEST_CASE("frontend: lexer merges a run of invalid characters into one diagnostic", "[frontend]") {
    auto l = lex_text("a @$% b \xe2\x86\x92 c - d / e");
    REQUIRE(l->diags.size() == 4);
    CHECK(l->diag_at(0) == "E0001@1:3-1:6");
    CHECK(l->diags[0].message == "invalid characters '@$%'");
    CHECK(l->diag_at(1) == "E0001@1:9-1:10");  // one character, three bytes
    CHECK(l->diags[1].message == "invalid character '\xe2\x86\x92' (U+2192)");
    CHECK(l->diags[2].message == "invalid character '-'; did you mean '->'?");
    CHECK(l->diags[3].message == "invalid character '/'; comments start with '#' or '//'");
    using K = TokenKind;
    CHECK(kinds(*l) == std::vector<K>{K::Ident, K::Error, K::Ident, K::Error, K::Ident, K::Error,
                                      K::Ident, K::Error, K::Ident, K::Eof});
}

TEST_CASE("frontend: lexer ends every token list with exactly one Eof", "[frontend]") {
    for (const char* text : {"", " ", "\n\n", "# only a comment", "x"}) {
        auto l = lex_text(text);
        REQUIRE_FALSE(l->tokens.empty());
        CHECK(l->tokens.back().kind == TokenKind::Eof);
        for (std::size_t i = 0; i + 1 < l->tokens.size(); ++i) {
            CHECK(l->tokens[i].kind != TokenKind::Eof);
        }
    }
}

TEST_CASE("frontend: token dump prints line:col kind and quoted text", "[frontend]") {
    auto l = lex_text("pipeline p;\nuse \"a\\tb\";");
    CHECK(dump_tokens(l->tokens, l->sources) ==
          "1:1 kw_pipeline 'pipeline'\n"
          "1:10 identifier 'p'\n"
          "1:11 semicolon ';'\n"
          "2:1 kw_use 'use'\n"
          "2:5 string '\"a\\\\tb\"'\n"
          "2:11 semicolon ';'\n"
          "2:12 eof ''\n");
}

TEST_CASE("frontend: a name with a non-ASCII letter is one error over the whole name",
          "[frontend]") {
    auto l = lex_text("pag\xc3\xa9s = map x;");
    REQUIRE(l->diags.size() == 1);
    CHECK(l->diag_at(0) == "E0001@1:1-1:6");  // pagés: five characters
    CHECK(l->diags[0].message ==
          "invalid character '\xc3\xa9' (U+00E9) in identifier 'pag\xc3\xa9s'; identifiers are "
          "ASCII letters, digits and '_'");
    using K = TokenKind;
    // Still a name, so the parser reads the statement as written and nothing cascades.
    CHECK(kinds(*l) ==
          std::vector<K>{K::Ident, K::Equal, K::KwMap, K::Ident, K::Semicolon, K::Eof});
    CHECK(l->tokens[0].text == "pag\xc3\xa9s");

    auto cjk = lex_text("x = map \xe6\x96\x87\xe6\x9b\xb8;");  // 文書, a name in another script
    REQUIRE(cjk->diags.size() == 1);
    CHECK(cjk->diag_at(0) == "E0001@1:9-1:11");
    CHECK(cjk->diags[0].message.starts_with(
        "invalid character '\xe6\x96\x87' (U+6587) in identifier"));
    CHECK(cjk->tokens[3].kind == TokenKind::Ident);
}

TEST_CASE("frontend: bytes that are not UTF-8 are named as bytes", "[frontend]") {
    // Latin-1 "pagés": the é is the single byte E9.
    auto l = lex_text("pag\xe9s = map x;");
    REQUIRE(l->diags.size() == 1);
    CHECK(l->diag_at(0) == "E0001@1:1-1:6");
    CHECK(l->diags[0].message ==
          "invalid byte '\\xe9' (not UTF-8) in identifier 'pag\\xe9s'; identifiers are ASCII "
          "letters, digits and '_'");
    CHECK(l->tokens[0].kind == TokenKind::Ident);

    auto alone = lex_text("a \xff\xfe b \x80 c");
    REQUIRE(alone->diags.size() == 2);
    CHECK(alone->diag_at(0) == "E0001@1:3-1:5");
    CHECK(alone->diags[0].message == "invalid bytes '\\xff\\xfe' (not UTF-8)");
    CHECK(alone->diags[1].message == "invalid byte '\\x80' (not UTF-8)");
    using K = TokenKind;
    CHECK(kinds(*alone) ==
          std::vector<K>{K::Ident, K::Error, K::Ident, K::Error, K::Ident, K::Eof});
}

TEST_CASE("frontend: invisible characters are spelled out in messages", "[frontend]") {
    auto l = lex_text(
        "a \xc2\xa0"
        "b \xe2\x80\xae c \x01 d");  // no-break space, RLO, SOH
    REQUIRE(l->diags.size() == 3);
    CHECK(l->diags[0].message == "invalid character '\\u{A0}' (U+00A0)");
    CHECK(l->diags[1].message == "invalid character '\\u{202E}' (U+202E)");
    CHECK(l->diags[2].message == "invalid character '\\u{1}' (U+0001)");
}

TEST_CASE("frontend: lexer ends lines at a lone CR as at LF", "[frontend]") {
    // A comment and an unterminated string both stop at the CR; the next line is read.
    auto l = lex_text("a # comment\rb \"open\rc");
    REQUIRE(l->diags.size() == 1);
    CHECK(l->diag_at(0) == "E0002@2:3-2:8");
    REQUIRE(l->tokens.size() == 5);
    CHECK(l->tokens[1].text == "b");
    CHECK(l->tokens[2].string_value == "open");
    CHECK(l->at(3) == "3:1-3:2");
}

TEST_CASE("frontend: a raw NUL in a string is rejected where it is", "[frontend]") {
    auto l = lex_text(std::string("x \"ab\0\0c\" \"\\u{0}\"", 17));
    REQUIRE(l->diags.size() == 1);  // one per run of NULs; the escape is fine
    CHECK(l->diag_at(0) == "E0001@1:6-1:8");
    CHECK(l->diags[0].message ==
          "invalid character U+0000 (NUL) in string literal; write the escape '\\u{0}' if a NUL "
          "is meant");
    CHECK(l->tokens[1].string_value == "abc");
    CHECK(l->tokens[2].string_value == std::string(1, '\0'));
}

TEST_CASE("frontend: lexer skips a byte order mark and counts no column for it", "[frontend]") {
    auto l = lex_text("\xef\xbb\xbfpipeline p;");
    CHECK(l->diags.empty());
    CHECK(l->tokens[0].kind == TokenKind::KwPipeline);
    CHECK(l->at(0) == "1:1-1:9");
}
