#include "bind/checks/check_optional_inputs.h"

#include "bind/types.h"

namespace rop::bind {

bool check_optional_inputs(BindContext& ctx, const sema::Call& call, const UdfDecl& decl,
                           const Binding& binding) {
    bool ok = true;
    for (std::size_t i = 0; i < call.inputs.size() && i < binding.inputs.size(); ++i) {
        if (!call.inputs[i].optional || binding.inputs[i].missing != Missing::NotAccepted) {
            continue;
        }
        const UdfParam* param = input_param(decl, binding, i);
        const std::string& name = ctx.program.ports[call.inputs[i].port].name;
        Diagnostic& d = ctx.diags.report(
            DiagId::UdfShapeMismatch, call.inputs[i].range,
            "input " + in_quotes(name + "?") + " is optional but " +
                in_quotes(decl.qualified_name) + " takes it as " +
                in_quotes(param ? param->type.spelling : display_name(binding.inputs[i].item)) +
                ", which cannot be missing; take 'std::optional<T>' or 'const T*'");
        if (param) d.notes.push_back(ctx.notes.at(param->location, "declared here"));
        ok = false;
    }
    return ok;
}

}  // namespace rop::bind
