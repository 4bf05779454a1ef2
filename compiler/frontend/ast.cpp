// Small helpers of the syntax tree.
#include "frontend/ast.h"

namespace rop::ast {

std::string QualifiedName::str() const {
    std::string out;
    for (const Ident& part : parts) {
        if (!out.empty()) out += '.';
        out += part.name;
    }
    return out;
}

const char* to_string(StageKind kind) { return vocab::word(kind).data(); }

const char* to_string(Value::Kind kind) {
    switch (kind) {
        case Value::Kind::String: return "string";
        case Value::Kind::Int: return "int";
        case Value::Kind::Float: return "float";
        case Value::Kind::Bool: return "bool";
        case Value::Kind::Duration: return "duration";
        case Value::Kind::Ident: return "identifier";
        case Value::Kind::List: return "list";
    }
    return "?";
}

}  // namespace rop::ast
