#include "bind/checks/check_udf_shape.h"

#include <string>

namespace rop::bind {
namespace {

DiagId shape_error(Primitive primitive) {
    if (primitive == Primitive::Source) return DiagId::NotASource;
    if (primitive == Primitive::Sink) return DiagId::NotASink;
    return DiagId::UdfShapeMismatch;
}

bool inputs_flow(const BindContext& ctx, const sema::Call& call, const Binding& binding) {
    for (std::size_t i = 0; i < call.inputs.size() && i < binding.inputs.size(); ++i) {
        const std::optional<CxxType>& got = ctx.port_types[call.inputs[i].port];
        if (got && !flows(*got, binding.inputs[i].item)) return false;
    }
    return true;
}

// "'f' would fit a filter": the usual mistake is the wrong primitive, not the wrong UDF.
void add_fits_note(Diagnostic& d, const UdfDecl& decl, Primitive primitive) {
    if (primitive == Primitive::Source || primitive == Primitive::Sink) {
        for (Primitive other : {Primitive::Source, Primitive::Sink}) {
            if (other != primitive && classify(decl, other, 1).ok()) {
                d.notes.push_back({std::nullopt, in_quotes(rop_name(decl.qualified_name)) +
                                                     " is a " + std::string(to_string(other)) +
                                                     " class"});
            }
        }
        return;
    }
    std::string fits;
    for (Primitive other : candidate_primitives(decl)) {
        if (other == primitive) continue;
        fits += (fits.empty() ? "" : ", ") + std::string(to_string(other));
    }
    if (!fits.empty()) {
        d.notes.push_back({std::nullopt, in_quotes(rop_name(decl.qualified_name)) +
                                             " has the shape of a UDF for: " + fits});
    }
}

void report_shape(BindContext& ctx, const sema::Call& call, Primitive primitive,
                  const std::vector<const UdfDecl*>& decls,
                  const std::vector<Classification>& results) {
    const sema::OpRef& op = *call.op;
    const DiagId id = shape_error(primitive);
    if (decls.size() == 1) {
        Diagnostic& d = ctx.diags.report(id, op.name_range, results[0].reason);
        d.notes.push_back(ctx.notes.at(results[0].note, "declared here"));
        add_fits_note(d, *decls[0], primitive);
        return;
    }
    std::string message = "no overload of " + in_quotes(decls[0]->qualified_name) + " fits " +
                          (primitive == Primitive::Source || primitive == Primitive::Sink
                               ? "a " + std::string(to_string(primitive))
                               : "a " + std::string(to_string(primitive)) + " with " +
                                     std::to_string(call.inputs.size()) + " input" +
                                     (call.inputs.size() == 1 ? "" : "s"));
    Diagnostic& d = ctx.diags.report(id, op.name_range, message);
    for (const Classification& result : results) {
        d.notes.push_back(ctx.notes.at(result.note, "candidate: " + result.reason));
    }
}

}  // namespace

std::optional<Binding> check_udf_shape(BindContext& ctx, const sema::Call& call,
                                       Primitive primitive,
                                       const std::vector<const UdfDecl*>& decls,
                                       const UdfDecl*& chosen) {
    const std::size_t inputs = primitive == Primitive::Source ? 0 : call.inputs.size();
    std::vector<Classification> results;
    std::optional<std::size_t> first_fit;
    for (std::size_t i = 0; i < decls.size(); ++i) {
        results.push_back(classify(*decls[i], primitive, inputs));
        if (!results.back().ok()) continue;
        if (!first_fit) first_fit = i;
        if (inputs_flow(ctx, call, *results.back().binding)) {
            chosen = decls[i];
            return results.back().binding;
        }
    }
    if (first_fit) {
        chosen = decls[*first_fit];
        return results[*first_fit].binding;
    }
    report_shape(ctx, call, primitive, decls, results);
    return std::nullopt;
}

}  // namespace rop::bind
