#include "codegen/arguments.h"

#include <charconv>
#include <cstdint>
#include <string_view>

#include "codegen/escape.h"
#include "codegen/printer.h"

namespace rop::codegen {
namespace {

using bind::ArgKind;
using bind::CxxType;
using bind::TypeForm;

[[noreturn]] void fail(const std::string& what) { throw CodegenError("generate", 0, "", what); }

bool contains(std::string_view text, std::string_view part) {
    return text.find(part) != std::string_view::npos;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i > 0) out += sep;
        out += parts[i];
    }
    return out;
}

std::string integer_literal(std::int64_t value) {
    if (value == INT64_MIN) return "(-9223372036854775807LL - 1)";
    std::string digits = std::to_string(value);
    if (value > INT32_MAX || value < INT32_MIN) digits += "LL";
    return value < 0 ? "(" + digits + ")" : digits;
}

std::string string_expression(const CxxType& type, const std::string& bytes) {
    const std::string literal = cpp_string_literal(bytes);
    if (type.form == TypeForm::Pointer) return literal;  // const char*
    const std::string size = std::to_string(bytes.size());
    if (contains(type.name, "string_view") || contains(type.canonical, "basic_string_view")) {
        return "std::string_view(" + literal + ", " + size + ")";
    }
    return "std::string(" + literal + ", " + size + ")";
}

bool is_floating(const CxxType& type) {
    return type.canonical == "float" || type.canonical == "double" ||
           type.canonical == "long double";
}

std::string value_expression(const CxxType& type, ArgKind kind, const ast::Value& value) {
    using K = ast::Value::Kind;
    switch (value.kind) {
        case K::String: return string_expression(type, value.text);
        case K::Int:
            if (kind == ArgKind::Float || is_floating(type)) {
                return float_literal(static_cast<double>(value.int_value));
            }
            return integer_literal(value.int_value);
        case K::Float: return float_literal(value.float_value);
        case K::Bool: return value.bool_value ? "true" : "false";
        case K::Duration:
            if (kind == ArgKind::Duration) {
                return "std::chrono::duration_cast<" + type.name + ">(std::chrono::milliseconds(" +
                       integer_literal(value.int_value) + "))";
            }
            return "std::chrono::milliseconds(" + integer_literal(value.int_value) + ")";
        case K::Ident:
            if (kind == ArgKind::Enum) return type.name + "::" + cpp_identifier(value.text);
            return cpp_identifier(value.text);
        case K::List: {
            CxxType element;
            if (!type.args.empty()) element = type.args.front();
            std::vector<std::string> items;
            for (const ast::Value& item : value.items) {
                items.push_back(value_expression(element, ArgKind::Other, item));
            }
            const std::string list_type =
                kind == ArgKind::List || type.form == TypeForm::Vector ? type.name : "";
            return list_type + "{" + join(items, ", ") + "}";
        }
    }
    fail("unknown value kind");
}

}  // namespace

std::string float_literal(double value) {
    char buffer[64];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
    std::string text(buffer, ec == std::errc() ? end : buffer);
    if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
    return value < 0 ? "(" + text + ")" : text;
}

std::string argument_expression(const bind::UdfParam& param, const ast::Value& value) {
    return value_expression(param.type, param.arg_kind, value);
}

// The argument expressions of named parameters `arguments` (in parameter order), with trailing
// left-out ones dropped and inner left-out ones given their C++ default.
std::vector<std::string> named_expressions(const std::vector<bind::BoundArgument>& arguments) {
    std::size_t last = 0;
    for (std::size_t i = 0; i < arguments.size(); ++i) {
        if (arguments[i].value) last = i + 1;
    }
    std::vector<std::string> out;
    for (std::size_t i = 0; i < last; ++i) {
        const bind::BoundArgument& argument = arguments[i];
        if (argument.value) {
            out.push_back(argument_expression(argument.param, argument.value->value));
        } else if (argument.param.has_default) {
            out.push_back(argument.param.default_text);
        } else {
            fail("parameter '" + argument.param.name + "' has neither a value nor a default");
        }
    }
    return out;
}

}  // namespace rop::codegen
