// Out-of-line parts of Value: codec access, error messages, Outcome names.
#include "rop/runtime/value.h"

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

void Value::throw_bad_get(const TypeInfo& wanted) const {
    if (!ptr_) {
        throw ContractError("Value::get<" + std::string(wanted.name) + ">: the value is empty");
    }
    throw ContractError("Value::get<" + std::string(wanted.name) + ">: the value holds " +
                        std::string(type_->name));
}

namespace detail {
void throw_short_input(std::string_view type) {
    throw ContractError("Codec<" + std::string(type) + ">::decode: input too short");
}
void throw_trailing_bytes(std::string_view type) {
    throw ContractError("Codec<" + std::string(type) + ">::decode: trailing bytes");
}
}  // namespace detail

}  // namespace rop::runtime
