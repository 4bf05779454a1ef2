// Tokens of the .rop language: kind, exact source range, raw spelling and decoded literal value.
// A token's `text` points into the SourceManager's copy of the file; it lives as long as that.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "support/source_manager.h"

namespace rop {

#define ROP_TOKEN_KINDS(X)                        \
    X(Eof, "eof", "end of file")                  \
    X(Error, "error", "invalid character")        \
    X(Ident, "identifier", "identifier")          \
    X(String, "string", "string literal")         \
    X(Int, "int", "integer literal")              \
    X(Float, "float", "float literal")            \
    X(Duration, "duration", "duration literal")   \
    X(KwPipeline, "kw_pipeline", "'pipeline'")    \
    X(KwUse, "kw_use", "'use'")                   \
    X(KwSource, "kw_source", "'source'")          \
    X(KwSink, "kw_sink", "'sink'")                \
    X(KwMap, "kw_map", "'map'")                   \
    X(KwFilter, "kw_filter", "'filter'")          \
    X(KwExpand, "kw_expand", "'expand'")          \
    X(KwBroadcast, "kw_broadcast", "'broadcast'") \
    X(KwReduce, "kw_reduce", "'reduce'")          \
    X(KwAs, "kw_as", "'as'")                      \
    X(KwTo, "kw_to", "'to'")                      \
    X(KwWith, "kw_with", "'with'")                \
    X(KwTrue, "kw_true", "'true'")                \
    X(KwFalse, "kw_false", "'false'")             \
    X(Semicolon, "semicolon", "';'")              \
    X(Colon, "colon", "':'")                      \
    X(Equal, "equal", "'='")                      \
    X(LParen, "lparen", "'('")                    \
    X(RParen, "rparen", "')'")                    \
    X(LBracket, "lbracket", "'['")                \
    X(RBracket, "rbracket", "']'")                \
    X(Comma, "comma", "','")                      \
    X(Dot, "dot", "'.'")                          \
    X(Arrow, "arrow", "'->'")                     \
    X(Question, "question", "'?'")

enum class TokenKind {
#define ROP_TOKEN_ENUM(name, dump_name, description) name,
    ROP_TOKEN_KINDS(ROP_TOKEN_ENUM)
#undef ROP_TOKEN_ENUM
};

struct Token {
    TokenKind kind = TokenKind::Eof;
    SourceRange range;
    std::string_view text;       // raw spelling, e.g. `"a\n"` with its quotes and backslash
    std::string string_value;    // String: the decoded contents (UTF-8)
    std::int64_t int_value = 0;  // Int; Duration: milliseconds
    double float_value = 0;      // Float
};

// "kw_map", "identifier", "semicolon": stable names for `--emit=tokens`.
const char* token_kind_name(TokenKind kind);
// How a message names the kind: "'map'", "identifier", "end of file".
const char* describe(TokenKind kind);
// How a message names one token: "'map'", "identifier 'pagez'", "string literal", "end of file".
std::string describe(const Token& token);
// The keyword spelled `word`, or Ident.
TokenKind keyword_kind(std::string_view word);

}  // namespace rop
