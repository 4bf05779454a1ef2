#include "sema/check_stage_shape.h"

#include <string>

namespace rop::sema {

namespace {

bool single_input(ast::StageKind kind) { return kind != ast::StageKind::Map; }

// A map, and a reduce whose UDF returns a std::tuple, publish one stream per tuple element.
bool may_have_several_outputs(const ast::Stage& stage) {
    return stage.kind == ast::StageKind::Map ||
           (stage.kind == ast::StageKind::Reduce && stage.op.has_value());
}

void check_stage(const ast::Stage& stage, DiagnosticEngine& diags) {
    const std::string kind = ast::to_string(stage.kind);
    if (single_input(stage.kind) && stage.inputs.size() != 1) {
        const SourceRange at = stage.inputs.empty() ? stage.kind_range
                                                    : SourceRange::join(stage.inputs.front().range,
                                                                        stage.inputs.back().range);
        Diagnostic& d = diags.report(
            DiagId::WrongInputCount, at,
            kind + " takes exactly one input, found " + std::to_string(stage.inputs.size()));
        d.notes.push_back({std::nullopt,
                           "only map combines several inputs (zipped by item "
                           "identity); map them into one stream first"});
    }
    if (!may_have_several_outputs(stage) && stage.outputs.size() > 1) {
        const bool plain_reduce = stage.kind == ast::StageKind::Reduce;
        Diagnostic& d = diags.report(
            DiagId::WrongOutputCount,
            SourceRange::join(stage.outputs.front().range, stage.outputs.back().range),
            (plain_reduce ? std::string("a reduce without a UDF") : kind) +
                " defines exactly one stream, found " + std::to_string(stage.outputs.size()));
        // A plain reduce publishes one rop::ReduceGroup; only a UDF's std::tuple has elements
        // to spread over several streams.
        d.notes.push_back(
            {std::nullopt, plain_reduce
                               ? "a reduce has several outputs only when its UDF returns a "
                                 "std::tuple: add 'with f', or reduce once and map the group"
                               : "only map and a reduce with a UDF may define several outputs "
                                 "(a multi-output Call); map the result of this " +
                                     kind + " instead"});
    }
}

}  // namespace

void check_stage_shape(const ast::Program& program, DiagnosticEngine& diags) {
    for (const ast::Statement& statement : program.statements) {
        if (const auto* stage = std::get_if<ast::Stage>(&statement)) check_stage(*stage, diags);
    }
}

}  // namespace rop::sema
