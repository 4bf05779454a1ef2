// Content hashing for the build cache: a 128-bit XXH3 digest (libxxhash), printed as 32 hex
// digits. Not cryptographic; collisions are not a concern for a local cache keyed on files the
// user controls.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

struct XXH3_state_s;

namespace rop::driver {

// Streams its inputs into one XXH3-128 state; not copyable (the state is libxxhash's).
class Hasher {
  public:
    Hasher();
    ~Hasher();
    Hasher(Hasher&&) noexcept;
    Hasher& operator=(Hasher&&) noexcept;

    Hasher& add(std::string_view bytes);  // length-prefixed, so ("ab","c") != ("a","bc")
    std::string hex() const;

  private:
    struct FreeState {
        void operator()(XXH3_state_s* state) const;
    };
    std::unique_ptr<XXH3_state_s, FreeState> state_;
};

std::string hash_bytes(std::string_view bytes);
// The hash of a file's contents; nullopt when it cannot be read.
std::optional<std::string> hash_file(const std::string& path);
std::optional<std::string> read_whole_file(const std::string& path);

}  // namespace rop::driver
