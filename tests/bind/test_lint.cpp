// The nondeterminism lint: each obvious source is flagged once, where it is written; the
// look-alikes that are deterministic are not.
#include <catch2/catch_test_macros.hpp>

#include "bind_test_util.h"

namespace rop::bind::test {
namespace {

const UdfLibrary& lint_lib() {
    const ReadResult& read = read_fixture("lint.hpp");
    REQUIRE(read.errors.empty());
    return read.library;
}

TEST_CASE("bind lint: flags obvious sources of nondeterminism where they are written", "[bind]") {
    const std::string h = "lint.hpp";
    struct Case {
        std::string udf;
        std::string what;
        SourceLoc location;
        std::string via;
    };
    const std::vector<Case> cases = {
        {"lint::uses_random_device", "std::random_device",
         loc_of(h, "std::random_device device", "device;"), ""},
        {"lint::uses_rand", "rand()", loc_of(h, "uses_rand(", "std::rand"), ""},
        {"lint::uses_clock", "std::chrono::steady_clock::now()",
         loc_of(h, "std::chrono::steady_clock::now"), ""},
        {"lint::uses_system_clock", "std::chrono::system_clock::now()",
         loc_of(h, "return x + std::chrono::system_clock::now", "std::chrono"), ""},
        {"lint::uses_time", "time()", loc_of(h, "::time(nullptr)"), ""},
        {"lint::uses_getenv", "getenv()", loc_of(h, "std::getenv"), ""},
        {"lint::iterates_unordered_map", "iteration over std::unordered_map",
         loc_of(h, "for (const auto& [key, value] : counts) {"), ""},
        {"lint::begins_unordered_set", "iteration over std::unordered_set",
         loc_of(h, "seen.begin()", "seen"), ""},
        {"lint::calls_helper", "rand()", loc_of(h, "helper_random() {", "std::rand"),
         "lint::helper_random"},
        {"lint::Sampler", "std::random_device", loc_of(h, "std::random_device{}"), ""},
        {"lint::lambda_clock", "std::chrono::system_clock::now()",
         loc_of(h, "auto now = [] {", "std::chrono"), ""},
    };
    for (const Case& c : cases) {
        INFO(c.udf);
        const UdfDecl& decl = udf(lint_lib(), c.udf);
        REQUIRE(decl.nondeterminism.size() == 1);
        const NondeterminismFinding& finding = decl.nondeterminism.front();
        CHECK(finding.udf == c.udf);
        CHECK(finding.what == c.what);
        CHECK(finding.location == c.location);
        CHECK(finding.via == c.via);
    }
}

TEST_CASE("bind lint: deterministic look-alikes are not flagged", "[bind]") {
    for (const char* name :
         {"lint::seeded_engine", "lint::ordered_iteration", "lint::unordered_lookup",
          "lint::local_named_time", "lint::own_rand", "lint::declared_only"}) {
        INFO(name);
        CHECK(udf(lint_lib(), name).nondeterminism.empty());
    }
    CHECK_FALSE(udf(lint_lib(), "lint::declared_only").has_body);
}

TEST_CASE("bind lint: looks one call deep, no further", "[bind]") {
    CHECK(udf(lint_lib(), "lint::helper_twice_removed").nondeterminism.size() == 1);
    CHECK(udf(lint_lib(), "lint::two_levels_deep").nondeterminism.empty());
}

TEST_CASE("bind lint: off, bodies are skipped and nothing is reported", "[bind]") {
    std::vector<BindError> errors;
    ReadOptions options;
    options.lint = false;
    UdfLibrary lib = read_udfs({fixture("lint.hpp")}, include_dirs(), &errors, options);
    REQUIRE(errors.empty());
    for (const UdfDecl& decl : lib.decls) {
        INFO(decl.qualified_name);
        CHECK(decl.nondeterminism.empty());
        CHECK_FALSE(decl.has_body);
    }
}

}  // namespace
}  // namespace rop::bind::test
