// rop/byte_size.h: how many bytes an item holds, for the payload budget (`--max-payload-mb`,
// RunOptions::max_payload_bytes; docs/udfs.md, "How many bytes an item holds").
//
// rop::ByteSize<T>::of(value) is what the runtime counts for a Value of type T (Value::byte_size):
// sizeof(T) plus what the value owns on the heap, recursively: a string's buffer, a container's
// elements and spare capacity, what a std::shared_ptr or std::unique_ptr points to (once per item
// that holds it, even when items share it). An estimate: allocator headers are left out, and
// map and set nodes count their links, not the allocator's rounding.
//
// Where the size comes from, first match:
//   1. a specialization of rop::ByteSize<T> (the builtins below, or one a UDF header writes for a
//      type whose bytes ropc cannot see: a class with private state);
//   2. rop::DerivedByteSize<T>, which ropc writes into the generated file for every struct of
//      public fields that a pipeline passes between stages (the structs it derives codecs for,
//      rop/codec.h), field by field with rop::fields_byte_size;
//   3. sizeof(T).
// Standard headers only, like <rop/codec.h>: a UDF header that writes a ByteSize includes it.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

namespace rop {

// Written by ropc only (in the generated file), as
//   template <> struct rop::DerivedByteSize<demo::Kid> {
//       static std::size_t of(const demo::Kid& v) { return rop::fields_byte_size(v, v.name); }
//   };
// A UDF header specializes rop::ByteSize instead, which wins over this one.
template <class T>
struct DerivedByteSize;

// The bytes of `value` for the payload budget: sizeof(T) and what it owns.
template <class T>
struct ByteSize;

template <class T>
std::size_t byte_size(const T& value) {
    return ByteSize<T>::of(value);
}

namespace byte_size_detail {

template <class T>
concept derived = requires(const T& value) {
    { DerivedByteSize<T>::of(value) } -> std::convertible_to<std::size_t>;
};

// A type whose every value counts sizeof(T), so that a container of it needs no walk: the
// builtin answer (the primary template, no DerivedByteSize), never a specialization.
template <class T>
concept sizeof_only = !derived<T> && requires { typename ByteSize<T>::primary; };

// The bytes `value` owns beyond sizeof(T) (none when a specialization counts less than that).
template <class T>
std::size_t owned(const T& value) {
    if constexpr (sizeof_only<T>) {
        return 0;
    } else {
        const std::size_t all = ByteSize<T>::of(value);
        return all > sizeof(T) ? all - sizeof(T) : 0;
    }
}

template <class Range>
std::size_t owned_elements(const Range& range) {
    using Element = typename Range::value_type;
    std::size_t total = 0;
    if constexpr (!sizeof_only<Element>) {
        for (const Element& element : range) total += owned(element);
    }
    return total;
}

// A pointee's bytes, for the owning pointers: nothing for void or an incomplete type.
template <class T>
std::size_t pointee(const T* value) {
    if constexpr (std::is_object_v<T> && requires { sizeof(T); }) {
        return value ? ByteSize<std::remove_cv_t<T>>::of(*value) : 0;
    } else {
        return 0;
    }
}

// A tree node's links (libstdc++'s _Rb_tree_node_base: colour and three pointers); a hash
// node's next pointer and cached hash.
inline constexpr std::size_t kTreeNodeLinks = 4 * sizeof(void*);
inline constexpr std::size_t kHashNodeLinks = sizeof(void*) + sizeof(std::size_t);

template <class Tree>
std::size_t tree_bytes(const Tree& tree) {
    return sizeof(tree) + tree.size() * (kTreeNodeLinks + sizeof(typename Tree::value_type)) +
           owned_elements(tree);
}

template <class Table>
std::size_t hash_bytes(const Table& table) {
    return sizeof(table) + table.bucket_count() * sizeof(void*) +
           table.size() * (kHashNodeLinks + sizeof(typename Table::value_type)) +
           owned_elements(table);
}

}  // namespace byte_size_detail

// sizeof(object) plus what each of its parts owns beyond itself: what ropc writes for a struct,
// `rop::fields_byte_size(v, v.name, v.pixels)`, and what a hand-written ByteSize can build on
// (the parts may be accessors' results: `f.bits()`).
template <class T, class... Parts>
std::size_t fields_byte_size(const T& object, const Parts&... parts) {
    return sizeof(object) + (std::size_t{0} + ... + byte_size_detail::owned(parts));
}

// ---- the primary: ropc's derived size, else sizeof --------------------------------------------

template <class T>
struct ByteSize {
    using primary = void;  // not a specialization: byte_size_detail::sizeof_only
    static std::size_t of(const T& value) {
        if constexpr (byte_size_detail::derived<T>) {
            return DerivedByteSize<T>::of(value);
        } else {
            return sizeof(value);
        }
    }
};

// ---- strings and sequences ---------------------------------------------------------------

// The buffer counts only when it is on the heap (not the short-string buffer inside the object).
template <class C, class Traits, class A>
struct ByteSize<std::basic_string<C, Traits, A>> {
    static std::size_t of(const std::basic_string<C, Traits, A>& value) {
        const auto* data = reinterpret_cast<const unsigned char*>(value.data());
        const auto* self = reinterpret_cast<const unsigned char*>(&value);
        const std::less<const unsigned char*> before;
        const bool inside = !before(data, self) && before(data, self + sizeof(value));
        return sizeof(value) + (inside ? 0 : (value.capacity() + 1) * sizeof(C));
    }
};

template <class T, class A>
struct ByteSize<std::vector<T, A>> {
    static std::size_t of(const std::vector<T, A>& value) {
        return sizeof(value) + value.capacity() * sizeof(T) +
               byte_size_detail::owned_elements(value);
    }
};

template <class A>
struct ByteSize<std::vector<bool, A>> {
    static std::size_t of(const std::vector<bool, A>& value) {
        return sizeof(value) + (value.capacity() + 7) / 8;
    }
};

template <class T, std::size_t N>
struct ByteSize<std::array<T, N>> {
    static std::size_t of(const std::array<T, N>& value) {
        return sizeof(value) + byte_size_detail::owned_elements(value);
    }
};

// ---- optional, pointers, variant, pair, tuple ----------------------------------------------

template <class T>
struct ByteSize<std::optional<T>> {
    static std::size_t of(const std::optional<T>& value) {
        return sizeof(value) + (value ? byte_size_detail::owned(*value) : 0);
    }
};

template <class T>
struct ByteSize<std::shared_ptr<T>> {
    static std::size_t of(const std::shared_ptr<T>& value) {
        return sizeof(value) + byte_size_detail::pointee(value.get());
    }
};

template <class T, class D>
struct ByteSize<std::unique_ptr<T, D>> {
    static std::size_t of(const std::unique_ptr<T, D>& value) {
        return sizeof(value) + byte_size_detail::pointee(value.get());
    }
};

template <class... Ts>
struct ByteSize<std::variant<Ts...>> {
    static std::size_t of(const std::variant<Ts...>& value) {
        if (value.valueless_by_exception()) return sizeof(value);
        return sizeof(value) +
               std::visit([](const auto& held) { return byte_size_detail::owned(held); }, value);
    }
};

template <class A, class B>
struct ByteSize<std::pair<A, B>> {
    static std::size_t of(const std::pair<A, B>& value) {
        return sizeof(value) + byte_size_detail::owned(value.first) +
               byte_size_detail::owned(value.second);
    }
};

template <class... Ts>
struct ByteSize<std::tuple<Ts...>> {
    static std::size_t of(const std::tuple<Ts...>& value) {
        return std::apply(
            [&value](const Ts&... element) { return fields_byte_size(value, element...); }, value);
    }
};

// ---- maps and sets -----------------------------------------------------------------------

template <class K, class V, class C, class A>
struct ByteSize<std::map<K, V, C, A>> {
    static std::size_t of(const std::map<K, V, C, A>& value) {
        return byte_size_detail::tree_bytes(value);
    }
};

template <class K, class V, class C, class A>
struct ByteSize<std::multimap<K, V, C, A>> {
    static std::size_t of(const std::multimap<K, V, C, A>& value) {
        return byte_size_detail::tree_bytes(value);
    }
};

template <class K, class C, class A>
struct ByteSize<std::set<K, C, A>> {
    static std::size_t of(const std::set<K, C, A>& value) {
        return byte_size_detail::tree_bytes(value);
    }
};

template <class K, class C, class A>
struct ByteSize<std::multiset<K, C, A>> {
    static std::size_t of(const std::multiset<K, C, A>& value) {
        return byte_size_detail::tree_bytes(value);
    }
};

template <class K, class V, class H, class E, class A>
struct ByteSize<std::unordered_map<K, V, H, E, A>> {
    static std::size_t of(const std::unordered_map<K, V, H, E, A>& value) {
        return byte_size_detail::hash_bytes(value);
    }
};

template <class K, class H, class E, class A>
struct ByteSize<std::unordered_set<K, H, E, A>> {
    static std::size_t of(const std::unordered_set<K, H, E, A>& value) {
        return byte_size_detail::hash_bytes(value);
    }
};

}  // namespace rop
