// Operands of a statement: operator references with named arguments, trailing options, and
// literal values (including nested lists, whose depth is capped so no input recurses deeply).
#include <string>
#include <unordered_map>

#include "frontend/parser.h"
#include "frontend/parser_impl.h"

namespace rop::detail {

std::optional<ast::QualifiedName> Parser::qualified_name(const char* context) {
    ast::QualifiedName name;
    auto part = expect_ident(context);
    if (!part) return std::nullopt;
    name.parts.push_back(*part);
    while (accept(TokenKind::Dot)) {
        part = expect_ident("after '.' in an operator name");
        if (!part) return std::nullopt;
        name.parts.push_back(*part);
    }
    name.range = from(name.parts.front().range.begin);
    return name;
}

// `std.ocr.tesseract(lang: "eng", psm: 3)` or `fix_hyphens`.
std::optional<ast::OpRef> Parser::op_ref(const char* context) {
    std::string what = std::string("of an operator ") + context;
    auto name = qualified_name(what.c_str());
    if (!name) return std::nullopt;
    ast::OpRef op{std::move(*name), {}, false, {}};
    if (accept(TokenKind::LParen)) {
        op.has_parens = true;
        // Each name's first argument, by index: one hash lookup per argument, so a call with
        // very many arguments costs linear time, not quadratic.
        std::unordered_map<std::string, std::size_t> first_index;
        while (!at(TokenKind::RParen)) {
            auto arg = argument();
            if (!arg) return std::nullopt;
            auto [first, inserted] = first_index.try_emplace(arg->name.name, op.args.size());
            if (!inserted) {
                auto& d = diags_.report(DiagId::DuplicateArgument, arg->name.range,
                                        "argument '" + arg->name.name + "' is given twice");
                d.notes.push_back({op.args[first->second].range, "first given here"});
            }
            op.args.push_back(std::move(*arg));
            if (!accept(TokenKind::Comma) && !at(TokenKind::RParen)) {
                error_expected("',' or ')' after an argument");
                return std::nullopt;
            }
        }
        advance();  // ')'
    }
    op.range = from(op.name.range.begin);
    return op;
}

// `name: value`.
std::optional<ast::Argument> Parser::argument() {
    if (!at(TokenKind::Ident)) {
        error_expected("an argument name")
            .notes.push_back({std::nullopt, "arguments are named: 'op(name: value, ...)'"});
        return std::nullopt;
    }
    const Token& name_token = advance();
    ast::Ident name{std::string(name_token.text), name_token.range};
    if (!expect(TokenKind::Colon, ("after argument name '" + name.name + "'").c_str())) {
        return std::nullopt;
    }
    auto val = value("for argument '" + name.name + "'");
    if (!val) return std::nullopt;
    return ast::Argument{std::move(name), std::move(*val), from(name_token.range.begin)};
}

// `batch 48 actors 4 timeout 30s`: option names are plain identifiers (sema knows which exist).
// An identifier followed by '=' starts the next statement (its ';' is missing), not an option;
// so does `pool NAME =`.
std::optional<std::vector<ast::Option>> Parser::options() {
    std::vector<ast::Option> opts;
    while (at(TokenKind::Ident) && peek(1).kind != TokenKind::Equal &&
           !(at_pool() && peek(2).kind == TokenKind::Equal)) {
        const Token& name_token = advance();
        ast::Ident name{std::string(name_token.text), name_token.range};
        auto val = value("for option '" + name.name + "'");
        if (!val) return std::nullopt;
        opts.push_back({std::move(name), std::move(*val), from(name_token.range.begin)});
    }
    return opts;
}

std::optional<ast::Value> Parser::value(const std::string& context, int depth) {
    using Kind = ast::Value::Kind;
    ast::Value val;
    val.range = cur().range;
    switch (cur().kind) {
        case TokenKind::String:
            val.kind = Kind::String;
            val.text = cur().string_value;
            break;
        case TokenKind::Int:
            val.kind = Kind::Int;
            val.int_value = cur().int_value;
            break;
        case TokenKind::Duration:
            val.kind = Kind::Duration;
            val.int_value = cur().int_value;
            break;
        case TokenKind::Float:
            val.kind = Kind::Float;
            val.float_value = cur().float_value;
            break;
        case TokenKind::KwTrue:
        case TokenKind::KwFalse:
            val.kind = Kind::Bool;
            val.bool_value = at(TokenKind::KwTrue);
            break;
        case TokenKind::Ident:
            val.kind = Kind::Ident;
            val.text = std::string(cur().text);
            break;
        case TokenKind::LBracket: return list(depth + 1);
        default:
            diags_.report(DiagId::ExpectedValue, found_range(),
                          "expected a value " + context + ", found " + describe(cur()));
            return std::nullopt;
    }
    advance();
    return val;
}

// `[v, v, ...]`, trailing comma allowed. Depth is checked before descending, so the C++ stack
// never holds more than kMaxListDepth frames of this recursion.
std::optional<ast::Value> Parser::list(int depth) {
    std::uint32_t begin = cur().range.begin;
    if (depth > kMaxListDepth) {
        diags_.report(DiagId::NestingTooDeep, cur().range,
                      "lists nest at most " + std::to_string(kMaxListDepth) + " deep");
        skip_nested_list();
        return std::nullopt;
    }
    advance();  // '['
    ast::Value val;
    val.kind = ast::Value::Kind::List;
    while (!at(TokenKind::RBracket)) {
        auto item = value("in list", depth);
        if (!item) return std::nullopt;
        val.items.push_back(std::move(*item));
        if (!accept(TokenKind::Comma) && !at(TokenKind::RBracket)) {
            error_expected("',' or ']' in list");
            return std::nullopt;
        }
    }
    advance();  // ']'
    val.range = from(begin);
    return val;
}

// Skips from '[' to its matching ']' (or the end of the statement) with a counter, not
// recursion, so arbitrarily deep input costs no stack.
void Parser::skip_nested_list() {
    std::size_t open = 0;
    while (!at(TokenKind::Eof) && !at(TokenKind::Semicolon)) {
        if (at(TokenKind::LBracket)) ++open;
        if (at(TokenKind::RBracket) && --open == 0) {
            advance();
            return;
        }
        advance();
    }
}

}  // namespace rop::detail
