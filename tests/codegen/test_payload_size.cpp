// The payload budget counts what an item holds (docs/udfs.md, "How many bytes an item holds"),
// through ropc's generated code, over tests/codegen/fixtures/payload_budget: the sizes ropc
// derives field by field (a struct holding a 1 KiB string, a vector of them, a stdlib Image, a
// recursive tree), none for a class with private state (sizeof), a header's own rop::ByteSize
// winning over ropc's; then the pipeline built and run: its roots hold 20 MiB each in a struct,
// so --max-payload-mb 4 admits one at a time and 1024 all three at once.
#include <catch2/catch_test_macros.hpp>
#include <cstddef>
#include <string>

#include "host_compiler.h"

namespace rop::codegen {
namespace {

namespace t = rop::codegen::test;

const std::string kFixture = std::string(ROP_CODEGEN_FIXTURES) + "/payload_budget";

constexpr const char* kSizes = R"cpp(
#include <cstdio>
#include <memory>

    template <class T>
    bool at_least(const char* what, const T& value, std::size_t bytes) {
        const std::size_t counted = rop::byte_size(value);
        std::printf("%s: %zu bytes (want at least %zu)\n", what, counted, bytes);
        return counted >= bytes;
    }

    int main() {
        bool ok = true;
        const pb::Kid kid{std::string(1024, 'k'), 7};
        ok = at_least("kid", kid, sizeof(pb::Kid) + 1024) && ok;
        ok = at_least("ten kids", std::vector<pb::Kid>(10, kid), 10 * (sizeof(pb::Kid) + 1024)) && ok;
        rop::stdlib::Image image;
        image.width = 640;
        image.height = 480;
        image.channels = 3;
        image.pixels = std::make_shared<const std::vector<std::uint8_t>>(640 * 480 * 3);
        ok = at_least("image", image, 640 * 480 * 3) && ok;
        pb::Blob blob;
        blob.kids.assign(4, kid);
        blob.picture = image;
        blob.tree = pb::Tree{"root", {pb::Tree{std::string(2048, 't'), {}}}};
        ok = at_least("blob", blob, 4 * 1024 + 640 * 480 * 3 + 2048) && ok;
        const pb::Sealed sealed(std::string(4096, 's'));
        std::printf("sealed: %zu bytes\n", rop::byte_size(sealed));
        ok = rop::byte_size(sealed) == sizeof(pb::Sealed) && ok;
        const pb::Counted counted{std::string(100000, 'c')};
        std::printf("counted: %zu bytes\n", rop::byte_size(counted));
        ok = rop::byte_size(counted) == 4096 && ok;
        std::printf("%s\n", ok ? "payload sizes ok" : "payload sizes WRONG");
        return ok ? 0 : 1;
    }
)cpp";

std::string ropc_env(const std::filesystem::path& dir) {
    return "cd " + t::shell_quote(kFixture) +
           " && ROP_CACHE_DIR=" + t::shell_quote((dir / "cache").string()) + " " +
           t::shell_quote(ROP_ROPC);
}

// The number after `"key": ` in a run report (written with an indent of 2).
std::size_t report_number(const std::string& report, const std::string& key) {
    const std::string prefix = "\"" + key + "\": ";
    const auto at = report.find(prefix);
    REQUIRE(at != std::string::npos);
    return std::stoull(report.substr(at + prefix.size()));
}

TEST_CASE("payload sizes: ropc derives a struct's bytes field by field",
          "[codegen][host][payload]") {
    const auto dir = t::work_dir("payload_sizes");
    const std::filesystem::path generated = dir / "generated.cpp";
    const t::CommandResult emit =
        t::run_command("(" + ropc_env(dir) + " build payload_budget.rop --emit=cpp >" +
                           t::shell_quote(generated.string()) + ")",
                       dir / "emit.log");
    INFO(emit.output);
    REQUIRE(emit.exit_code == 0);
    const std::string cpp = t::read_file(generated);
    const auto begin = cpp.find("// What the structs passed between stages hold");
    const auto end = cpp.find("\nnamespace {");
    REQUIRE(begin != std::string::npos);
    REQUIRE(end != std::string::npos);
    const std::string block = cpp.substr(begin, end - begin);
    INFO(block);
    auto at = [&block](const std::string& type) {
        return block.find("struct rop::DerivedByteSize<" + type + ">");
    };
    for (const char* type : {"pb::Kid", "pb::Tree", "pb::Blob", "rop::stdlib::Image"}) {
        CHECK(at(type) != std::string::npos);
    }
    CHECK(at("pb::Sealed") == std::string::npos);  // private state: ropc cannot read it
    CHECK(at("pb::Kid") < at("pb::Blob"));         // each after those it uses
    CHECK(at("rop::stdlib::Image") < at("pb::Blob"));

    const std::string flags = " -std=c++20 -Wall -Wextra -Werror" + t::rop_include_flags() +
                              " -I " + t::shell_quote(kFixture);
    t::write_file(dir / "sizes.cpp", "#include \"payload_budget.hpp\"\n" + block + kSizes);
    const t::CommandResult built =
        t::run_command(t::host_cxx() + flags + " -o " + t::shell_quote((dir / "sizes").string()) +
                           " " + t::shell_quote((dir / "sizes.cpp").string()),
                       dir / "sizes_compile.log");
    INFO(built.output);
    REQUIRE(built.exit_code == 0);
    const t::CommandResult ran =
        t::run_command(t::shell_quote((dir / "sizes").string()), dir / "sizes.log");
    INFO(ran.output);
    CHECK(ran.exit_code == 0);
    CHECK(ran.output.find("payload sizes ok") != std::string::npos);
}

TEST_CASE("payload budget: roots holding 20 MiB in a struct wait under --max-payload-mb 4",
          "[codegen][host][payload]") {
    const auto dir = t::work_dir("payload_budget");
    const std::string binary = (dir / "payload_budget").string();
    const t::CommandResult built = t::run_command(
        "(" + ropc_env(dir) + " build payload_budget.rop -O1 -o " + t::shell_quote(binary) + ")",
        dir / "build.log");
    INFO(built.output);
    REQUIRE(built.exit_code == 0);
    for (const std::size_t mb : {4u, 1024u}) {
        CAPTURE(mb);
        const std::filesystem::path report = dir / ("report_" + std::to_string(mb) + ".json");
        const t::CommandResult ran =
            t::run_command("(cd " + t::shell_quote(dir.string()) + " && " + t::shell_quote(binary) +
                               " --max-payload-mb " + std::to_string(mb) + " --report " +
                               t::shell_quote(report.string()) + ")",
                           dir / ("run_" + std::to_string(mb) + ".log"));
        INFO(ran.output);
        REQUIRE(ran.exit_code == 0);
        const std::string json = t::read_file(report);
        // One root's payloads (20480 kids of 1 KiB) are over 4 MiB by themselves: the next root
        // waits until it is done. Counted as sizeof(Blob), all three would be admitted at once.
        CHECK(report_number(json, "peak_inflight_roots") == (mb == 4 ? 1u : 3u));
        CHECK(report_number(json, "peak_live_bytes") >= std::size_t{20} << 20);
    }
}

}  // namespace
}  // namespace rop::codegen
