// rop/codec.h: how an item becomes bytes and back when it crosses a process boundary (an
// `isolation process` Call, docs/udfs.md "Types that cross a process boundary"): the one
// rop::Codec template, the builtin codecs of standard types, and rop::FieldsCodec for structs.
//
// rop::Codec is the template the runtime uses (rop::runtime::Codec names this one; <rop/udf.h>
// declares it too), so a specialization a UDF header writes is the codec the runtime sees.
// Standard headers only, like <rop/udf.h>: a UDF header that writes a codec includes it, and ropc
// parses it with that header. ropc mirrors which standard types have a codec here
// (compiler/bind/codec_reader.cpp).
//
// A Codec<T> specialization provides
//   static void encode(const T& value, std::string& out);  // appends the bytes of value to out
//   static T decode(std::string_view& in);                 // consumes them from the front of in
// and optionally `static constexpr std::size_t min_bytes()`, the fewest bytes one value ever
// takes (a bound that lets decode reject a corrupt element count before it allocates; 1 when
// absent). decode never reads past the end of `in` and throws rop::CodecError on input that is
// too short or malformed. Numbers travel in the host's byte order: both ends are the same binary
// (or the same platform).
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

namespace rop {

// Undefined on purpose: a type has a codec when a specialization (or a builtin below) exists.
template <class T>
struct Codec;

// Bytes that do not decode: too short, a corrupt length, a flag or index out of range.
class CodecError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

namespace codec_detail {

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

[[noreturn]] inline void fail(std::string_view type, const std::string& what) {
    throw CodecError("rop::Codec<" + std::string(type) + ">::decode: " + what);
}

[[noreturn]] inline void fail_short(std::string_view type, std::size_t needed, std::size_t left) {
    fail(type, "input too short (needs " + std::to_string(needed) + " bytes, " +
                   std::to_string(left) + " left)");
}

template <class T>
void take_bytes(std::string_view& in, void* dst, std::size_t n) {
    if (in.size() < n) fail_short(type_name<T>(), n, in.size());
    if (n != 0) std::memcpy(dst, in.data(), n);
    in.remove_prefix(n);
}

template <class T, class = void>
struct MinBytes {
    static constexpr std::size_t value() { return 1; }
};
template <class T>
struct MinBytes<T, std::void_t<decltype(Codec<T>::min_bytes())>> {
    static constexpr std::size_t value() { return Codec<T>::min_bytes(); }
};

template <class T>
constexpr std::size_t min_bytes() {
    return MinBytes<T>::value();
}

// An element count read from `in`, checked against what is left: every element takes at least
// min_bytes<Element>() (at least 1) bytes, so a corrupt count fails here, before any allocation.
template <class Container, class Element>
std::size_t take_count(std::string_view& in) {
    std::uint64_t n = 0;
    take_bytes<Container>(in, &n, sizeof n);
    const std::size_t each = min_bytes<Element>() == 0 ? 1 : min_bytes<Element>();
    if (n > in.size() / each) {
        fail(type_name<Container>(), "count " + std::to_string(n) + " exceeds the " +
                                         std::to_string(in.size()) + " bytes left");
    }
    return static_cast<std::size_t>(n);
}

inline void put_count(std::size_t n, std::string& out) {
    const auto count = static_cast<std::uint64_t>(n);
    out.append(reinterpret_cast<const char*>(&count), sizeof count);
}

template <class T>
inline constexpr bool is_bulk = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;

}  // namespace codec_detail

template <class T>
inline constexpr bool has_codec = codec_detail::HasCodec<T>::value;

// ---- numbers, bool, enums, durations -----------------------------------------------------

template <class T>
    requires codec_detail::is_bulk<T>
struct Codec<T> {
    static constexpr std::size_t min_bytes() { return sizeof(T); }
    static void encode(const T& value, std::string& out) {
        out.append(reinterpret_cast<const char*>(&value), sizeof(T));
    }
    static T decode(std::string_view& in) {
        T value{};
        codec_detail::take_bytes<T>(in, &value, sizeof(T));
        return value;
    }
};

template <>
struct Codec<bool> {
    static constexpr std::size_t min_bytes() { return 1; }
    static void encode(const bool& value, std::string& out) { out.push_back(value ? 1 : 0); }
    static bool decode(std::string_view& in) {
        std::uint8_t byte = 0;
        codec_detail::take_bytes<bool>(in, &byte, 1);
        if (byte > 1) codec_detail::fail("bool", "byte " + std::to_string(byte) + " is not 0 or 1");
        return byte == 1;
    }
};

// By underlying value; any value of the underlying type is accepted back.
template <class T>
    requires std::is_enum_v<T>
struct Codec<T> {
    using Underlying = std::underlying_type_t<T>;
    static constexpr std::size_t min_bytes() { return sizeof(Underlying); }
    static void encode(const T& value, std::string& out) {
        Codec<Underlying>::encode(static_cast<Underlying>(value), out);
    }
    static T decode(std::string_view& in) { return static_cast<T>(Codec<Underlying>::decode(in)); }
};

template <class Rep, class Period>
    requires has_codec<Rep>
struct Codec<std::chrono::duration<Rep, Period>> {
    using Duration = std::chrono::duration<Rep, Period>;
    static constexpr std::size_t min_bytes() { return codec_detail::min_bytes<Rep>(); }
    static void encode(const Duration& value, std::string& out) {
        Codec<Rep>::encode(value.count(), out);
    }
    static Duration decode(std::string_view& in) { return Duration(Codec<Rep>::decode(in)); }
};

// ---- strings and sequences ---------------------------------------------------------------

template <>
struct Codec<std::string> {
    static constexpr std::size_t min_bytes() { return 8; }
    static void encode(const std::string& value, std::string& out) {
        codec_detail::put_count(value.size(), out);
        out.append(value);
    }
    static std::string decode(std::string_view& in) {
        const std::size_t n = codec_detail::take_count<std::string, char>(in);
        std::string value(in.substr(0, n));
        in.remove_prefix(n);
        return value;
    }
};

// Vectors of numbers (std::vector<std::uint8_t>, <char>, <float>, ...) are copied in bulk.
template <class T, class A>
    requires has_codec<T>
struct Codec<std::vector<T, A>> {
    using Vector = std::vector<T, A>;
    static constexpr std::size_t min_bytes() { return 8; }
    static void encode(const Vector& value, std::string& out) {
        codec_detail::put_count(value.size(), out);
        if constexpr (codec_detail::is_bulk<T>) {
            out.append(reinterpret_cast<const char*>(value.data()), value.size() * sizeof(T));
        } else {
            for (const T& element : value) Codec<T>::encode(element, out);
        }
    }
    static Vector decode(std::string_view& in) {
        const std::size_t n = codec_detail::take_count<Vector, T>(in);
        Vector value;
        if constexpr (codec_detail::is_bulk<T>) {
            value.resize(n);
            codec_detail::take_bytes<Vector>(in, value.data(), n * sizeof(T));
        } else {
            value.reserve(n);
            for (std::size_t i = 0; i < n; ++i) value.push_back(Codec<T>::decode(in));
        }
        return value;
    }
};

template <class T, std::size_t N>
    requires has_codec<T>
struct Codec<std::array<T, N>> {
    using Array = std::array<T, N>;
    static constexpr std::size_t min_bytes() { return N * codec_detail::min_bytes<T>(); }
    static void encode(const Array& value, std::string& out) {
        for (const T& element : value) Codec<T>::encode(element, out);
    }
    static Array decode(std::string_view& in) {
        Array value{};
        for (T& element : value) element = Codec<T>::decode(in);
        return value;
    }
};

// ---- optional, shared, variant -----------------------------------------------------------

namespace codec_detail {
template <class Outer>
bool take_flag(std::string_view& in) {
    std::uint8_t flag = 0;
    take_bytes<Outer>(in, &flag, 1);
    if (flag > 1)
        fail(type_name<Outer>(), "presence byte " + std::to_string(flag) + " is not 0 or 1");
    return flag == 1;
}
}  // namespace codec_detail

template <class T>
    requires has_codec<T>
struct Codec<std::optional<T>> {
    static constexpr std::size_t min_bytes() { return 1; }
    static void encode(const std::optional<T>& value, std::string& out) {
        out.push_back(value ? 1 : 0);
        if (value) Codec<T>::encode(*value, out);
    }
    static std::optional<T> decode(std::string_view& in) {
        if (!codec_detail::take_flag<std::optional<T>>(in)) return std::nullopt;
        return Codec<T>::decode(in);
    }
};

// A shared immutable value (a page's pixels) travels as its value; the far side gets its own copy.
template <class T>
    requires has_codec<T>
struct Codec<std::shared_ptr<const T>> {
    static constexpr std::size_t min_bytes() { return 1; }
    static void encode(const std::shared_ptr<const T>& value, std::string& out) {
        out.push_back(value ? 1 : 0);
        if (value) Codec<T>::encode(*value, out);
    }
    static std::shared_ptr<const T> decode(std::string_view& in) {
        if (!codec_detail::take_flag<std::shared_ptr<const T>>(in)) return nullptr;
        return std::make_shared<const T>(Codec<T>::decode(in));
    }
};

template <>
struct Codec<std::monostate> {
    static constexpr std::size_t min_bytes() { return 0; }
    static void encode(const std::monostate&, std::string&) {}
    static std::monostate decode(std::string_view&) { return {}; }
};

template <class... Ts>
    requires(has_codec<Ts> && ...)
struct Codec<std::variant<Ts...>> {
    using Variant = std::variant<Ts...>;
    static constexpr std::size_t min_bytes() { return 4; }
    static void encode(const Variant& value, std::string& out) {
        if (value.valueless_by_exception()) {
            throw CodecError("rop::Codec<std::variant>::encode: the variant is valueless");
        }
        Codec<std::uint32_t>::encode(static_cast<std::uint32_t>(value.index()), out);
        std::visit(
            [&out](const auto& held) { Codec<std::decay_t<decltype(held)>>::encode(held, out); },
            value);
    }
    static Variant decode(std::string_view& in) {
        const std::uint32_t index = Codec<std::uint32_t>::decode(in);
        if (index >= sizeof...(Ts)) {
            codec_detail::fail(codec_detail::type_name<Variant>(),
                               "alternative " + std::to_string(index) + " out of range");
        }
        return decode_at(index, in, std::index_sequence_for<Ts...>{});
    }

  private:
    template <std::size_t... I>
    static Variant decode_at(std::uint32_t index, std::string_view& in, std::index_sequence<I...>) {
        using Decoder = Variant (*)(std::string_view&);
        constexpr Decoder decoders[] = {[](std::string_view& bytes) {
            return Variant(std::in_place_index<I>,
                           Codec<std::variant_alternative_t<I, Variant>>::decode(bytes));
        }...};
        return decoders[index](in);
    }
};

// ---- pairs and tuples --------------------------------------------------------------------

template <class A, class B>
    requires(has_codec<A> && has_codec<B>)
struct Codec<std::pair<A, B>> {
    static constexpr std::size_t min_bytes() {
        return codec_detail::min_bytes<A>() + codec_detail::min_bytes<B>();
    }
    static void encode(const std::pair<A, B>& value, std::string& out) {
        Codec<A>::encode(value.first, out);
        Codec<B>::encode(value.second, out);
    }
    static std::pair<A, B> decode(std::string_view& in) {
        A first = Codec<A>::decode(in);  // in order: first, then second
        B second = Codec<B>::decode(in);
        return {std::move(first), std::move(second)};
    }
};

template <class... Ts>
    requires(has_codec<Ts> && ...)
struct Codec<std::tuple<Ts...>> {
    static constexpr std::size_t min_bytes() {
        return (std::size_t{0} + ... + codec_detail::min_bytes<Ts>());
    }
    static void encode(const std::tuple<Ts...>& value, std::string& out) {
        std::apply([&out](const Ts&... element) { (Codec<Ts>::encode(element, out), ...); }, value);
    }
    static std::tuple<Ts...> decode(std::string_view& in) {
        // Braced initialization evaluates its elements in order.
        return std::tuple<Ts...>{Codec<Ts>::decode(in)...};
    }
};

// ---- maps and sets -----------------------------------------------------------------------

namespace codec_detail {
template <class Map, class K, class V>
struct MapCodec {
    static constexpr std::size_t min_bytes() { return 8; }
    static void encode(const Map& value, std::string& out) {
        put_count(value.size(), out);
        for (const auto& [key, mapped] : value) {
            Codec<K>::encode(key, out);
            Codec<V>::encode(mapped, out);
        }
    }
    static Map decode(std::string_view& in) {
        const std::size_t n = take_count<Map, std::pair<K, V>>(in);
        Map value;
        for (std::size_t i = 0; i < n; ++i) {
            K key = Codec<K>::decode(in);
            V mapped = Codec<V>::decode(in);
            if (!value.emplace(std::move(key), std::move(mapped)).second) {
                fail(type_name<Map>(), "duplicate key");
            }
        }
        return value;
    }
};

template <class Set, class K>
struct SetCodec {
    static constexpr std::size_t min_bytes() { return 8; }
    static void encode(const Set& value, std::string& out) {
        put_count(value.size(), out);
        for (const K& key : value) Codec<K>::encode(key, out);
    }
    static Set decode(std::string_view& in) {
        const std::size_t n = take_count<Set, K>(in);
        Set value;
        for (std::size_t i = 0; i < n; ++i) {
            if (!value.insert(Codec<K>::decode(in)).second) fail(type_name<Set>(), "duplicate key");
        }
        return value;
    }
};
}  // namespace codec_detail

template <class K, class V, class C, class A>
    requires(has_codec<K> && has_codec<V>)
struct Codec<std::map<K, V, C, A>> : codec_detail::MapCodec<std::map<K, V, C, A>, K, V> {};

template <class K, class V, class H, class E, class A>
    requires(has_codec<K> && has_codec<V>)
struct Codec<std::unordered_map<K, V, H, E, A>>
    : codec_detail::MapCodec<std::unordered_map<K, V, H, E, A>, K, V> {};

template <class K, class C, class A>
    requires has_codec<K>
struct Codec<std::set<K, C, A>> : codec_detail::SetCodec<std::set<K, C, A>, K> {};

template <class K, class H, class E, class A>
    requires has_codec<K>
struct Codec<std::unordered_set<K, H, E, A>>
    : codec_detail::SetCodec<std::unordered_set<K, H, E, A>, K> {};

// ---- structs -----------------------------------------------------------------------------

namespace codec_detail {
template <auto Member>
struct MemberOf;
template <class T, class M, M T::* Member>
struct MemberOf<Member> {
    using type = M;
};
template <auto Member>
using member_type = typename MemberOf<Member>::type;
}  // namespace codec_detail

// A struct's codec, field by field in the order listed: what ropc generates for an item type
// with public fields (docs/udfs.md), and what a hand-written codec can derive from:
//   template <> struct rop::Codec<demo::Box> : rop::FieldsCodec<demo::Box, &demo::Box::x,
//                                                               &demo::Box::y> {};
// T must be default-constructible and its fields assignable. A struct with no fields writes one
// byte, so that a vector of them still bounds its count by the bytes left.
template <class T, auto... Members>
struct FieldsCodec {
    static constexpr std::size_t min_bytes() {
        if constexpr (sizeof...(Members) == 0) {
            return 1;
        } else {
            return (std::size_t{0} + ... +
                    codec_detail::min_bytes<codec_detail::member_type<Members>>());
        }
    }
    static void encode(const T& value, std::string& out) {
        if constexpr (sizeof...(Members) == 0) out.push_back(0);
        (Codec<codec_detail::member_type<Members>>::encode(value.*Members, out), ...);
    }
    static T decode(std::string_view& in) {
        T value{};
        if constexpr (sizeof...(Members) == 0) {
            std::uint8_t byte = 0;
            codec_detail::take_bytes<T>(in, &byte, 1);
        }
        ((value.*Members = Codec<codec_detail::member_type<Members>>::decode(in)), ...);
        return value;
    }
};

}  // namespace rop
