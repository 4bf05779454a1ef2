#include "bind/checks/check_input_types.h"

#include "bind/types.h"

namespace rop::bind {

void check_input_types(BindContext& ctx, const sema::Call& call, const UdfDecl& decl,
                       const Binding& binding) {
    for (std::size_t i = 0; i < call.inputs.size() && i < binding.inputs.size(); ++i) {
        const sema::PortId port = call.inputs[i].port;
        const std::optional<CxxType>& got = ctx.port_types[port];
        const CxxType& want = binding.inputs[i].item;
        if (!got || flows(*got, want)) continue;
        const std::string& name = ctx.program.ports[port].name;
        Diagnostic& d = ctx.diags.report(
            DiagId::ItemTypeMismatch, call.inputs[i].range,
            "input " + in_quotes(name) + " of " + in_quotes(rop_name(decl.qualified_name)) +
                " has the wrong item type: " + describe_mismatch(want, *got));
        d.notes.push_back({producer_range(ctx, port), in_quotes(name) + " is produced here, as " +
                                                          in_quotes(display_name(*got))});
        if (const UdfParam* param = input_param(decl, binding, i)) {
            d.notes.push_back(
                ctx.notes.at(param->location, in_quotes(decl.qualified_name) + " takes " +
                                                  in_quotes(param->type.spelling) + " here"));
        }
    }
}

}  // namespace rop::bind
