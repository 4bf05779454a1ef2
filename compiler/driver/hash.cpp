#include "driver/hash.h"

#include <xxhash.h>

#include <fstream>
#include <new>
#include <sstream>

namespace rop::driver {

void Hasher::FreeState::operator()(XXH3_state_s* state) const { XXH3_freeState(state); }

Hasher::Hasher() : state_(XXH3_createState()) {
    if (!state_) throw std::bad_alloc();
    XXH3_128bits_reset(state_.get());
}

Hasher::~Hasher() = default;
Hasher::Hasher(Hasher&&) noexcept = default;
Hasher& Hasher::operator=(Hasher&&) noexcept = default;

Hasher& Hasher::add(std::string_view bytes) {
    // The length as 8 little-endian bytes first, so the pieces' boundaries are part of the key.
    unsigned char size[8];
    const std::uint64_t n = bytes.size();
    for (int i = 0; i < 8; ++i) size[i] = static_cast<unsigned char>(n >> (8 * i));
    XXH3_128bits_update(state_.get(), size, sizeof size);
    XXH3_128bits_update(state_.get(), bytes.data(), bytes.size());
    return *this;
}

std::string Hasher::hex() const {
    // The canonical (big-endian) form: the digits xxhsum -H2 would print for the same stream.
    XXH128_canonical_t canonical;
    XXH128_canonicalFromHash(&canonical, XXH3_128bits_digest(state_.get()));
    static const char digits[] = "0123456789abcdef";
    std::string out(2 * sizeof canonical.digest, '0');
    for (std::size_t i = 0; i < sizeof canonical.digest; ++i) {
        out[2 * i] = digits[canonical.digest[i] >> 4];
        out[2 * i + 1] = digits[canonical.digest[i] & 0xf];
    }
    return out;
}

std::string hash_bytes(std::string_view bytes) { return Hasher().add(bytes).hex(); }

std::optional<std::string> read_whole_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) return std::nullopt;
    return text.str();
}

std::optional<std::string> hash_file(const std::string& path) {
    std::optional<std::string> text = read_whole_file(path);
    if (!text) return std::nullopt;
    return hash_bytes(*text);
}

}  // namespace rop::driver
