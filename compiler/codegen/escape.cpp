#include "codegen/escape.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

namespace rop::codegen {
namespace {

void append_octal(std::string& out, unsigned char byte) {
    out += '\\';
    out += static_cast<char>('0' + ((byte >> 6) & 7));
    out += static_cast<char>('0' + ((byte >> 3) & 7));
    out += static_cast<char>('0' + (byte & 7));
}

bool is_printable_ascii(unsigned char byte) { return byte >= 0x20 && byte < 0x7f; }

// Keywords and alternative tokens (C++23), plus names the preprocessor or the generated code may
// own: standard macros, GCC's predefined `linux`/`unix` in GNU modes, and rop's own namespaces.
// clang-format off
constexpr std::string_view kReserved[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
    "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept",
    "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
    "co_return", "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast",
    "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
    "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
    "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
    "reinterpret_cast", "requires", "return", "short", "signed", "sizeof", "static",
    "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local",
    "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
    "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
    // Identifiers with special meaning, and names the generated file or its headers own.
    "final", "override", "import", "module", "main", "std", "rop",
    // Macros: the C library's, and GCC's predefined ones in GNU modes.
    "assert", "errno", "NULL", "EOF", "stdin", "stdout", "stderr", "offsetof", "setjmp",
    "va_arg", "va_start", "va_end", "BUFSIZ", "FILENAME_MAX", "SEEK_SET", "SEEK_CUR",
    "SEEK_END", "CHAR_BIT", "linux", "unix", "i386",
};
// clang-format on

bool is_reserved(std::string_view name) {
    return std::find(std::begin(kReserved), std::end(kReserved), name) != std::end(kReserved);
}

}  // namespace

std::string cpp_string_literal(std::string_view bytes) {
    std::string out = "\"";
    out.reserve(bytes.size() + 2);
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        auto byte = static_cast<unsigned char>(bytes[i]);
        switch (byte) {
            case '"': out += "\\\""; continue;
            case '\\': out += "\\\\"; continue;
            case '?': out += "\\?"; continue;
            case '\n': out += "\\n"; continue;
            case '\t': out += "\\t"; continue;
            case '\r': out += "\\r"; continue;
            default: break;
        }
        bool star_before_slash = byte == '*' && i + 1 < bytes.size() && bytes[i + 1] == '/';
        if (is_printable_ascii(byte) && !star_before_slash) {
            out += static_cast<char>(byte);
        } else {
            append_octal(out, byte);
        }
    }
    out += '"';
    return out;
}

std::string cpp_comment_text(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        auto byte = static_cast<unsigned char>(text[i]);
        bool star_before_slash = byte == '*' && i + 1 < text.size() && text[i + 1] == '/';
        // `??/` is a line splice under -trigraphs: it would swallow the next line.
        bool question_pair = byte == '?' && i + 1 < text.size() && text[i + 1] == '?';
        if (byte == '\\') {
            out += "\\\\";
        } else if (is_printable_ascii(byte) && !star_before_slash && !question_pair) {
            out += static_cast<char>(byte);
        } else {
            append_octal(out, byte);
        }
    }
    return out;
}

std::string line_directive(std::string_view file, std::uint32_t line) {
    if (line == 0 || line > 2147483647u) {
        throw std::invalid_argument("#line number out of range: " + std::to_string(line));
    }
    return "#line " + std::to_string(line) + " " + cpp_string_literal(file);
}

std::string cpp_identifier(std::string_view name) {
    std::string out;
    out.reserve(name.size() + 1);
    for (char c : name) {
        bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        char next = keep ? c : '_';
        if (next == '_' && (out.empty() || out.back() == '_')) continue;  // no `_X`, no `__`
        out += next;
    }
    if (out.empty()) return "unnamed";
    if (out.front() >= '0' && out.front() <= '9') out.insert(out.begin(), 'r');
    if (is_reserved(out)) out += '_';
    return out;
}

void IdentifierScope::reserve(std::string_view identifier) { used_.emplace(identifier); }

const std::string& IdentifierScope::get(std::string_view rop_name) {
    if (auto found = by_name_.find(rop_name); found != by_name_.end()) return found->second;
    std::string base = cpp_identifier(rop_name);
    std::string candidate = base;
    // `class_` + `_2` would make the reserved `__`; `class_2` does not.
    std::string separator = base.back() == '_' ? "" : "_";
    for (unsigned n = 2; used_.contains(candidate); ++n) {
        candidate = base + separator + std::to_string(n);
    }
    used_.insert(candidate);
    return by_name_.emplace(std::string(rop_name), std::move(candidate)).first->second;
}

}  // namespace rop::codegen
