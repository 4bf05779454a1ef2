// Shared by the rop::bind tests: fixture paths, reading a fixture once per process, and the
// exact file:line:col of a piece of fixture text (so expectations name real positions).
#pragma once

#include <catch2/catch_test_macros.hpp>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bind/udf_reader.h"

namespace rop::bind::test {

inline std::string fixture(const std::string& name) {
    return std::string(ROP_BIND_FIXTURES) + "/" + name;
}

// <rop/udf.h> (the UDF API) and <rop/stdlib/*.h>, as ropc finds them in the source tree.
inline std::vector<std::string> include_dirs() { return {ROP_API_INCLUDE, ROP_STDLIB_INCLUDE}; }

struct ReadResult {
    UdfLibrary library;
    std::vector<BindError> errors;
};

// Reads fixtures/<name>, with or without the precompiled prelude.
inline ReadResult read_fresh(const std::string& name, bool prelude) {
    ReadResult result;
    ReadOptions options;
    if (prelude) options.pch_cache_dir = std::string(ROP_BIND_TEST_CACHE) + "/shared";
    result.library = read_udfs({fixture(name)}, include_dirs(), &result.errors, options);
    return result;
}

// Reads fixtures/<name> once per process, with the prelude cache shared by all test processes
// (test_prelude_cache.cpp checks it answers as a full parse does).
inline const ReadResult& read_fixture(const std::string& name) {
    static std::map<std::string, ReadResult> cache;
    auto found = cache.find(name);
    if (found != cache.end()) return found->second;
    return cache.emplace(name, read_fresh(name, true)).first->second;
}

// Where `needle` first occurs in fixtures/<name>, as read_udfs names that file.
inline SourceLoc loc_of(const std::string& name, const std::string& needle) {
    std::ifstream in(fixture(name));
    std::string line;
    for (std::uint32_t number = 1; std::getline(in, line); ++number) {
        auto column = line.find(needle);
        if (column != std::string::npos) {
            return {fixture(name), number, static_cast<std::uint32_t>(column + 1)};
        }
    }
    FAIL("fixture text not found: " << needle);
    return {};
}

// Where `needle` first occurs on the first line of fixtures/<name> that contains `line_needle`.
inline SourceLoc loc_of(const std::string& name, const std::string& line_needle,
                        const std::string& needle) {
    SourceLoc line = loc_of(name, line_needle);
    std::ifstream in(fixture(name));
    std::string text;
    for (std::uint32_t number = 1; std::getline(in, text); ++number) {
        if (number != line.line) continue;
        auto column = text.find(needle, line.column - 1);
        if (column != std::string::npos) {
            return {fixture(name), number, static_cast<std::uint32_t>(column + 1)};
        }
    }
    FAIL("fixture text not found: " << needle << " after " << line_needle);
    return {};
}

inline const UdfDecl& udf(const UdfLibrary& library, const std::string& name) {
    const UdfDecl* decl = library.find(name);
    INFO("looking up " << name);
    REQUIRE(decl != nullptr);
    return *decl;
}

}  // namespace rop::bind::test
