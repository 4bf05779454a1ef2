// Every id in the diagnostic catalogue is exercised by at least one golden file, and documented
// in docs/diagnostics.md (which `ropc --explain` embeds).
#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <set>
#include <string>

#include "ropc_runner.h"
#include "support/diagnostics.h"

namespace {

// Ids no golden can reach yet; list single ids here only when one truly cannot be produced
// from a .rop file today.
const std::set<std::string> kNotYetReachable = {};

std::set<std::string> codes_in_goldens() {
    std::set<std::string> codes;
    for (const auto& entry : std::filesystem::directory_iterator(ROP_GOLDEN_DIR)) {
        if (entry.path().extension() != ".expected") continue;
        const std::string text = rop::test::read_file(entry.path().string());
        for (std::size_t at = text.find(" ["); at != std::string::npos;
             at = text.find(" [", at + 1)) {
            const std::size_t close = text.find("]\n", at);
            if (close != std::string::npos && close - at == 7) codes.insert(text.substr(at + 2, 5));
        }
    }
    return codes;
}

}  // namespace

TEST_CASE("every catalogue id has a golden diagnostic", "[diagnostics][catalogue]") {
    const std::set<std::string> covered = codes_in_goldens();
    for (const rop::DiagInfo& info : rop::diag_catalog()) {
        const std::string code(info.code);
        if (kNotYetReachable.count(code) != 0) continue;
        INFO("diagnostic " << code << " (" << info.summary << ") has no golden in "
                           << ROP_GOLDEN_DIR);
        CHECK(covered.count(code) == 1);
    }
}

TEST_CASE("every golden input has its expected output", "[diagnostics][catalogue]") {
    std::size_t inputs = 0;
    for (const auto& entry : std::filesystem::directory_iterator(ROP_GOLDEN_DIR)) {
        if (entry.path().extension() != ".rop") continue;
        ++inputs;
        std::filesystem::path expected = entry.path();
        expected.replace_extension(".expected");
        INFO("missing golden " << expected);
        CHECK(std::filesystem::exists(expected));
    }
    CHECK(inputs >= 40);
}

TEST_CASE("every catalogue id is documented and explained", "[diagnostics][catalogue]") {
    const std::string doc = rop::test::read_file(ROP_DIAGNOSTICS_DOC);
    for (const rop::DiagInfo& info : rop::diag_catalog()) {
        const std::string code(info.code);
        INFO("docs/diagnostics.md has no section '### " << code << "'");
        CHECK(doc.find("\n### " + code + ":") != std::string::npos);
    }
    const auto explained = rop::test::run_ropc({"--explain", "E0203"});
    CHECK(explained.exit_code == 0);
    CHECK(explained.out.rfind("### E0203:", 0) == 0);
}

TEST_CASE("catalogue ids are unique and well formed", "[diagnostics][catalogue]") {
    std::set<std::string_view> codes;
    for (const rop::DiagInfo& info : rop::diag_catalog()) {
        CHECK(info.code.size() == 5);
        CHECK(codes.insert(info.code).second);
        REQUIRE(rop::diag_by_code(info.code).has_value());
        CHECK(*rop::diag_by_code(info.code) == info.id);
    }
}
