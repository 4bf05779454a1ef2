// Content hashing for the build cache: a 128-bit digest (two independent 64-bit FNV-1a lanes
// with a final mix), printed as 32 hex digits. Not cryptographic; collisions are not a concern
// for a local cache keyed on files the user controls.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rop::driver {

class Hasher {
  public:
    Hasher& add(std::string_view bytes);  // length-prefixed, so ("ab","c") != ("a","bc")
    std::string hex() const;

  private:
    std::uint64_t a_ = 0xcbf29ce484222325ull;
    std::uint64_t b_ = 0x84222325cbf29ce4ull;
};

std::string hash_bytes(std::string_view bytes);
// The hash of a file's contents; nullopt when it cannot be read.
std::optional<std::string> hash_file(const std::string& path);
std::optional<std::string> read_whole_file(const std::string& path);

}  // namespace rop::driver
