// 128-bit content digests (libxxhash's XXH3-128, printed as 32 lowercase hex digits): the keys
// of the result store (result_store.h) and the hashes its entries carry. Not cryptographic: the
// store is a cache the user controls, not a defence against someone who forges collisions.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

struct XXH3_state_s;

namespace rop::runtime::detail {

// A digest as bytes, in XXH3's canonical (big-endian) order: hex() prints the digits
// `xxhsum -H2` would print for the same stream.
struct Digest {
    std::array<unsigned char, 16> bytes{};

    std::string hex() const;
    // Exactly 32 hex digits (either case); nothing for anything else.
    static std::optional<Digest> from_hex(std::string_view hex);
    friend bool operator==(const Digest&, const Digest&) = default;
};

// Streams its inputs into one XXH3-128 state. Every piece is framed (add: its length first;
// add_u64: 8 fixed bytes), so ("ab", "c") and ("a", "bc") give different digests. Not copyable
// (the state is libxxhash's); not for concurrent use.
class Hasher {
  public:
    Hasher();
    ~Hasher();
    Hasher(Hasher&&) noexcept;
    Hasher& operator=(Hasher&&) noexcept;

    Hasher& add(std::string_view bytes);      // 8 little-endian length bytes, then the bytes
    Hasher& add_u64(std::uint64_t value);     // 8 little-endian bytes
    Hasher& add_raw(std::string_view bytes);  // the bytes alone, unframed (a whole payload)
    Digest digest() const;                    // of everything added so far; adding may go on
    std::string hex() const { return digest().hex(); }

  private:
    struct FreeState {
        void operator()(XXH3_state_s* state) const;
    };
    std::unique_ptr<XXH3_state_s, FreeState> state_;
};

// The digest of `bytes` alone, unframed: XXH3-128 of exactly these bytes.
Digest digest_of(std::string_view bytes);

}  // namespace rop::runtime::detail
