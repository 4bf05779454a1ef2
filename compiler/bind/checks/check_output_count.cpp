#include "bind/checks/check_output_count.h"

#include <string>

namespace rop::bind {

bool check_output_count(BindContext& ctx, const sema::Call& call, const UdfDecl& decl,
                        const Binding& binding) {
    if (call.kind == sema::CallKind::Sink || call.kind == sema::CallKind::Filter) return true;
    if (binding.outputs.size() == call.outputs.size()) return true;
    std::string message =
        call.outputs.size() > 1
            ? "the Call defines " + std::to_string(call.outputs.size()) + " outputs but " +
                  in_quotes(decl.qualified_name) + " returns " +
                  (binding.multi_output
                       ? "a std::tuple of " + std::to_string(binding.outputs.size()) + " values"
                       : "one value") +
                  "; a multi-output Call returns a std::tuple with one element per output"
            : in_quotes(decl.qualified_name) + " returns a std::tuple of " +
                  std::to_string(binding.outputs.size()) +
                  " values, one per output port, but the Call defines one output; name "
                  "them: (a, b) = ...";
    Diagnostic& d = ctx.diags.report(DiagId::UdfShapeMismatch, call.op->name_range, message);
    d.notes.push_back(ctx.notes.at(decl.result_location, "declared here"));
    return false;
}

}  // namespace rop::bind
