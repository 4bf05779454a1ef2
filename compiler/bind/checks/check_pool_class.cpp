#include "bind/checks/check_pool_class.h"

#include <string>
#include <vector>

#include "bind/checks/check_call_arguments.h"
#include "bind/checks/check_udf_known.h"
#include "bind/classify.h"

namespace rop::bind {

std::optional<Binding> check_pool_class(BindContext& ctx, const sema::Pool& pool,
                                        const UdfDecl*& chosen) {
    const sema::OpRef& op = pool.op;
    const UdfDecl* decl = ctx.out.library.find_class(op.name);
    if (decl == nullptr) {
        const std::vector<const UdfDecl*> decls = ctx.out.library.find_all(op.name);
        if (!check_udf_known(ctx, op, decls)) return std::nullopt;
        Diagnostic& d = ctx.diags.report(
            DiagId::PoolNotAClass, op.name_range,
            "pool '" + pool.name + "' is built from " + in_quotes(op.name) +
                ", a function; each actor of a pool holds one instance of a UDF class");
        d.notes.push_back(ctx.notes.at(decls.front()->location, "declared here"));
        d.notes.push_back({std::nullopt,
                           "declare a class whose public methods the pool's Calls "
                           "call ('with " +
                               pool.name + ".METHOD(...)')"});
        return std::nullopt;
    }
    if (decl->constructor_count > 1) {
        Diagnostic& d =
            ctx.diags.report(DiagId::PoolNotAClass, op.name_range,
                             "class " + in_quotes(decl->qualified_name) + " has " +
                                 std::to_string(decl->constructor_count) +
                                 " public constructors; rop passes the pool's named arguments "
                                 "to exactly one");
        d.notes.push_back(ctx.notes.at(decl->location, "declared here"));
        return std::nullopt;
    }
    // The constructor's parameters are the pool's named arguments, as a class UDF's are.
    Binding binding;
    binding.is_class = true;
    for (std::size_t i = 0; i < decl->ctor_params.size(); ++i) {
        const UdfParam& param = decl->ctor_params[i];
        if (param.name.empty()) {
            Diagnostic& d = ctx.diags.report(
                DiagId::PoolNotAClass, op.name_range,
                "the " + ordinal(i) + " parameter of the constructor of " +
                    in_quotes(decl->qualified_name) +
                    " has no name; name it so the pool can pass it as a named argument");
            d.notes.push_back(ctx.notes.at(param.location, "declared here"));
            return std::nullopt;
        }
        binding.named.push_back(param);
    }
    check_op_arguments(ctx, op, *decl, binding);
    chosen = decl;
    return binding;
}

}  // namespace rop::bind
