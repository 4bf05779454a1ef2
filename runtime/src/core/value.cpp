// Out-of-line parts of Value: codec access, error messages, Outcome names.
#include "rop/runtime/value.h"

#include <mutex>
#include <unordered_map>

#include "rop/runtime/ids.h"

namespace rop::runtime {

const char* to_string(Outcome outcome) {
    switch (outcome) {
        case Outcome::Unresolved: return "UNRESOLVED";
        case Outcome::Present: return "PRESENT";
        case Outcome::Dropped: return "DROPPED";
        case Outcome::Failed: return "FAILED";
        case Outcome::Suppressed: return "SUPPRESSED";
    }
    return "?";
}

std::string Value::encode() const {
    if (!ptr_) throw ContractError("Value::encode: empty value");
    if (!type_->encode) {
        throw ContractError("Value::encode: type " + std::string(type_->name) + " has no Codec");
    }
    std::string out;
    type_->encode(ptr_.get(), out);
    return out;
}

Value Value::decode(const TypeInfo& type, std::string_view bytes) {
    if (!type.decode) {
        throw ContractError("Value::decode: type " + std::string(type.name) + " has no Codec");
    }
    return Value(type.decode(bytes), &type);
}

void Value::add_content(rop::ContentSink& key) const {
    if (!ptr_) return;
    if (type_->encode || !type_->content_key) key.bytes(encode());  // ContractError: neither
    if (type_->content_key) type_->content_key(ptr_.get(), key);
}

void Value::throw_bad_get(const TypeInfo& wanted) const {
    if (!ptr_) {
        throw ContractError("Value::get<" + std::string(wanted.name) + ">: the value is empty");
    }
    throw ContractError("Value::get<" + std::string(wanted.name) + ">: the value holds " +
                        std::string(type_->name));
}

namespace {
std::unordered_map<std::string_view, const TypeInfo*>& type_registry() {
    static std::unordered_map<std::string_view, const TypeInfo*> registry;
    return registry;
}
std::mutex& type_registry_mutex() {
    static std::mutex mutex;
    return mutex;
}
}  // namespace

const TypeInfo* find_type(std::string_view name) {
    std::lock_guard<std::mutex> lock(type_registry_mutex());
    auto it = type_registry().find(name);
    return it == type_registry().end() ? nullptr : it->second;
}

namespace detail {
void register_type(const TypeInfo& info) {
    std::lock_guard<std::mutex> lock(type_registry_mutex());
    type_registry().emplace(info.type->name(), &info);
}

void throw_trailing_bytes(std::string_view type) {
    throw ContractError("Codec<" + std::string(type) + ">::decode: trailing bytes");
}
}  // namespace detail

}  // namespace rop::runtime
