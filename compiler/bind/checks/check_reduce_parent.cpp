#include "bind/checks/check_reduce_parent.h"

#include <algorithm>

#include "bind/types.h"

namespace rop::bind {

void check_reduce_parent(BindContext& ctx, const sema::Call& call, const UdfDecl& decl,
                         const Binding& binding) {
    if (call.kind != sema::CallKind::Reduce || !binding.parent || !binding.parent_param) return;
    const sema::CheckedProgram& program = ctx.program;
    const sema::Call* expand = nullptr;
    for (const sema::ExpandReducePair& pair : program.expand_reduce) {
        if (std::find(pair.reduces.begin(), pair.reduces.end(), call.id) != pair.reduces.end()) {
            expand = &program.calls[pair.expand];
        }
    }
    if (!expand || expand->inputs.empty()) return;
    const sema::PortId port = expand->inputs.front().port;
    const std::optional<CxxType>& parent = ctx.port_types[port];
    if (!parent || flows(*parent, *binding.parent)) return;
    const UdfParam& param = decl.params[*binding.parent_param];
    Diagnostic& d =
        ctx.diags.report(DiagId::ItemTypeMismatch, call.op->name_range,
                         "the parent of " + in_quotes(rop_name(decl.qualified_name)) +
                             " has the wrong type: " + describe_mismatch(*binding.parent, *parent) +
                             " (a parent is an item of " + in_quotes(program.ports[port].name) +
                             ", the stream its children were split from)");
    d.notes.push_back({expand->op ? expand->op->name_range : expand->range,
                       "the expand that opens the children's Domain splits " +
                           in_quotes(program.ports[port].name) + ", of type " +
                           in_quotes(display_name(*parent))});
    d.notes.push_back(ctx.notes.at(param.location, in_quotes(decl.qualified_name) + " takes " +
                                                       in_quotes(param.type.spelling) + " here"));
}

}  // namespace rop::bind
