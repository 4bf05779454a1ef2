#include "bind/checks/check_udf_known.h"

namespace rop::bind {

bool check_udf_known(BindContext& ctx, const sema::OpRef& op,
                     const std::vector<const UdfDecl*>& decls) {
    if (!decls.empty()) return true;
    // Every name of a header that could not be found (or read to its end) would be unknown:
    // say it once.
    if ((ctx.missing_header || ctx.headers_stopped) && op.name.rfind("std.", 0) != 0) {
        return false;
    }
    std::vector<std::string> close = ctx.out.library.suggestions(op.name);
    std::string message = "unknown UDF " + in_quotes(op.name);
    if (!close.empty()) message += "; did you mean " + in_quotes(close.front()) + "?";
    Diagnostic& d = ctx.diags.report(DiagId::UnknownUdf, op.name_range, message);
    if (!close.empty()) {
        d.fixit = FixIt{op.name_range, close.front()};
        for (std::size_t i = 1; i < close.size(); ++i) {
            d.notes.push_back({std::nullopt, "or " + in_quotes(close[i]) + "?"});
        }
        return false;
    }
    if (op.name.rfind("std.", 0) == 0) {
        d.notes.push_back({std::nullopt, "the standard library (rop/stdlib/*.h) declares no " +
                                             in_quotes(op.name)});
    } else {
        d.notes.push_back(
            {std::nullopt, ctx.program.uses.empty()
                               ? "the pipeline has no `use` header; declare the UDF in one"
                               : "none of the pipeline's `use` headers declares it"});
    }
    return false;
}

}  // namespace rop::bind
