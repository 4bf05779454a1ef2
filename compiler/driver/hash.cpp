#include "driver/hash.h"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace rop::driver {
namespace {

std::uint64_t mix(std::uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

}  // namespace

Hasher& Hasher::add(std::string_view bytes) {
    auto feed = [this](unsigned char byte) {
        a_ = (a_ ^ byte) * 0x100000001b3ull;
        b_ = (b_ ^ static_cast<unsigned char>(byte + 0x5b)) * 0x100000001b3ull;
        b_ ^= b_ >> 29;
    };
    std::uint64_t size = bytes.size();
    for (int i = 0; i < 8; ++i) feed(static_cast<unsigned char>(size >> (8 * i)));
    for (char c : bytes) feed(static_cast<unsigned char>(c));
    return *this;
}

std::string Hasher::hex() const {
    char buffer[33];
    std::snprintf(buffer, sizeof buffer, "%016llx%016llx",
                  static_cast<unsigned long long>(mix(a_ ^ (b_ << 1))),
                  static_cast<unsigned long long>(mix(b_ + 0x9e3779b97f4a7c15ull * a_)));
    return buffer;
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
