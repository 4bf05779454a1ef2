// rop/fields.h: a struct's fields by name, for the record sources and sinks of std.io
// (JsonlSource, CsvSource, JsonlSink, CsvSink): standard headers only.
//
// ropc writes the table for every record type a pipeline reads or writes, in the generated file;
// a header may write it by hand instead (ropc then leaves it alone), to rename a column or leave
// a field out:
//
//   template <>
//   struct rop::Fields<demo::Order> {
//       static constexpr auto list = std::make_tuple(rop::field("id", &demo::Order::id),
//                                                    rop::field("qty", &demo::Order::quantity));
//   };
#pragma once

#include <cstddef>
#include <string_view>
#include <tuple>
#include <type_traits>

namespace rop {

// One field: its name in the record (a JSON key, a CSV column) and the member it maps onto.
template <class Class, class Member>
struct Field {
    using type = Member;
    std::string_view name;
    Member Class::* member;
};

template <class Class, class Member>
constexpr Field<Class, Member> field(std::string_view name, Member Class::* member) {
    return {name, member};
}

// Specialized per record type with `static constexpr auto list`: a std::tuple of rop::Field.
template <class T>
struct Fields;

template <class T>
concept HasFields = requires { Fields<T>::list; };

// Calls `f(field)` for each field of T, in the table's order.
template <class T, class F>
constexpr void for_each_field(F&& f) {
    std::apply([&f](const auto&... fields) { (f(fields), ...); }, Fields<T>::list);
}

template <class T>
constexpr std::size_t field_count() {
    return std::tuple_size_v<std::remove_cvref_t<decltype(Fields<T>::list)>>;
}

}  // namespace rop
