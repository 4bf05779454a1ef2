// Statements of the .rop grammar (docs/language.md) and the recovery that keeps one syntax
// error from hiding the next. Operands (op references, arguments, options, values) live in
// parse_operands.cpp.
#include "frontend/parser.h"

#include "frontend/lexer.h"
#include "frontend/parser_impl.h"

namespace rop {

ast::Program parse(FileId file, const SourceManager& sources, DiagnosticEngine& diags) {
    std::vector<Token> tokens = lex(file, sources, diags);
    // Invalid characters are reported by the lexer; the parser reads on as if they were not
    // there, so a stray byte neither hides a later error in its statement nor drops the statement.
    std::erase_if(tokens, [](const Token& t) { return t.kind == TokenKind::Error; });
    return detail::Parser(file, sources, std::move(tokens), diags).run();
}

namespace detail {

const Token& Parser::peek(std::size_t ahead) const {
    std::size_t at = pos_ + ahead;
    return at < tokens_.size() ? tokens_[at] : tokens_.back();
}

const Token& Parser::advance() {
    const Token& token = tokens_[pos_];
    if (token.kind != TokenKind::Eof) ++pos_;
    return token;
}

bool Parser::accept(TokenKind kind) {
    if (!at(kind)) return false;
    advance();
    return true;
}

SourceRange Parser::found_range() const {
    if (at(TokenKind::Eof) && pos_ > 0) return {file_, prev_end(), prev_end()};
    return cur().range;
}

Diagnostic& Parser::error_expected(const std::string& what) {
    return diags_.report(DiagId::ExpectedToken, found_range(),
                         "expected " + what + ", found " + describe(cur()));
}

bool Parser::expect(TokenKind kind, const char* context) {
    if (accept(kind)) return true;
    error_expected(std::string(describe(kind)) + " " + context);
    return false;
}

std::optional<ast::Ident> Parser::expect_ident(const char* context) {
    if (!at(TokenKind::Ident)) {
        error_expected(std::string("a name ") + context);
        return std::nullopt;
    }
    const Token& token = advance();
    return ast::Ident{std::string(token.text), token.range};
}

bool Parser::first_on_line() const {
    if (pos_ == 0) return true;
    const SourceRange& prev = tokens_[pos_ - 1].range;
    return sources_.line_col(file_, prev.end).line <
           sources_.line_col(file_, cur().range.begin).line;
}

// A statement keyword anywhere, or `name =` / `(a, b) =` at the start of a line. Options never
// contain '=', so such a line cannot continue the statement before it; mid-line, `Doc =` is
// more likely the rest of a broken statement (`source docs Doc = ...`) than a new one.
bool Parser::at_statement_start() const {
    switch (cur().kind) {
        case TokenKind::KwPipeline:
        case TokenKind::KwUse:
        case TokenKind::KwSource:
        case TokenKind::KwSink: return true;
        case TokenKind::Ident:
            if (at_pool() && peek(2).kind == TokenKind::Equal) return true;  // `pool vlm =`
            return peek(1).kind == TokenKind::Equal && first_on_line();
        case TokenKind::LParen:
            if (!first_on_line()) return false;
            break;
        default: return false;
    }
    std::size_t ahead = 1;  // `(` ident (`,` ident)* `)` `=`, scanned without consuming
    while (peek(ahead).kind == TokenKind::Ident) {
        if (peek(ahead + 1).kind == TokenKind::Comma) {
            ahead += 2;
            continue;
        }
        return peek(ahead + 1).kind == TokenKind::RParen &&
               peek(ahead + 2).kind == TokenKind::Equal;
    }
    return false;
}

void Parser::synchronize() {
    while (!at(TokenKind::Eof)) {
        if (accept(TokenKind::Semicolon) || at_statement_start()) return;
        advance();
    }
}

ast::Program Parser::run() {
    ast::Program program;
    program.file = file_;
    while (!at(TokenKind::Eof)) {
        std::size_t start = pos_;
        statement(program);
        if (pos_ == start) advance();  // never loop in place, whatever a statement did
    }
    if (!saw_header_) missing_header();
    return program;
}

void Parser::statement(ast::Program& program) {
    bool counts = !at(TokenKind::KwPipeline) && !at(TokenKind::Semicolon);
    SourceRange first_token = cur().range;
    statement_body(program);
    // A broken first statement still counts for "header not first": point at its first token.
    if (counts && !first_statement_) first_statement_ = first_token;
}

void Parser::statement_body(ast::Program& program) {
    auto keep = [&](auto node) {
        if (!first_statement_) first_statement_ = node.range;
        program.statements.emplace_back(std::move(node));
    };
    auto finish = [&](auto node) {
        if (node && end_statement()) keep(std::move(*node));
        if (!node) synchronize();
    };
    switch (cur().kind) {
        case TokenKind::KwPipeline: return header(program);
        case TokenKind::KwUse: return finish(use());
        case TokenKind::KwSource: return finish(source());
        case TokenKind::KwSink: return finish(sink());
        case TokenKind::Ident:
            if (at_pool()) return finish(pool());
            [[fallthrough]];
        case TokenKind::LParen: return finish(stage());
        default: break;
    }
    if (at(TokenKind::Semicolon)) {  // one diagnostic for a run of stray ';', not one each
        std::uint32_t begin = cur().range.begin;
        while (accept(TokenKind::Semicolon)) {
        }
        SourceRange run = from(begin);
        auto& d = diags_.report(DiagId::ExpectedStatement, run, "stray ';' between statements");
        d.fixit = FixIt{run, ""};
        return;
    }
    bool stage_keyword = at(TokenKind::KwMap) || at(TokenKind::KwFilter) ||
                         at(TokenKind::KwExpand) || at(TokenKind::KwBroadcast) ||
                         at(TokenKind::KwReduce);
    auto& d = diags_.report(DiagId::ExpectedStatement, found_range(),
                            "expected a statement, found " + describe(cur()));
    if (stage_keyword) {
        d.notes.push_back({cur().range, "a stage names its output: 'name = " +
                                            std::string(cur().text) + " ...;'"});
    } else {
        d.notes.push_back({std::nullopt,
                           "statements are 'pipeline', 'use', 'source', 'sink' and "
                           "'name = map|filter|expand|broadcast|reduce ...'"});
    }
    advance();
    synchronize();
}

void Parser::header(ast::Program& program) {
    std::uint32_t begin = advance().range.begin;  // 'pipeline'
    bool first_header = !saw_header_;
    saw_header_ = true;  // even a broken header is one: no "missing header" on top of its error
    auto name = expect_ident("after 'pipeline'");
    if (!name) return synchronize();
    ast::PipelineDecl decl{*name, from(begin)};
    end_statement();  // the name is enough to keep the header
    if (!first_header && !program.header) return;
    if (program.header) {
        auto& d = diags_.report(DiagId::DuplicatePipelineHeader, decl.range,
                                "duplicate 'pipeline' header; a file declares one pipeline");
        d.notes.push_back({program.header->range, "first declared here"});
        return;
    }
    if (first_statement_) {
        auto& d = diags_.report(DiagId::PipelineHeaderNotFirst, decl.range,
                                "the 'pipeline' header must come before every other statement");
        d.notes.push_back({*first_statement_, "first statement is here"});
    }
    program.header = decl;
}

void Parser::missing_header() {
    std::string_view name = sources_.name(file_);
    auto slash = name.find_last_of("/\\");
    if (slash != std::string_view::npos) name.remove_prefix(slash + 1);
    name = name.substr(0, name.find('.'));
    std::string stem;
    for (char c : name) {
        bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        stem += word ? c : '_';
    }
    if (stem.empty() || (stem[0] >= '0' && stem[0] <= '9') ||
        keyword_kind(stem) != TokenKind::Ident) {
        stem = stem.empty() ? "main" : "main_" + stem;
    }
    SourceRange start{file_, 0, 0};
    auto& d =
        diags_.report(DiagId::MissingPipelineHeader, start,
                      "missing 'pipeline' header; a .rop file starts with 'pipeline <name>;'");
    d.fixit = FixIt{start, "pipeline " + stem + ";\n"};
}

bool Parser::end_statement() {
    if (accept(TokenKind::Semicolon)) return true;
    SourceRange after{file_, prev_end(), prev_end()};
    auto& d = diags_.report(DiagId::ExpectedToken, after,
                            "expected ';' after statement, found " + describe(cur()));
    d.fixit = FixIt{after, ";"};
    if (at_statement_start() || at(TokenKind::Eof)) return true;
    synchronize();
    return false;
}

std::optional<ast::Use> Parser::use() {
    std::uint32_t begin = advance().range.begin;  // 'use'
    if (!at(TokenKind::String)) {
        error_expected("a header path string after 'use', as in use \"udfs/my.hpp\"");
        return std::nullopt;
    }
    std::string path = advance().string_value;
    return ast::Use{std::move(path), from(begin)};
}

std::optional<ast::Source> Parser::source() {
    std::uint32_t begin = advance().range.begin;  // 'source'
    auto name = expect_ident("after 'source'");
    if (!name || !expect(TokenKind::Colon, "after the source name")) return std::nullopt;
    auto domain = expect_ident("of the source's Domain after ':'");
    if (!domain || !expect(TokenKind::Equal, "after the source's Domain")) return std::nullopt;
    auto op = op_ref("after '='");
    if (!op) return std::nullopt;
    auto opts = options();
    if (!opts) return std::nullopt;
    return ast::Source{*name, *domain, std::move(*op), std::move(*opts), from(begin)};
}

std::optional<ast::Sink> Parser::sink() {
    std::uint32_t begin = advance().range.begin;  // 'sink'
    bool parenthesized = false;
    auto ins = inputs(parenthesized);
    if (!ins || !expect(TokenKind::Arrow, "after the sink's input")) return std::nullopt;
    auto op = op_ref("after '->'");
    if (!op) return std::nullopt;
    auto opts = options();
    if (!opts) return std::nullopt;
    return ast::Sink{std::move(*ins), std::move(*op), std::move(*opts), from(begin)};
}

// `pool NAME`: no stage starts with two names, so the word needs no reserving (a stream may be
// called `pool`: `pool = map ...`).
bool Parser::at_pool() const {
    return at(TokenKind::Ident) && cur().text == "pool" && peek(1).kind == TokenKind::Ident;
}

std::optional<ast::Pool> Parser::pool() {
    const SourceRange keyword = advance().range;  // 'pool'
    auto name = expect_ident("after 'pool'");     // at_pool() saw it
    if (!name ||
        !expect(TokenKind::Equal, "after the pool's name, as in 'pool vlm = my.Model()'")) {
        return std::nullopt;
    }
    auto op = op_ref("after '='");
    if (!op) return std::nullopt;
    auto opts = options();
    if (!opts) return std::nullopt;
    return ast::Pool{*name, std::move(*op), std::move(*opts), keyword, from(keyword.begin)};
}

std::optional<ast::Stage> Parser::stage() {
    std::uint32_t begin = cur().range.begin;
    ast::Stage node;
    if (accept(TokenKind::LParen)) {
        do {
            auto out = expect_ident("of an output in '(a, b) = ...'");
            if (!out) return std::nullopt;
            node.outputs.push_back(*out);
        } while (accept(TokenKind::Comma));
        if (!expect(TokenKind::RParen, "after the outputs")) return std::nullopt;
    } else {
        const Token& name = advance();  // statement() saw an identifier
        node.outputs.push_back({std::string(name.text), name.range});
    }
    if (!expect(TokenKind::Equal, "after the stage's output name")) return std::nullopt;
    if (!stage_body(node)) return std::nullopt;
    node.range = from(begin);
    return node;
}

bool Parser::stage_body(ast::Stage& node) {
    switch (cur().kind) {
        case TokenKind::KwMap: node.kind = ast::StageKind::Map; break;
        case TokenKind::KwFilter: node.kind = ast::StageKind::Filter; break;
        case TokenKind::KwExpand: node.kind = ast::StageKind::Expand; break;
        case TokenKind::KwBroadcast: node.kind = ast::StageKind::Broadcast; break;
        case TokenKind::KwReduce: node.kind = ast::StageKind::Reduce; break;
        default:
            error_expected("'map', 'filter', 'expand', 'broadcast' or 'reduce' after '='");
            return false;
    }
    node.kind_range = advance().range;
    auto ins = inputs(node.parenthesized_inputs);
    if (!ins) return false;
    node.inputs = std::move(*ins);

    using Kind = ast::StageKind;
    if (node.kind == Kind::Expand) {
        if (!expect(TokenKind::KwAs, "after expand's input, as in 'expand docs as Page with f'")) {
            return false;
        }
        node.domain = expect_ident("of the new Domain after 'as'");
        if (!node.domain) return false;
    } else if (node.kind == Kind::Broadcast || node.kind == Kind::Reduce) {
        const char* context = node.kind == Kind::Broadcast
                                  ? "after broadcast's input, as in 'broadcast title to Page'"
                                  : "after reduce's input, as in 'reduce pages to Doc'";
        if (!expect(TokenKind::KwTo, context)) return false;
        node.domain = expect_ident("of the target Domain after 'to'");
        if (!node.domain) return false;
    }

    bool needs_op =
        node.kind == Kind::Map || node.kind == Kind::Filter || node.kind == Kind::Expand;
    bool takes_op = node.kind != Kind::Broadcast;
    if (needs_op || (takes_op && at(TokenKind::KwWith))) {
        if (!expect(TokenKind::KwWith, "before the stage's operator")) return false;
        node.op = op_ref("after 'with'");
        if (!node.op) return false;
    }
    auto opts = options();
    if (!opts) return false;
    node.options = std::move(*opts);
    return true;
}

std::optional<std::vector<ast::InputRef>> Parser::inputs(bool& parenthesized) {
    std::vector<ast::InputRef> refs;
    parenthesized = accept(TokenKind::LParen);
    do {
        auto ref = input_ref();
        if (!ref) return std::nullopt;
        refs.push_back(std::move(*ref));
    } while (parenthesized && accept(TokenKind::Comma));
    if (parenthesized && !expect(TokenKind::RParen, "after the inputs")) return std::nullopt;
    return refs;
}

std::optional<ast::InputRef> Parser::input_ref() {
    auto name = expect_ident("of an input stream");
    if (!name) return std::nullopt;
    bool optional = accept(TokenKind::Question);
    return ast::InputRef{*name, optional, from(name->range.begin)};
}

}  // namespace detail
}  // namespace rop
