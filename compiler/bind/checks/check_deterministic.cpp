#include "bind/checks/check_deterministic.h"

#include <algorithm>

namespace rop::bind {

void check_deterministic(BindContext& ctx, const sema::Call& call, const UdfDecl& decl) {
    if (!ctx.options.lint || decl.nondeterminism.empty()) return;
    if (std::find(ctx.linted.begin(), ctx.linted.end(), &decl) != ctx.linted.end()) return;
    ctx.linted.push_back(&decl);
    for (const NondeterminismFinding& finding : decl.nondeterminism) {
        std::string message = "UDF " + in_quotes(rop_name(decl.qualified_name)) +
                              " may be nondeterministic: it uses " + finding.what;
        if (!finding.via.empty()) {
            message += " (in " + in_quotes(finding.via) + ", which it calls)";
        }
        Diagnostic& d = ctx.diags.report(DiagId::NondeterministicUdf, call.op->name_range, message);
        d.notes.push_back(ctx.notes.at(finding.location, "used here"));
        d.notes.push_back({std::nullopt,
                           "rop's output is reproducible only when UDFs are deterministic; "
                           "seed random engines, pass times in as items, sort before iterating"});
    }
}

}  // namespace rop::bind
