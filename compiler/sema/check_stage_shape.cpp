#include "sema/check_stage_shape.h"

#include <string>

namespace rop::sema {

namespace {

bool single_input(ast::StageKind kind) { return kind != ast::StageKind::Map; }

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
    if (stage.kind != ast::StageKind::Map && stage.outputs.size() > 1) {
        Diagnostic& d = diags.report(
            DiagId::WrongOutputCount,
            SourceRange::join(stage.outputs.front().range, stage.outputs.back().range),
            kind + " defines exactly one stream, found " + std::to_string(stage.outputs.size()));
        d.notes.push_back({std::nullopt,
                           "only map may define several outputs (a multi-output "
                           "Call); map the result of this " +
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
