// Tok: the payload of the randomized runtime tests. Its content hash encodes the whole lineage of
// the value (which Call made it from which inputs), so equal hashes mean equal results.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "rop/runtime/ids.h"
#include "rop/runtime/udf.h"
#include "rop/runtime/value.h"

namespace rop::runtime::reference {

struct Tok {
    std::uint64_t h = 0;
    // Lineage tag, set only on expand children and roots: the parent's EntityId *in the run that
    // produced it* and the child's ordinal (roots: source ordinal). The public observer API gives
    // EntityIds but not their parents, so tests map EntityId -> EntityPath through this tag. It is
    // not part of the content: comparisons use h only.
    EntityId parent = kNoEntity;
    std::uint32_t ordinal = 0;
};

}  // namespace rop::runtime::reference

// Toks cross between MPI ranks (tests/runtime/mpi/mpi_random.cpp).
template <>
struct rop::Codec<rop::runtime::reference::Tok>
    : rop::FieldsCodec<rop::runtime::reference::Tok, &rop::runtime::reference::Tok::h,
                       &rop::runtime::reference::Tok::parent,
                       &rop::runtime::reference::Tok::ordinal> {};

namespace rop::runtime::reference {

inline std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
    std::uint64_t z = a * 0x9E3779B97F4A7C15ull + b + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// Content of a Value as a hash: Tok -> its h; ReduceGroup -> members and ordinals in order;
// int64 -> its number; empty ("missing") -> a constant; anything else -> a constant per type name.
inline std::uint64_t content_hash(const Value& value) {
    if (!value.has_value()) return 0x5EEDull;
    if (const Tok* tok = value.try_get<Tok>()) return tok->h;
    if (const std::int64_t* i = value.try_get<std::int64_t>()) return mix(0x1A7, std::uint64_t(*i));
    if (const ReduceGroup* group = value.try_get<ReduceGroup>()) {
        std::uint64_t h = mix(0x6A0Bull, group->values.size());
        for (std::size_t i = 0; i < group->values.size(); ++i) {
            std::uint32_t ordinal = i < group->ordinals.size() ? group->ordinals[i] : ~0u;
            h = mix(mix(h, ordinal), content_hash(group->values[i]));
        }
        return h;
    }
    std::uint64_t h = 0xBADull;
    for (char c : value.type()->name) h = mix(h, static_cast<unsigned char>(c));
    return h;
}

// Printable canonical content, for comparisons and failure messages (int64: decimal).
inline std::string canonical(const Value& value) {
    if (!value.has_value()) return "-";
    if (const std::int64_t* i = value.try_get<std::int64_t>()) return std::to_string(*i);
    char buf[24];
    if (const ReduceGroup* group = value.try_get<ReduceGroup>()) {
        std::string out = "[";
        for (std::size_t i = 0; i < group->values.size(); ++i) {
            if (i) out += ' ';
            out += i < group->ordinals.size() ? std::to_string(group->ordinals[i]) : "?";
            out += ':' + canonical(group->values[i]);
        }
        return out + "]";
    }
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(content_hash(value)));
    return value.try_get<Tok>() ? std::string(buf) : std::string(value.type()->name) + ":" + buf;
}

}  // namespace rop::runtime::reference
