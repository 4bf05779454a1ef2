#include "sema/resolution.h"

namespace rop::sema {

const std::vector<ast::InputRef>* statement_inputs(const ast::Statement& statement) {
    if (const auto* stage = std::get_if<ast::Stage>(&statement)) return &stage->inputs;
    if (const auto* sink = std::get_if<ast::Sink>(&statement)) return &sink->inputs;
    return nullptr;
}

std::vector<const ast::Ident*> statement_outputs(const ast::Statement& statement) {
    std::vector<const ast::Ident*> outputs;
    if (const auto* stage = std::get_if<ast::Stage>(&statement)) {
        for (const ast::Ident& output : stage->outputs) outputs.push_back(&output);
    } else if (const auto* source = std::get_if<ast::Source>(&statement)) {
        outputs.push_back(&source->name);
    }
    return outputs;
}

const ast::OpRef* statement_op(const ast::Statement& statement) {
    if (const auto* source = std::get_if<ast::Source>(&statement)) return &source->op;
    if (const auto* sink = std::get_if<ast::Sink>(&statement)) return &sink->op;
    if (const auto* pool = std::get_if<ast::Pool>(&statement)) return &pool->op;
    if (const auto* stage = std::get_if<ast::Stage>(&statement)) {
        return stage->op ? &*stage->op : nullptr;
    }
    return nullptr;
}

std::string statement_label(const ast::Statement& statement) {
    const std::vector<const ast::Ident*> outputs = statement_outputs(statement);
    if (!outputs.empty()) return "'" + outputs.front()->name + "'";
    if (std::holds_alternative<ast::Sink>(statement)) return "the sink";
    if (const auto* pool = std::get_if<ast::Pool>(&statement))
        return "pool '" + pool->name.name + "'";
    return "the statement";
}

}  // namespace rop::sema
