#include "cache/digest.h"

#include <xxhash.h>

#include <new>

namespace rop::runtime::detail {

namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

Digest canonical(XXH128_hash_t hash) {
    XXH128_canonical_t canonical;
    XXH128_canonicalFromHash(&canonical, hash);
    Digest out;
    static_assert(sizeof canonical.digest == sizeof out.bytes);
    for (std::size_t i = 0; i < out.bytes.size(); ++i) out.bytes[i] = canonical.digest[i];
    return out;
}

}  // namespace

std::string Digest::hex() const {
    std::string out(2 * bytes.size(), '0');
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        out[2 * i] = kHexDigits[bytes[i] >> 4];
        out[2 * i + 1] = kHexDigits[bytes[i] & 0xf];
    }
    return out;
}

std::optional<Digest> Digest::from_hex(std::string_view hex) {
    Digest out;
    if (hex.size() != 2 * out.bytes.size()) return std::nullopt;
    for (std::size_t i = 0; i < out.bytes.size(); ++i) {
        const int high = hex_value(hex[2 * i]);
        const int low = hex_value(hex[2 * i + 1]);
        if (high < 0 || low < 0) return std::nullopt;
        out.bytes[i] = static_cast<unsigned char>(high << 4 | low);
    }
    return out;
}

void Hasher::FreeState::operator()(XXH3_state_s* state) const { XXH3_freeState(state); }

Hasher::Hasher() : state_(XXH3_createState()) {
    if (!state_) throw std::bad_alloc();
    XXH3_128bits_reset(state_.get());
}

Hasher::~Hasher() = default;
Hasher::Hasher(Hasher&&) noexcept = default;
Hasher& Hasher::operator=(Hasher&&) noexcept = default;

Hasher& Hasher::add_u64(std::uint64_t value) {
    unsigned char bytes[8];
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>(value >> (8 * i));
    XXH3_128bits_update(state_.get(), bytes, sizeof bytes);
    return *this;
}

Hasher& Hasher::add(std::string_view bytes) {
    add_u64(bytes.size());
    return add_raw(bytes);
}

Hasher& Hasher::add_raw(std::string_view bytes) {
    XXH3_128bits_update(state_.get(), bytes.data(), bytes.size());
    return *this;
}

Digest Hasher::digest() const { return canonical(XXH3_128bits_digest(state_.get())); }

Digest digest_of(std::string_view bytes) {
    return canonical(XXH3_128bits(bytes.data(), bytes.size()));
}

}  // namespace rop::runtime::detail
