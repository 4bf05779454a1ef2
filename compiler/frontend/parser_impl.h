// The parser's worker class, shared by parser.cpp (statements) and parse_operands.cpp (operator
// references, arguments, options, values). Private to rop::frontend.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "frontend/token.h"
#include "support/diagnostics.h"

namespace rop::detail {

class Parser {
  public:
    Parser(FileId file, const SourceManager& sources, std::vector<Token> tokens,
           DiagnosticEngine& diags)
        : file_(file), sources_(sources), tokens_(std::move(tokens)), diags_(diags) {}

    ast::Program run();

  private:
    // ---- token cursor (the Eof token is never consumed, so peeking is always safe) ----
    const Token& cur() const { return tokens_[pos_]; }
    const Token& peek(std::size_t ahead) const;
    bool at(TokenKind kind) const { return cur().kind == kind; }
    const Token& advance();
    bool accept(TokenKind kind);
    std::uint32_t prev_end() const { return pos_ == 0 ? 0 : tokens_[pos_ - 1].range.end; }
    SourceRange from(std::uint32_t begin) const { return {file_, begin, prev_end()}; }

    // ---- errors and recovery ----
    // Where "found X" points: the current token, or just after the previous one at end of file.
    SourceRange found_range() const;
    // Reports "expected <what>, found <current token>" at the current token.
    Diagnostic& error_expected(const std::string& what);
    bool expect(TokenKind kind, const char* context);
    std::optional<ast::Ident> expect_ident(const char* context);
    bool first_on_line() const;
    bool at_statement_start() const;
    void synchronize();

    // ---- statements (parser.cpp) ----
    void statement(ast::Program& program);
    void statement_body(ast::Program& program);
    void header(ast::Program& program);
    std::optional<ast::Use> use();
    std::optional<ast::Source> source();
    std::optional<ast::Sink> sink();
    bool at_pool() const;
    std::optional<ast::Pool> pool();
    std::optional<ast::Stage> stage();
    bool stage_body(ast::Stage& stage);
    std::optional<std::vector<ast::InputRef>> inputs(bool& parenthesized);
    std::optional<ast::InputRef> input_ref();
    // Consumes the terminating ';'. A missing one before the start of the next statement keeps
    // the statement (with a fix-it); anything else drops it and skips ahead.
    bool end_statement();
    void missing_header();

    // ---- operands (parse_operands.cpp) ----
    std::optional<ast::QualifiedName> qualified_name(const char* context);
    std::optional<ast::OpRef> op_ref(const char* context);
    std::optional<ast::Argument> argument();
    std::optional<std::vector<ast::Option>> options();
    std::optional<ast::Value> value(const std::string& context, int depth = 0);
    std::optional<ast::Value> list(int depth);
    void skip_nested_list();

    FileId file_;
    const SourceManager& sources_;
    std::vector<Token> tokens_;
    DiagnosticEngine& diags_;
    std::size_t pos_ = 0;
    std::optional<SourceRange> first_statement_;  // for "header not first"
    bool saw_header_ = false;
};

}  // namespace rop::detail
