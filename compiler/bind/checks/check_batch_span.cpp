#include "bind/checks/check_batch_span.h"

#include <string>

#include "bind/types.h"

namespace rop::bind {

bool check_batch_span(BindContext& ctx, const sema::Call& call, const UdfDecl& decl,
                      const Binding& binding) {
    if (binding.shape != Shape::ElementMap && binding.shape != Shape::ElementFilter) return true;
    for (std::size_t i = 0; i < call.inputs.size() && i < binding.inputs.size(); ++i) {
        const std::optional<CxxType>& got = ctx.port_types[call.inputs[i].port];
        const CxxType& want = binding.inputs[i].item;
        if (!got || flows(*got, want) || want.form != TypeForm::Vector || want.args.empty() ||
            !flows(*got, want.args[0])) {
            continue;
        }
        const UdfParam* param = input_param(decl, binding, i);
        const std::string span = "std::span<const " + display_name(want.args[0]) + ">";
        const std::string& name = ctx.program.ports[call.inputs[i].port].name;
        Diagnostic& d =
            ctx.diags.report(DiagId::UdfShapeMismatch, call.op->name_range,
                             "batch UDFs take std::span<const T>, not a vector: " +
                                 in_quotes(rop_name(decl.qualified_name)) + " takes " +
                                 in_quotes(param ? param->type.spelling : display_name(want)) +
                                 " but the items of " + in_quotes(name) + " are " +
                                 in_quotes(display_name(*got)) + "; take " + in_quotes(span));
        if (param) {
            d.notes.push_back(ctx.notes.at(param->location, "take " + in_quotes(span) + " here"));
        }
        return false;
    }
    return true;
}

}  // namespace rop::bind
