#include "bind/checks/check_pool_method.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rop/vocab/suggest.h"

namespace rop::bind {
namespace {

// Just the method of `vlm.layout`: the name's last identifier (ASCII, so bytes are columns).
SourceRange method_range(const sema::Call& call) {
    SourceRange range = call.op->name_range;
    range.begin = range.end - static_cast<std::uint32_t>(call.method.size());
    return range;
}

void report_unknown(BindContext& ctx, const sema::Call& call, const sema::Pool& pool,
                    const UdfDecl& decl) {
    std::vector<std::string_view> names;
    for (const UdfMethod& method : decl.methods) names.push_back(method.name);
    const std::optional<std::string_view> guess = vocab::closest(call.method, names);
    std::string message = "class " + in_quotes(decl.qualified_name) + " of pool '" + pool.name +
                          "' has no public method " + in_quotes(call.method);
    if (guess) message += "; did you mean " + in_quotes(*guess) + "?";
    Diagnostic& d = ctx.diags.report(DiagId::UnknownPoolMethod, method_range(call), message);
    if (guess) d.fixit = FixIt{method_range(call), std::string(*guess)};
    d.notes.push_back(
        ctx.notes.at(decl.location, in_quotes(decl.qualified_name) + " is declared here"));
    if (names.empty()) {
        d.notes.push_back({std::nullopt, "it declares no public, non-static method with a name"});
    }
}

}  // namespace

const UdfDecl* check_pool_method(BindContext& ctx, const sema::Call& call) {
    const UdfDecl* cls = ctx.out.pools[*call.pool].decl;
    if (cls == nullptr) return nullptr;  // the pool's own error was reported
    const sema::Pool& pool = ctx.program.pools[*call.pool];
    std::vector<const UdfMethod*> found;
    for (const UdfMethod& method : cls->methods) {
        if (method.name == call.method) found.push_back(&method);
    }
    if (found.empty()) {
        report_unknown(ctx, call, pool, *cls);
        return nullptr;
    }
    const std::string qualified = cls->qualified_name + "::" + call.method;
    if (found.size() > 1) {
        Diagnostic& d =
            ctx.diags.report(DiagId::UdfShapeMismatch, method_range(call),
                             in_quotes(qualified) + " has " + std::to_string(found.size()) +
                                 " public overloads; rop binds exactly one");
        for (const UdfMethod* method : found) {
            d.notes.push_back(ctx.notes.at(method->location, "candidate declared here"));
        }
        return nullptr;
    }
    for (const std::unique_ptr<UdfDecl>& known : ctx.out.pool_methods) {
        if (known->qualified_name == qualified) return known.get();
    }
    // The method as a function UDF: its parameters after the inputs are the Call's named
    // arguments. What the lint found reading the class stands for each of its methods.
    const UdfMethod& method = *found.front();
    auto decl = std::make_unique<UdfDecl>();
    decl->qualified_name = qualified;
    decl->name = call.method;
    decl->params = method.params;
    decl->result = method.result;
    decl->location = method.location;
    decl->result_location = method.result_location;
    decl->template_location = cls->template_location;
    decl->has_body = cls->has_body;
    decl->nondeterminism = cls->nondeterminism;
    ctx.out.pool_methods.push_back(std::move(decl));
    return ctx.out.pool_methods.back().get();
}

}  // namespace rop::bind
