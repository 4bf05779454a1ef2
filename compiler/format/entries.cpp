// Places every comment: after a statement's ';' on its line (trailing), inside a statement
// (after an argument, or moved before the statement), or on a line of its own.
#include "format/entries.h"

#include <algorithm>
#include <variant>

namespace rop::format::detail {

namespace {

const ast::OpRef* op_of(const ast::Statement& statement) {
    if (const auto* source = std::get_if<ast::Source>(&statement)) return &source->op;
    if (const auto* sink = std::get_if<ast::Sink>(&statement)) return &sink->op;
    if (const auto* pool = std::get_if<ast::Pool>(&statement)) return &pool->op;
    if (const auto* stage = std::get_if<ast::Stage>(&statement)) {
        return stage->op ? &*stage->op : nullptr;
    }
    return nullptr;
}

SourceRange range_of(const ast::Statement& statement) {
    return std::visit([](const auto& node) { return node.range; }, statement);
}

// A statement (or the header) with its extent in the source.
struct Located {
    SourceRange range;      // as parsed: without the ';'
    std::uint32_t end = 0;  // after the ';'
    Entry entry;
};

class Placer {
  public:
    Placer(const std::vector<Token>& tokens, const SourceManager& sources, FileId file)
        : tokens_(tokens), sources_(sources), file_(file) {}

    // The first token that begins at or after `offset` (the Eof token at the latest).
    std::size_t token_at(std::uint32_t offset) const {
        auto it = std::lower_bound(
            tokens_.begin(), tokens_.end(), offset,
            [](const Token& token, std::uint32_t at) { return token.range.begin < at; });
        return static_cast<std::size_t>(std::min(it, tokens_.end() - 1) - tokens_.begin());
    }

    std::uint32_t line(std::uint32_t offset) const { return sources_.line_col(file_, offset).line; }

    // A statement or the header, from its first token to the end of its ';'.
    Located locate(SourceRange range) const {
        std::size_t semicolon = token_at(range.end);
        while (tokens_[semicolon].kind != TokenKind::Semicolon &&
               tokens_[semicolon].kind != TokenKind::Eof) {
            ++semicolon;
        }
        Located located{range, tokens_[semicolon].range.end, {}};
        located.entry.first_line = line(range.begin);
        located.entry.last_line = line(tokens_[semicolon].range.begin);
        return located;
    }

    // A comment inside `statement`: the argument it follows, if any.
    std::optional<std::size_t> argument_before(const ast::Statement& statement,
                                               SourceRange comment) const {
        const ast::OpRef* op = op_of(statement);
        if (!op || op->args.empty()) return std::nullopt;
        std::size_t after = token_at(comment.begin);
        if (after == 0) return std::nullopt;
        std::uint32_t before = tokens_[after - 1].range.begin;  // the token the comment follows
        std::size_t close = token_at(op->args.back().range.end);
        while (tokens_[close].kind != TokenKind::RParen && tokens_[close].kind != TokenKind::Eof) {
            ++close;
        }
        for (std::size_t i = 0; i < op->args.size(); ++i) {
            std::uint32_t end =
                i + 1 < op->args.size() ? op->args[i + 1].range.begin : tokens_[close].range.begin;
            if (before >= op->args[i].range.begin && before < end) return i;
        }
        return std::nullopt;
    }

  private:
    const std::vector<Token>& tokens_;
    const SourceManager& sources_;
    FileId file_;
};

}  // namespace

std::vector<Entry> entries(const ast::Program& program, const std::vector<Token>& tokens,
                           const std::vector<SourceRange>& comments, const SourceManager& sources) {
    Placer placer(tokens, sources, program.file);

    std::vector<Located> statements;
    if (program.header) {
        statements.push_back(placer.locate(program.header->range));
        statements.back().entry.header = &*program.header;
    }
    for (const ast::Statement& node : program.statements) {
        statements.push_back(placer.locate(range_of(node)));
        statements.back().entry.statement = &node;
        if (const ast::OpRef* op = op_of(node)) {
            statements.back().entry.arg_comments.resize(op->args.size());
        }
    }
    std::sort(statements.begin(), statements.end(),
              [](const Located& a, const Located& b) { return a.range.begin < b.range.begin; });

    std::vector<Entry> out;
    std::size_t next = 0;  // the first statement not yet in `out`
    for (const SourceRange& comment : comments) {
        while (next < statements.size() && statements[next].end <= comment.begin) {
            out.push_back(std::move(statements[next++].entry));
        }
        std::uint32_t line = placer.line(comment.begin);
        if (next < statements.size() && statements[next].range.begin < comment.begin) {
            Entry& inside = statements[next].entry;  // the comment is inside this statement
            std::optional<std::size_t> arg;
            if (inside.statement) arg = placer.argument_before(*inside.statement, comment);
            if (arg && !inside.arg_comments[*arg]) {
                inside.arg_comments[*arg] = comment;
            } else {
                inside.hoisted.push_back(comment);
            }
            continue;
        }
        if (!out.empty() && !out.back().comment && !out.back().trailing &&
            out.back().last_line == line) {
            out.back().trailing = comment;
            continue;
        }
        Entry own;
        own.comment = comment;
        own.first_line = own.last_line = line;
        out.push_back(std::move(own));
    }
    while (next < statements.size()) out.push_back(std::move(statements[next++].entry));

    // A comment after the last argument ends the statement's last line: it is the statement's
    // trailing comment (written after the ';'), or moves before it when there is one already.
    for (Entry& entry : out) {
        if (entry.arg_comments.empty() || !entry.arg_comments.back()) continue;
        if (!entry.trailing) {
            entry.trailing = entry.arg_comments.back();
        } else {
            entry.hoisted.push_back(*entry.arg_comments.back());
        }
        entry.arg_comments.back().reset();
    }
    return out;
}

}  // namespace rop::format::detail
