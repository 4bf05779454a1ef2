// Value: a type-erased, immutable, reference-counted payload. Copying a Value never copies the
// payload; a codec hook (how a type becomes bytes and back) lets out-of-process executors move it.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>

#include "rop/byte_size.h"
#include "rop/codec.h"
#include "rop/content_key.h"

namespace rop::runtime {

// Codec<T> (encode/decode) for payload types that must cross a process boundary is rop::Codec,
// the one template a UDF header specializes (<rop/codec.h>); has_codec<T> tells whether one
// exists. Specialize it as rop::Codec: a specialization cannot be declared through this alias.
using rop::Codec;
using rop::CodecError;
using rop::has_codec;
// ByteSize<T>::of(value), the bytes a payload holds for the payload budget, is rop::ByteSize
// (<rop/byte_size.h>): ropc derives it for structs of public fields, a UDF header specializes it
// for a type of its own; sizeof(T) otherwise.
using rop::ByteSize;

// Type description shared by every Value of one C++ type.
struct TypeInfo {
    const std::type_info* type;
    std::string_view name;  // demangled where available
    // Both null when the type has no Codec specialization.
    void (*encode)(const void* value, std::string& out);
    std::shared_ptr<const void> (*decode)(std::string_view bytes);
    std::size_t (*byte_size)(const void* value);  // ByteSize<T>::of: the payload budget's count
    // rop::ContentKey<T>::add where T specializes it (<rop/content_key.h>): content beyond the
    // Codec's bytes (a file an item names). Null: the Codec's bytes are all of it.
    void (*content_key)(const void* value, rop::ContentSink& key) = nullptr;
};

template <class T>
const TypeInfo& type_info_of();

class ContractError : public std::logic_error {
  public:
    using std::logic_error::logic_error;
};

class Value {
  public:
    Value() = default;  // empty: "missing" (an optional input whose item was DROPPED)

    template <class T, class... Args>
    static Value make(Args&&... args) {
        return Value(std::make_shared<const T>(std::forward<Args>(args)...), &type_info_of<T>());
    }
    template <class T>
    static Value of(T value) {
        return make<T>(std::move(value));
    }

    bool has_value() const { return ptr_ != nullptr; }
    explicit operator bool() const { return has_value(); }
    const TypeInfo* type() const { return type_; }

    // Checked access: throws ContractError naming both types on a mismatch or an empty Value.
    template <class T>
    const T& get() const {
        if (const T* p = try_get<T>()) return *p;
        throw_bad_get(type_info_of<T>());
    }
    template <class T>
    const T* try_get() const {
        if (!ptr_ || *type_->type != typeid(T)) return nullptr;
        return static_cast<const T*>(ptr_.get());
    }

    std::size_t byte_size() const { return ptr_ ? type_->byte_size(ptr_.get()) : 0; }
    // Codec access; throws ContractError when the type has no Codec.
    std::string encode() const;
    static Value decode(const TypeInfo& type, std::string_view bytes);

    bool same_object(const Value& other) const { return ptr_ == other.ptr_; }
    // The payload's content into `key` (the result store's keys): its Codec bytes, then what
    // rop::ContentKey adds where the type has one (ContractError with neither). Empty: nothing.
    void add_content(rop::ContentSink& key) const;

  private:
    Value(std::shared_ptr<const void> ptr, const TypeInfo* type)
        : ptr_(std::move(ptr)), type_(type) {}
    [[noreturn]] void throw_bad_get(const TypeInfo& wanted) const;

    std::shared_ptr<const void> ptr_;
    const TypeInfo* type_ = nullptr;
};

}  // namespace rop::runtime

#include "rop/runtime/value_impl.h"  // type_info_of<T>, builtin codecs
