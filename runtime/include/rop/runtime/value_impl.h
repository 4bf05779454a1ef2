// Implementation half of value.h: type_info_of<T>(). The codecs (rop::Codec and the builtin ones)
// live in <rop/codec.h>, the payload sizes (rop::ByteSize) in <rop/byte_size.h>. Included at the
// end of value.h; not standalone.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace rop::runtime {

namespace detail {

using rop::codec_detail::type_name;  // the codecs' readable type name (rop/codec.h)

[[noreturn]] void throw_trailing_bytes(std::string_view type);

template <class T>
TypeInfo make_type_info() {
    TypeInfo info{&typeid(T), type_name<T>(), nullptr, nullptr,
                  [](const void* value) { return ByteSize<T>::of(*static_cast<const T*>(value)); }};
    if constexpr (rop::has_content_key<T>) {
        info.content_key = [](const void* value, rop::ContentSink& key) {
            rop::ContentKey<T>::add(*static_cast<const T*>(value), key);
        };
    }
    if constexpr (has_codec<T>) {
        info.encode = [](const void* value, std::string& out) {
            Codec<T>::encode(*static_cast<const T*>(value), out);
        };
        info.decode = [](std::string_view bytes) -> std::shared_ptr<const void> {
            std::string_view in = bytes;
            std::shared_ptr<const T> value;
            try {
                value = std::make_shared<const T>(Codec<T>::decode(in));
            } catch (const CodecError& error) {
                throw ContractError(error.what());  // bytes that do not decode break the contract
            }
            if (!in.empty()) throw_trailing_bytes(type_name<T>());
            return value;
        };
    }
    return info;
}

}  // namespace detail

namespace detail {
// Every type a binary makes Values of is known by its typeid name from the start of the program
// (dynamic initialization of this member, for each T whose type_info_of is instantiated): a
// process worker decodes the items it is sent by the name they travel with (find_type).
void register_type(const TypeInfo& info);
template <class T>
struct TypeRegistration {
    static inline const bool registered = (register_type(type_info_of<T>()), true);
};
}  // namespace detail

template <class T>
const TypeInfo& type_info_of() {
    static const TypeInfo info = detail::make_type_info<T>();
    (void)detail::TypeRegistration<T>::registered;
    return info;
}

// The TypeInfo of the type whose typeid name is `name`, among those registered above; nullptr
// when this binary never makes Values of it.
const TypeInfo* find_type(std::string_view name);

}  // namespace rop::runtime
