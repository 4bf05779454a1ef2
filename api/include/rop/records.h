// rop/records.h: typed records to and from text over the field tables of rop/fields.h: the
// decoding and JSON encoding the std.io record sources and sinks (rop/stdlib/io.h) run per item.
// Standard headers only; what parses the text (JSON, CSV) is in rop_stdlib_io.
#pragma once

#include <rop/fields.h>

#include <charconv>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

namespace rop::record_io {

// One parsed value: a JSON value (a JSONL line) or a CSV cell, whose text is read as the type of
// the field it lands in. A record is an Object: member names in `keys`, their values in `items`.
struct Value {
    enum class Kind : std::uint8_t { Null, Bool, Number, String, Array, Object, Cell };
    Kind kind = Kind::Null;
    bool boolean = false;
    std::string text;               // Number: as written; String and Cell: the text
    std::vector<Value> items;       // Array: the elements; Object: the members' values
    std::vector<std::string> keys;  // Object: the members' names

    // The member named `key` of an Object (the last one when a name repeats); null if none.
    const Value* find(std::string_view key) const {
        for (std::size_t i = keys.size(); i-- > 0;) {
            if (keys[i] == key) return &items[i];
        }
        return nullptr;
    }
};

// A value that does not fit its field: what() is "field 'PATH': PROBLEM", where PATH names the
// field from the record down ("customer.name", "tags[2]").
class FieldError : public std::runtime_error {
  public:
    FieldError(const std::string& field, const std::string& problem)
        : std::runtime_error("field '" + field + "': " + problem) {}
};

// Input text as an error message quotes it, between `quote`s (none when empty): at most `limit`
// bytes of it, cut between characters, then "..." and its size after the closing quote when it
// is longer (`"aaaa..." (10485760 bytes)`), so that a 10 MB line makes a short message; bytes
// that are not UTF-8, and control characters, as \xNN, so that the message is one line of valid
// UTF-8. records.cpp.
inline constexpr std::size_t kQuotedBytes = 60;
std::string quote_input(std::string_view text, std::string_view quote = "\"",
                        std::size_t limit = kQuotedBytes);

// The value as an error message shows it: `"seven"`, `1.5`, `null`, `an array`, `an empty cell`
// (text and numbers through quote_input).
inline std::string describe(const Value& value) {
    switch (value.kind) {
        case Value::Kind::Null: return "null";
        case Value::Kind::Bool: return value.boolean ? "true" : "false";
        case Value::Kind::Number: return quote_input(value.text, "");
        case Value::Kind::String: return quote_input(value.text);
        case Value::Kind::Array: return "an array";
        case Value::Kind::Object: return "an object";
        case Value::Kind::Cell:
            return value.text.empty() ? "an empty cell" : quote_input(value.text);
    }
    return "a value";
}

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <class T>
struct IsVector : std::false_type {};
template <class T, class A>
struct IsVector<std::vector<T, A>> : std::true_type {};

// A type one JSON scalar or CSV cell holds: text, a number, bool.
template <class T>
concept Scalar = std::same_as<T, std::string> || std::integral<T> || std::floating_point<T>;

// Whether T can be a field of a record read or written as JSON: scalars, optionals, vectors and
// structs with a field table of such fields. A CSV record takes scalars and optional scalars.
template <class T>
constexpr bool json_field() {
    if constexpr (Scalar<T>) {
        return true;
    } else if constexpr (IsOptional<T>::value || IsVector<T>::value) {
        return json_field<typename T::value_type>();
    } else {
        return HasFields<T>;
    }
}
template <class T>
constexpr bool csv_field() {
    if constexpr (IsOptional<T>::value) {
        return Scalar<typename T::value_type>;
    } else {
        return Scalar<T>;
    }
}
template <class T>
constexpr bool csv_record() {
    bool ok = true;
    for_each_field<T>([&ok](const auto& f) {
        ok = ok && csv_field<typename std::remove_cvref_t<decltype(f)>::type>();
    });
    return ok;
}

template <class T>
void decode(const Value& value, T& out, const std::string& path);

// Decodes the Object `record` into `out`, field by field; a field the record lacks is nullopt
// when optional and an error otherwise; members no field names are ignored. `prefix` is the
// enclosing field's path and a dot ("customer."), empty at the top.
template <class T>
void decode_fields(const Value& record, T& out, const std::string& prefix = "") {
    for_each_field<T>([&](const auto& f) {
        using Member = typename std::remove_cvref_t<decltype(f)>::type;
        const std::string path = prefix + std::string(f.name);
        const Value* value = record.find(f.name);
        if (value == nullptr) {
            if constexpr (IsOptional<Member>::value) {
                out.*f.member = std::nullopt;
                return;
            } else {
                throw FieldError(path, "missing");
            }
        }
        decode(*value, out.*f.member, path);
    });
}

template <class T>
std::string integer_range() {
    return std::to_string(std::numeric_limits<T>::min()) + " to " +
           std::to_string(std::numeric_limits<T>::max());
}

template <class T>
void decode(const Value& value, T& out, const std::string& path) {
    using Kind = Value::Kind;
    auto fail = [&](const std::string& expected) {
        throw FieldError(path, "expected " + expected + ", got " + describe(value));
    };
    if constexpr (IsOptional<T>::value) {
        if (value.kind == Kind::Null || (value.kind == Kind::Cell && value.text.empty())) {
            out = std::nullopt;
        } else {
            typename T::value_type inner{};
            decode(value, inner, path);
            out = std::move(inner);
        }
    } else if constexpr (std::same_as<T, std::string>) {
        if (value.kind != Kind::String && value.kind != Kind::Cell) fail("a string");
        out = value.text;
    } else if constexpr (std::same_as<T, bool>) {
        if (value.kind == Kind::Bool) {
            out = value.boolean;
        } else if (value.kind == Kind::Cell && (value.text == "true" || value.text == "false")) {
            out = value.text == "true";
        } else {
            fail("true or false");
        }
    } else if constexpr (std::integral<T>) {
        if (value.kind != Kind::Number && value.kind != Kind::Cell) fail("an integer");
        const char* begin = value.text.data();
        const char* end = begin + value.text.size();
        auto [at, ec] = std::from_chars(begin, end, out);
        if (ec == std::errc::result_out_of_range) {
            fail("an integer from " + integer_range<T>());
        }
        if (ec != std::errc() || at != end) fail("an integer");
    } else if constexpr (std::floating_point<T>) {
        if (value.kind != Kind::Number && value.kind != Kind::Cell) fail("a number");
        const char* begin = value.text.data();
        const char* end = begin + value.text.size();
        auto [at, ec] = std::from_chars(begin, end, out);
        if (ec == std::errc::result_out_of_range) fail("a number in the range of its type");
        if (ec != std::errc() || at != end) fail("a number");
    } else if constexpr (IsVector<T>::value) {
        if (value.kind != Kind::Array) fail("an array");
        out.clear();
        out.reserve(value.items.size());
        for (std::size_t i = 0; i < value.items.size(); ++i) {
            typename T::value_type element{};
            decode(value.items[i], element, path + "[" + std::to_string(i) + "]");
            out.push_back(std::move(element));
        }
    } else if constexpr (HasFields<T>) {
        if (value.kind != Kind::Object) fail("an object");
        decode_fields(value, out, path + ".");
    } else {
        static_assert(json_field<T>(),
                      "rop::record_io: a field type with no record mapping (text, numbers, bool, "
                      "std::optional, std::vector, or a struct with rop::Fields)");
    }
}

// Appends `text` as a JSON string (quoted, escaped; invalid UTF-8 replaced by U+FFFD).
void append_json_string(std::string& out, std::string_view text);

// Appends `value` as compact JSON: a struct as an object of its fields in table order, a missing
// optional as null, a NaN or infinity as null (JSON has none).
template <class T>
void append_json(std::string& out, const T& value) {
    if constexpr (IsOptional<T>::value) {
        if (value) {
            append_json(out, *value);
        } else {
            out += "null";
        }
    } else if constexpr (std::same_as<T, std::string>) {
        append_json_string(out, value);
    } else if constexpr (std::same_as<T, bool>) {
        out += value ? "true" : "false";
    } else if constexpr (std::integral<T> || std::floating_point<T>) {
        if constexpr (std::floating_point<T>) {
            if (value != value || value - value != 0) {
                out += "null";
                return;
            }
        }
        char buffer[64];
        auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
        out.append(buffer, ec == std::errc() ? end : buffer);
    } else if constexpr (IsVector<T>::value) {
        out += '[';
        for (std::size_t i = 0; i < value.size(); ++i) {
            if (i > 0) out += ',';
            append_json(out, value[i]);
        }
        out += ']';
    } else if constexpr (HasFields<T>) {
        out += '{';
        bool first = true;
        for_each_field<T>([&](const auto& f) {
            if (!first) out += ',';
            first = false;
            append_json_string(out, f.name);
            out += ':';
            append_json(out, value.*f.member);
        });
        out += '}';
    } else {
        static_assert(json_field<T>(),
                      "rop::record_io: a field type with no record mapping (text, numbers, bool, "
                      "std::optional, std::vector, or a struct with rop::Fields)");
    }
}

// Appends `value` as one CSV cell (RFC 4180): text quoted when it holds a comma, a quote, a line
// break or leading or trailing spaces, with quotes doubled; std::nullopt as an empty cell.
template <class T>
void append_csv(std::string& out, const T& value) {
    if constexpr (IsOptional<T>::value) {
        if (value) append_csv(out, *value);
    } else if constexpr (std::same_as<T, std::string>) {
        const bool quote = value.find_first_of(",\"\r\n") != std::string::npos ||
                           (!value.empty() && (value.front() == ' ' || value.back() == ' '));
        if (!quote) {
            out += value;
            return;
        }
        out += '"';
        for (char c : value) {
            if (c == '"') out += '"';
            out += c;
        }
        out += '"';
    } else if constexpr (std::same_as<T, bool>) {
        out += value ? "true" : "false";
    } else if constexpr (std::integral<T> || std::floating_point<T>) {
        char buffer[64];
        auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
        out.append(buffer, ec == std::errc() ? end : buffer);
    } else {
        static_assert(csv_field<T>(),
                      "rop::record_io: a CSV cell holds text, numbers, bool or std::optional "
                      "of one");
    }
}

}  // namespace rop::record_io
