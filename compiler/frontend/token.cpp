// Names of token kinds for dumps and messages, and the keyword table.
#include "frontend/token.h"

#include <array>
#include <utility>

#include "support/utf8.h"

namespace rop {

const char* token_kind_name(TokenKind kind) {
    switch (kind) {
#define ROP_TOKEN_NAME(name, dump_name, description) \
    case TokenKind::name: return dump_name;
        ROP_TOKEN_KINDS(ROP_TOKEN_NAME)
#undef ROP_TOKEN_NAME
    }
    return "?";
}

const char* describe(TokenKind kind) {
    switch (kind) {
#define ROP_TOKEN_DESCRIPTION(name, dump_name, description) \
    case TokenKind::name: return description;
        ROP_TOKEN_KINDS(ROP_TOKEN_DESCRIPTION)
#undef ROP_TOKEN_DESCRIPTION
    }
    return "?";
}

namespace {

// Raw spelling fit for a one-line message: invisible characters and bytes that are not UTF-8
// escaped, long text cut.
std::string quoted(std::string_view text) {
    constexpr std::size_t kMaxShown = 32;
    return "'" + utf8::printable(text, kMaxShown) + "'";
}

}  // namespace

std::string describe(const Token& token) {
    switch (token.kind) {
        case TokenKind::Ident: return "identifier " + quoted(token.text);
        case TokenKind::Int:
        case TokenKind::Float:
        case TokenKind::Duration:
        case TokenKind::Error: return quoted(token.text);
        default: return describe(token.kind);
    }
}

TokenKind keyword_kind(std::string_view word) {
    static constexpr std::array<std::pair<std::string_view, TokenKind>, 14> keywords{{
        {"pipeline", TokenKind::KwPipeline},
        {"use", TokenKind::KwUse},
        {"source", TokenKind::KwSource},
        {"sink", TokenKind::KwSink},
        {"map", TokenKind::KwMap},
        {"filter", TokenKind::KwFilter},
        {"expand", TokenKind::KwExpand},
        {"broadcast", TokenKind::KwBroadcast},
        {"reduce", TokenKind::KwReduce},
        {"as", TokenKind::KwAs},
        {"to", TokenKind::KwTo},
        {"with", TokenKind::KwWith},
        {"true", TokenKind::KwTrue},
        {"false", TokenKind::KwFalse},
    }};
    for (const auto& [spelling, kind] : keywords) {
        if (spelling == word) return kind;
    }
    return TokenKind::Ident;
}

}  // namespace rop
