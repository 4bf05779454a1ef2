// Implementation half of value.h: type_info_of<T>() and the builtin Codecs (arithmetic types,
// bool, std::string, std::vector of codec types). Included at the end of value.h; not standalone.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace rop::runtime {

// A Codec<T> specialization provides
//   static void encode(const T& value, std::string& out);  // appends bytes to out
//   static T decode(std::string_view& in);                 // consumes bytes from the front of in
// ByteSize<T>::of(value) estimates the payload bytes of a value for the admission budget.
template <class T>
struct ByteSize {
    static std::size_t of(const T&) { return sizeof(T); }
};
template <>
struct ByteSize<std::string> {
    static std::size_t of(const std::string& s) { return sizeof(s) + s.capacity(); }
};
template <class T>
struct ByteSize<std::vector<T>> {
    static std::size_t of(const std::vector<T>& v) {
        std::size_t total = sizeof(v) + (v.capacity() - v.size()) * sizeof(T);
        for (const T& element : v) total += ByteSize<T>::of(element);
        return total;
    }
};

namespace detail {

template <class T, class = void>
struct HasCodec : std::false_type {};
template <class T>
struct HasCodec<T, std::void_t<decltype(Codec<T>::encode(
                       std::declval<const T&>(), std::declval<std::string&>()))>> : std::true_type {
};

template <class T>
constexpr std::string_view type_name() {
    std::string_view pretty = __PRETTY_FUNCTION__;  // "... [with T = int; ...]"
    const auto start = pretty.find("T = ");
    if (start == std::string_view::npos) return pretty;
    pretty.remove_prefix(start + 4);
    const auto end = pretty.find_first_of(";]");
    return pretty.substr(0, end);
}

[[noreturn]] void throw_short_input(std::string_view type);

inline void take_bytes(std::string_view& in, void* dst, std::size_t n, std::string_view type) {
    if (in.size() < n) throw_short_input(type);
    std::memcpy(dst, in.data(), n);
    in.remove_prefix(n);
}

}  // namespace detail

template <class T>
inline constexpr bool has_codec = detail::HasCodec<T>::value;

template <class T>
    requires std::is_arithmetic_v<T>
struct Codec<T> {
    static void encode(const T& value, std::string& out) {
        out.append(reinterpret_cast<const char*>(&value), sizeof(T));
    }
    static T decode(std::string_view& in) {
        T value{};
        detail::take_bytes(in, &value, sizeof(T), detail::type_name<T>());
        return value;
    }
};

template <>
struct Codec<std::string> {
    static void encode(const std::string& value, std::string& out) {
        Codec<std::uint64_t>::encode(value.size(), out);
        out.append(value);
    }
    static std::string decode(std::string_view& in) {
        const auto n = static_cast<std::size_t>(Codec<std::uint64_t>::decode(in));
        if (in.size() < n) detail::throw_short_input("std::string");
        std::string value(in.substr(0, n));
        in.remove_prefix(n);
        return value;
    }
};

template <class T>
    requires has_codec<T>
struct Codec<std::vector<T>> {
    static void encode(const std::vector<T>& value, std::string& out) {
        Codec<std::uint64_t>::encode(value.size(), out);
        for (const T& element : value) Codec<T>::encode(element, out);
    }
    static std::vector<T> decode(std::string_view& in) {
        const auto n = static_cast<std::size_t>(Codec<std::uint64_t>::decode(in));
        std::vector<T> value;
        value.reserve(n < in.size() ? n : in.size());
        for (std::size_t i = 0; i < n; ++i) value.push_back(Codec<T>::decode(in));
        return value;
    }
};

namespace detail {

[[noreturn]] void throw_trailing_bytes(std::string_view type);

template <class T>
TypeInfo make_type_info() {
    TypeInfo info{&typeid(T), type_name<T>(), nullptr, nullptr,
                  [](const void* value) { return ByteSize<T>::of(*static_cast<const T*>(value)); }};
    if constexpr (has_codec<T>) {
        info.encode = [](const void* value, std::string& out) {
            Codec<T>::encode(*static_cast<const T*>(value), out);
        };
        info.decode = [](std::string_view bytes) -> std::shared_ptr<const void> {
            std::string_view in = bytes;
            auto value = std::make_shared<const T>(Codec<T>::decode(in));
            if (!in.empty()) throw_trailing_bytes(type_name<T>());
            return value;
        };
    }
    return info;
}

}  // namespace detail

template <class T>
const TypeInfo& type_info_of() {
    static const TypeInfo info = detail::make_type_info<T>();
    return info;
}

}  // namespace rop::runtime
