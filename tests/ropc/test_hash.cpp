// driver/hash.h: the build cache's keys are XXH3-128 (libxxhash) over length-prefixed pieces,
// printed in xxhsum's canonical hex; a file hashes like its bytes.
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "driver/hash.h"

using rop::driver::hash_bytes;
using rop::driver::hash_file;
using rop::driver::Hasher;

TEST_CASE("hash: XXH3-128 of the length-prefixed stream, canonical hex", "[hash]") {
    // Computed with libxxhash directly: XXH3_128bits over 8 little-endian length bytes + piece.
    CHECK(hash_bytes("") == "2c0a8a99dc147d5445c3b49d035665b2");
    CHECK(hash_bytes("rop") == "e0c5d5a42e426784735e3026c4552d12");
    CHECK(Hasher().add("rop").hex() == hash_bytes("rop"));
}

TEST_CASE("hash: pieces' boundaries are part of the key", "[hash]") {
    CHECK(Hasher().add("ab").add("c").hex() != Hasher().add("a").add("bc").hex());
    CHECK(Hasher().add("abc").hex() != Hasher().add("ab").add("c").hex());
    CHECK(Hasher().add("").add("x").hex() != Hasher().add("x").hex());
    CHECK(hash_bytes("a") != hash_bytes("b"));
}

TEST_CASE("hash: hex() does not consume the state; a moved Hasher keeps it", "[hash]") {
    Hasher h;
    h.add("one");
    const std::string first = h.hex();
    CHECK(h.hex() == first);
    Hasher moved = std::move(h);
    moved.add("two");
    CHECK(moved.hex() == Hasher().add("one").add("two").hex());
}

TEST_CASE("hash: a file hashes like its bytes; an unreadable one is nullopt", "[hash]") {
    const std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("rop-hash-test-" + std::to_string(getpid()));
    std::string bytes(100000, '\0');
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 131 + 7);
    {
        std::ofstream out(path, std::ios::binary);
        out << bytes;
    }
    CHECK(hash_file(path.string()) == hash_bytes(bytes));
    std::filesystem::remove(path);
    CHECK_FALSE(hash_file(path.string()).has_value());
}
