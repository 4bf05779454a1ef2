#include "bind/checks/check_call_arguments.h"

#include <string>
#include <string_view>
#include <vector>

#include "bind/named_arguments.h"

namespace rop::bind {
namespace {

ArgKind kind_of(const ast::Value& value) {
    switch (value.kind) {
        case ast::Value::Kind::String: return ArgKind::String;
        case ast::Value::Kind::Int: return ArgKind::Integer;
        case ast::Value::Kind::Float: return ArgKind::Float;
        case ast::Value::Kind::Bool: return ArgKind::Bool;
        case ast::Value::Kind::Duration: return ArgKind::Duration;
        case ast::Value::Kind::Ident: return ArgKind::Enum;
        case ast::Value::Kind::List: return ArgKind::List;
    }
    return ArgKind::Other;
}

void report_argument(BindContext& ctx, const sema::OpRef& op, const UdfDecl& decl,
                     const ArgumentProblem& problem) {
    switch (problem.kind) {
        case ArgumentProblem::Kind::Unknown: {
            const ast::Argument& arg = op.args[problem.argument];
            Diagnostic& d =
                ctx.diags.report(DiagId::UnknownNamedArgument, arg.name.range, problem.message);
            constexpr std::string_view kMean = "; did you mean '";
            const std::size_t at = problem.message.find(kMean);
            if (at != std::string::npos) {
                const std::size_t begin = at + kMean.size();
                const std::size_t end = problem.message.find('\'', begin);
                d.fixit = FixIt{arg.name.range, problem.message.substr(begin, end - begin)};
            }
            d.notes.push_back(
                ctx.notes.at(problem.note, in_quotes(decl.qualified_name) + " is declared here"));
            return;
        }
        case ArgumentProblem::Kind::Missing: {
            Diagnostic& d =
                ctx.diags.report(DiagId::MissingNamedArgument, op.name_range, problem.message);
            d.notes.push_back(ctx.notes.at(problem.note, "the parameter is declared here"));
            return;
        }
        case ArgumentProblem::Kind::WrongKind: {
            const ast::Argument& arg = op.args[problem.argument];
            const bool enumerator =
                arg.value.kind == ast::Value::Kind::Ident &&
                problem.message.find(" is not a value of ") != std::string::npos;
            Diagnostic& d =
                ctx.diags.report(enumerator ? DiagId::UnknownEnumerator : DiagId::NamedArgumentKind,
                                 arg.value.range, problem.message);
            d.notes.push_back(ctx.notes.at(problem.note, "the parameter is declared here"));
            return;
        }
    }
}

}  // namespace

void check_call_arguments(BindContext& ctx, const sema::Call& call, const UdfDecl& decl,
                          const Binding& binding) {
    check_op_arguments(ctx, *call.op, decl, binding);
}

void check_op_arguments(BindContext& ctx, const sema::OpRef& op, const UdfDecl& decl,
                        const Binding& binding) {
    std::vector<NamedArgument> arguments;
    for (const ast::Argument& arg : op.args) {
        arguments.push_back({arg.name.name, kind_of(arg.value),
                             arg.value.kind == ast::Value::Kind::Ident ? arg.value.text : ""});
    }
    for (const ArgumentProblem& problem : check_named_arguments(decl, binding, arguments)) {
        report_argument(ctx, op, decl, problem);
    }
}

}  // namespace rop::bind
