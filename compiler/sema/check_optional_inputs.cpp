#include "sema/check_optional_inputs.h"

#include <algorithm>
#include <string>

namespace rop::sema {

namespace {

void report_not_allowed(const ast::InputRef& input, const std::string& why,
                        DiagnosticEngine& diags) {
    Diagnostic& d = diags.report(DiagId::OptionalInputNotAllowed, input.range,
                                 "optional input '" + input.name.name + "?' " + why);
    d.notes.push_back({std::nullopt,
                       "`?` only matters on a map with several inputs: there a "
                       "dropped optional input reaches the UDF as missing"});
    d.fixit = FixIt{input.range, input.name.name};
}

void check_inputs(const std::vector<ast::InputRef>& inputs, const std::string& where,
                  bool may_be_optional, DiagnosticEngine& diags) {
    if (!may_be_optional) {
        for (const ast::InputRef& input : inputs) {
            if (input.optional) report_not_allowed(input, where, diags);
        }
        return;
    }
    const bool all_optional = std::all_of(inputs.begin(), inputs.end(),
                                          [](const ast::InputRef& in) { return in.optional; });
    if (!all_optional) return;
    Diagnostic& d = diags.report(DiagId::AllInputsOptional,
                                 SourceRange::join(inputs.front().range, inputs.back().range),
                                 "every input of this map is optional");
    d.notes.push_back({std::nullopt,
                       "the required inputs decide which items exist and when "
                       "they are dropped; make at least one input required"});
    d.fixit = FixIt{inputs.front().range, inputs.front().name.name};
}

}  // namespace

void check_optional_inputs(const ast::Program& program, DiagnosticEngine& diags) {
    for (const ast::Statement& statement : program.statements) {
        if (const auto* sink = std::get_if<ast::Sink>(&statement)) {
            check_inputs(sink->inputs, "on a sink: a sink writes what it is given", false, diags);
            continue;
        }
        const auto* stage = std::get_if<ast::Stage>(&statement);
        if (stage == nullptr || stage->inputs.empty()) continue;
        const std::string kind = ast::to_string(stage->kind);
        if (stage->kind != ast::StageKind::Map) {
            check_inputs(stage->inputs, "on " + kind + ", which has a single input", false, diags);
        } else if (stage->inputs.size() == 1) {
            check_inputs(stage->inputs, "on a map with a single input", false, diags);
        } else {
            check_inputs(stage->inputs, "", true, diags);
        }
    }
}

}  // namespace rop::sema
