#include "lsp/symbols.h"

#include <variant>

namespace rop::lsp {

namespace {

class Indexer {
  public:
    explicit Indexer(SymbolIndex& out) : out_(out) {}

    void add(SymbolKind kind, const ast::Ident& ident, bool definition = false) {
        if (ident.name.empty()) return;
        out_.occurrences.push_back({kind, ident.name, ident.range, definition});
    }

    void op(const ast::OpRef& ref) {
        if (!ref.name.parts.empty()) {
            out_.occurrences.push_back({SymbolKind::Operator, ref.name.str(), ref.name.range});
        }
    }

    void options(const std::vector<ast::Option>& options) {
        for (const ast::Option& option : options) add(SymbolKind::Option, option.name);
    }

    void inputs(const std::vector<ast::InputRef>& inputs) {
        for (const ast::InputRef& input : inputs) add(SymbolKind::Stream, input.name);
    }

    void operator()(const ast::Use& use) {
        out_.uses.push_back(use);
        out_.occurrences.push_back({SymbolKind::UsePath, use.path, use.range});
    }

    void operator()(const ast::Source& source) {
        add(SymbolKind::Stream, source.name, true);
        add(SymbolKind::Domain, source.domain, true);
        op(source.op);
        options(source.options);
    }

    void operator()(const ast::Stage& stage) {
        for (const ast::Ident& output : stage.outputs) add(SymbolKind::Stream, output, true);
        inputs(stage.inputs);
        if (stage.domain) {
            add(SymbolKind::Domain, *stage.domain, stage.kind == ast::StageKind::Expand);
        }
        if (stage.op) op(*stage.op);
        options(stage.options);
    }

    // A pool's name is not indexed as a symbol of its own: the operator and options are, and
    // the pool is listed for the operators of its Calls (`vlm.layout`).
    void operator()(const ast::Pool& pool) {
        out_.pools.push_back({pool.name.name, pool.op.name.str()});
        op(pool.op);
        options(pool.options);
    }

    void operator()(const ast::Sink& sink) {
        inputs(sink.inputs);
        op(sink.op);
        options(sink.options);
    }

  private:
    SymbolIndex& out_;
};

bool holds(SourceRange range, std::uint32_t offset) {
    return range.begin <= offset && offset <= range.end;
}

}  // namespace

const Occurrence* SymbolIndex::at(std::uint32_t offset) const {
    const Occurrence* best = nullptr;
    for (const Occurrence& occurrence : occurrences) {
        if (!holds(occurrence.range, offset)) continue;
        const auto size = [](const Occurrence& o) { return o.range.end - o.range.begin; };
        if (best == nullptr || size(occurrence) < size(*best)) best = &occurrence;
    }
    return best;
}

const Occurrence* SymbolIndex::definition(SymbolKind kind, std::string_view name) const {
    for (const Occurrence& occurrence : occurrences) {
        if (occurrence.definition && occurrence.kind == kind && occurrence.name == name) {
            return &occurrence;
        }
    }
    return nullptr;
}

SymbolIndex index_symbols(const ast::Program& program) {
    SymbolIndex index;
    Indexer indexer(index);
    for (const ast::Statement& statement : program.statements) std::visit(indexer, statement);
    return index;
}

}  // namespace rop::lsp
