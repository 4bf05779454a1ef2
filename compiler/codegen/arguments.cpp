#include "codegen/arguments.h"

#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>

#include "codegen/escape.h"
#include "codegen/printer.h"
#include "codegen/wrap.h"

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

namespace {

// A left-out parameter's C++ default as generated code can spell it: an enumerator qualified
// with its type (the header may write `Segmentation::auto_layout` inside its namespace);
// nullopt when it cannot be spelled safely outside the header (a list, any other type).
std::optional<std::string> default_expression(const bind::UdfParam& param) {
    if (!param.has_default) return std::nullopt;
    switch (param.arg_kind) {
        case ArgKind::Enum: {
            const std::size_t colons = param.default_text.rfind("::");
            const std::string enumerator = colons == std::string::npos
                                               ? param.default_text
                                               : param.default_text.substr(colons + 2);
            for (const std::string& known : param.enumerators) {
                if (known == enumerator) return "::" + param.type.name + "::" + enumerator;
            }
            return std::nullopt;
        }
        case ArgKind::List:
        case ArgKind::Other: return std::nullopt;
        default: return param.default_text;
    }
}

}  // namespace

// The argument expressions of named parameters `arguments` (in parameter order), with trailing
// left-out ones dropped and inner left-out ones given their C++ default (an enumerator qualified
// with its type: the header may write it unqualified inside its namespace).
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
            out.push_back(default_expression(argument.param).value_or(argument.param.default_text));
        } else {
            fail("parameter '" + argument.param.name + "' has neither a value nor a default");
        }
    }
    return out;
}

bool settable_at_run_time(const bind::UdfParam& param) {
    if (param.name.empty() || param.type.form == TypeForm::Pointer) return false;
    switch (param.arg_kind) {
        case ArgKind::Integer:
        case ArgKind::Float:
        case ArgKind::Bool:
            return param.type.form == TypeForm::Value || param.type.form == TypeForm::Bool;
        case ArgKind::String:
            return !contains(param.type.canonical, "string_view") &&
                   contains(param.type.canonical, "basic_string<char");
        default: return false;
    }
}

std::string run_time_type(const bind::UdfParam& param) {
    if (param.arg_kind == ArgKind::String) return "std::string";
    if (param.arg_kind == ArgKind::Bool) return "bool";
    return param.type.name;
}

namespace {

// The index after the last parameter the constructor must be given: a set one, or a settable
// one when every left-out parameter before it has a default generated code can spell.
std::size_t run_time_count(const std::vector<bind::BoundArgument>& arguments) {
    std::size_t last = 0;
    bool spellable = true;
    for (std::size_t i = 0; i < arguments.size(); ++i) {
        const bind::BoundArgument& argument = arguments[i];
        const bool settable = settable_at_run_time(argument.param);
        if (argument.value || (settable && spellable)) last = i + 1;
        if (!argument.value && !settable && !default_expression(argument.param)) spellable = false;
    }
    return last;
}

// A `.rop` literal as the text --set would give: what rop::gen::Arguments reads back.
std::string value_text(const ast::Value& value) {
    using K = ast::Value::Kind;
    switch (value.kind) {
        case K::String: return value.text;
        case K::Int: return std::to_string(value.int_value);
        case K::Bool: return value.bool_value ? "true" : "false";
        case K::Float: {
            char buffer[64];
            auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value.float_value);
            return std::string(buffer, ec == std::errc() ? end : buffer);
        }
        default: fail("a run-time argument takes a string, number or bool");
    }
}

}  // namespace

std::vector<std::string> run_time_expressions(const std::vector<bind::BoundArgument>& arguments) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < run_time_count(arguments); ++i) {
        const bind::BoundArgument& argument = arguments[i];
        const bind::UdfParam& param = argument.param;
        if (!settable_at_run_time(param)) {
            if (argument.value) {
                out.push_back(argument_expression(param, argument.value->value));
            } else if (param.has_default) {
                out.push_back(default_expression(param).value_or(param.default_text));
            } else {
                fail("parameter '" + param.name + "' has neither a value nor a default");
            }
            continue;
        }
        std::string read =
            "arguments.get<" + run_time_type(param) + ">(" + cpp_string_literal(param.name);
        if (!argument.value) {
            if (!param.has_default) fail("parameter '" + param.name + "' has no value");
            read += ", " + param.default_text;
        }
        out.push_back(read + ")");
    }
    return out;
}

// At least one byte per literal.
std::vector<std::string> literal_pieces(const std::string& bytes, std::size_t width) {
    std::vector<std::string> pieces;
    std::size_t from = 0;
    do {
        std::size_t to = from + 1;
        while (to < bytes.size() &&
               cpp_string_literal(std::string_view(bytes).substr(from, to + 1 - from)).size() <=
                   width) {
            ++to;
        }
        if (from == bytes.size()) to = from;  // the empty string: one ""
        pieces.push_back(cpp_string_literal(std::string_view(bytes).substr(from, to - from)));
        from = to;
    } while (from < bytes.size());
    return pieces;
}

namespace {

std::string any_value_text(const ast::Value& value) {
    using K = ast::Value::Kind;
    switch (value.kind) {
        case K::String:
        case K::Int:
        case K::Bool:
        case K::Float: return value_text(value);
        case K::Duration: return std::to_string(value.int_value) + "ms";
        case K::Ident: return value.text;
        case K::List: {
            std::string out = "[";
            for (std::size_t i = 0; i < value.items.size(); ++i) {
                const ast::Value& item = value.items[i];
                out += i > 0 ? ", " : "";
                out +=
                    item.kind == K::String ? cpp_string_literal(item.text) : any_value_text(item);
            }
            return out + "]";
        }
    }
    return {};
}

}  // namespace

std::string arguments_text(const std::vector<bind::BoundArgument>& arguments) {
    std::string out;
    for (const bind::BoundArgument& argument : arguments) {
        std::string text;
        if (argument.value) {
            text = any_value_text(argument.value->value);
        } else if (argument.param.has_default) {
            text = argument.param.default_text;
        } else {
            continue;
        }
        out += (out.empty() ? "" : " ") + argument.param.name + "=" + text;
    }
    return out;
}

std::vector<std::string> run_time_table(const std::vector<bind::BoundArgument>& arguments,
                                        std::size_t column) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < run_time_count(arguments); ++i) {
        const bind::BoundArgument& argument = arguments[i];
        const bind::UdfParam& param = argument.param;
        if (!settable_at_run_time(param)) continue;
        const std::string head = "rop::gen::argument<" + run_time_type(param) + ">(" +
                                 cpp_string_literal(param.name) + ",";
        std::string text;
        if (argument.value) {
            text = value_text(argument.value->value);
        } else {
            text = param.default_text;
        }
        const std::string prefix = argument.value ? "" : "std::nullopt, ";
        const std::string one_line = head + " " + prefix + cpp_string_literal(text) + "),";
        if (column + one_line.size() <= kColumnLimit || contains(text, std::string_view("\0", 1))) {
            if (contains(text, std::string_view("\0", 1))) {
                CxxType string_type;
                string_type.name = "std::string";
                out.push_back(head + " " + prefix + string_expression(string_type, text) + "),");
            } else {
                out.push_back(one_line);
            }
            continue;
        }
        // Too wide: the value on its own lines, four columns in, split to fit.
        const std::size_t inner = column + 4;
        const std::size_t width = kColumnLimit > inner + 2 + 16 ? kColumnLimit - inner - 2 : 16;
        std::string entry =
            head + (prefix.empty() ? "" : " " + prefix.substr(0, prefix.size() - 1));
        for (const std::string& piece : literal_pieces(text, width)) entry += "\n    " + piece;
        out.push_back(entry + "),");
    }
    return out;
}

}  // namespace rop::codegen
