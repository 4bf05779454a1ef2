#include "sema/check_duplicate_inputs.h"

#include <string>
#include <string_view>
#include <unordered_map>

#include "sema/resolution.h"

namespace rop::sema {

void check_duplicate_inputs(const ast::Program& program, DiagnosticEngine& diags) {
    std::unordered_map<std::string_view, const ast::InputRef*> seen;
    for (const ast::Statement& statement : program.statements) {
        const std::vector<ast::InputRef>* inputs = statement_inputs(statement);
        if (inputs == nullptr || inputs->size() < 2) continue;
        seen.clear();
        for (const ast::InputRef& input : *inputs) {
            const auto [it, inserted] = seen.try_emplace(input.name.name, &input);
            if (inserted) continue;
            Diagnostic& d = diags.report(DiagId::DuplicateInput, input.range,
                                         "'" + input.name.name + "' is given twice as input");
            d.notes.push_back({it->second->range, "first given here"});
            d.notes.push_back({std::nullopt,
                               "each input is one argument of the operator; pass "
                               "the stream once"});
        }
    }
}

}  // namespace rop::sema
