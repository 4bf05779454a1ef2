#include "bind/named_arguments.h"

#include <algorithm>

#include "rop/vocab/suggest.h"

namespace rop::bind {
namespace {

bool fits(ArgKind parameter, ArgKind literal) {
    if (parameter == ArgKind::Other || parameter == literal) return true;
    return parameter == ArgKind::Float && literal == ArgKind::Integer;
}

std::string owner_name(const UdfDecl& decl) {
    return decl.is_class ? "the constructor of '" + decl.qualified_name + "'"
                         : "'" + decl.qualified_name + "'";
}

}  // namespace

std::string_view to_string(ArgKind kind) {
    switch (kind) {
        case ArgKind::Integer: return "an integer";
        case ArgKind::Float: return "a number";
        case ArgKind::Bool: return "a bool";
        case ArgKind::String: return "a string";
        case ArgKind::Duration: return "a duration";
        case ArgKind::Enum: return "an identifier";
        case ArgKind::List: return "a list";
        case ArgKind::Other: return "a value";
    }
    return "a value";
}

std::vector<ArgumentProblem> check_named_arguments(const UdfDecl& decl, const Binding& binding,
                                                   const std::vector<NamedArgument>& arguments) {
    std::vector<ArgumentProblem> problems;
    std::vector<bool> given(binding.named.size(), false);
    for (std::size_t a = 0; a < arguments.size(); ++a) {
        const NamedArgument& argument = arguments[a];
        auto param = std::find_if(binding.named.begin(), binding.named.end(),
                                  [&](const UdfParam& p) { return p.name == argument.name; });
        if (param == binding.named.end()) {
            std::string message = owner_name(decl) + " has no parameter '" + argument.name + "'";
            std::vector<std::string_view> names;
            for (const UdfParam& p : binding.named) names.push_back(p.name);
            if (const auto guess = vocab::closest(argument.name, names))
                message += "; did you mean '" + std::string(*guess) + "'?";
            problems.push_back({ArgumentProblem::Kind::Unknown, a, message, decl.location});
            continue;
        }
        given[static_cast<std::size_t>(param - binding.named.begin())] = true;
        if (!fits(param->arg_kind, argument.kind)) {
            problems.push_back({ArgumentProblem::Kind::WrongKind, a,
                                "argument '" + argument.name + "' of " + owner_name(decl) +
                                    " takes " + std::string(to_string(param->arg_kind)) + " ('" +
                                    param->type.spelling + "'), not " +
                                    std::string(to_string(argument.kind)),
                                param->location});
        } else if (param->arg_kind == ArgKind::Enum &&
                   std::find(param->enumerators.begin(), param->enumerators.end(),
                             argument.identifier) == param->enumerators.end()) {
            std::string choices;
            for (const std::string& e : param->enumerators) {
                choices += (choices.empty() ? "" : ", ") + e;
            }
            problems.push_back({ArgumentProblem::Kind::WrongKind, a,
                                "'" + argument.identifier + "' is not a value of '" +
                                    param->type.name + "' (argument '" + argument.name + "' of " +
                                    owner_name(decl) + "); one of: " + choices,
                                param->location});
        }
    }
    for (std::size_t i = 0; i < binding.named.size(); ++i) {
        const UdfParam& p = binding.named[i];
        if (given[i] || p.has_default) continue;
        problems.push_back({ArgumentProblem::Kind::Missing, arguments.size(),
                            owner_name(decl) + " needs argument '" + p.name + ": " +
                                std::string(to_string(p.arg_kind)) + "' (it has no default)",
                            p.location});
    }
    return problems;
}

}  // namespace rop::bind
