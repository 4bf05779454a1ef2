// cpp_string_literal, cpp_comment_text and line_directive: exact spellings for a few inputs,
// then the real proof: tricky and random byte strings compiled by the host compiler into one
// program that writes them back, compared byte for byte (and `#line` names via __FILE__).
#include <catch2/catch_test_macros.hpp>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "codegen/escape.h"
#include "host_compiler.h"

namespace rop::codegen {
namespace {

using namespace std::string_literals;

TEST_CASE("cpp_string_literal spells common bytes readably", "[codegen][escape]") {
    CHECK(cpp_string_literal("") == R"("")");
    CHECK(cpp_string_literal("plain text") == R"("plain text")");
    CHECK(cpp_string_literal("a\"b\\c") == R"("a\"b\\c")");
    CHECK(cpp_string_literal("line\nnext\ttab\r") == R"("line\nnext\ttab\r")");
    CHECK(cpp_string_literal("what?\?/") == R"("what\?\?/")");
    CHECK(cpp_string_literal("x */ y /* z") == R"("x \052/ y /* z")");
    CHECK(cpp_string_literal("nul\0"
                             "1"s) == R"("nul\0001")");  // never merges with a digit
    CHECK(cpp_string_literal("\xff\xfe") == R"("\377\376")");
    CHECK(cpp_string_literal("caf\xc3\xa9") == R"("caf\303\251")");
}

TEST_CASE("cpp_comment_text keeps a comment on one line", "[codegen][escape]") {
    CHECK(cpp_comment_text("examples/a.rop") == "examples/a.rop");
    CHECK(cpp_comment_text("a\nb") == R"(a\012b)");
    CHECK(cpp_comment_text("end\\") == R"(end\\)");
    CHECK(cpp_comment_text("x */ y") == R"(x \052/ y)");
    CHECK(cpp_comment_text("?\?/") == R"(\077?/)");
    for (char c : cpp_comment_text("\r\n\t\x01\x7f\x80\xff")) {
        CHECK(static_cast<unsigned char>(c) >= 0x20);
        CHECK(static_cast<unsigned char>(c) < 0x7f);
    }
}

TEST_CASE("line_directive escapes the file name and checks the line", "[codegen][escape]") {
    CHECK(line_directive("pipeline.rop", 12) == R"(#line 12 "pipeline.rop")");
    CHECK(line_directive("dir \"q\"\\x.rop", 1) == R"(#line 1 "dir \"q\"\\x.rop")");
    CHECK(line_directive("x", 2147483647u) == R"(#line 2147483647 "x")");
    CHECK_THROWS_AS(line_directive("x", 0), std::invalid_argument);
    CHECK_THROWS_AS(line_directive("x", 2147483648u), std::invalid_argument);
}

std::vector<std::string> tricky_strings() {
    std::vector<std::string> cases = {
        "",
        "plain",
        "\"",
        "\\",
        "\\\"",
        "\"\\\"\\\\",
        "?\?=?\?/?\?'?\?(?\?)?\?!?\?<?\?>?\?-",
        "?\?\?/",
        "*/",
        "/* */ */ */",
        "// not a comment",
        "R\"(raw)\"",
        "\\u00e9 \\U0001F600 \\x41 \\101",
        "$var$ $$",
        "\0"s,
        "a\0b\0\0c"s,
        "\0"
        "0"s,
        "\x01\x02\x1f\x7f",
        "\n\r\t\v\f\a\b",
        "trailing backslash \\",
        "\\\n splice",
        "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",                     // valid UTF-8
        "\xc3\x28 \xa0\xa1 \xe2\x28\xa1 \xf0\x28\x8c\xbc \xff\xfe\xfd",  // invalid UTF-8
        "\xed\xa0\x80",                                                  // an encoded surrogate
        std::string(300, '?'),
        "0123456789abcdefABCDEF",
        "\x80"
        "0"
        "\x81"
        "7",
        "#include <evil>\n#define X",
    };
    std::string all_bytes;
    for (int byte = 0; byte < 256; ++byte) all_bytes += static_cast<char>(byte);
    cases.push_back(all_bytes);
    return cases;
}

std::vector<std::string> random_strings(std::size_t count) {
    std::mt19937 random(20261130);  // fixed seed: the same strings every run
    std::uniform_int_distribution<int> length(0, 48);
    std::uniform_int_distribution<int> any_byte(0, 255);
    std::uniform_int_distribution<int> pick(0, 3);
    const std::string special = "\"\\?*/\n\r\t\0$x0"s;
    std::uniform_int_distribution<std::size_t> special_index(0, special.size() - 1);
    std::vector<std::string> strings;
    for (std::size_t i = 0; i < count; ++i) {
        std::string s;
        for (int n = length(random); n > 0; --n) {
            // One byte in four from the characters that need escaping, to hit their neighbours.
            s += pick(random) == 0 ? special[special_index(random)]
                                   : static_cast<char>(any_byte(random));
        }
        strings.push_back(std::move(s));
    }
    return strings;
}

// Bytes of `count` length-prefixed records as the generated program writes them.
std::vector<std::string> read_records(const std::string& data) {
    std::vector<std::string> records;
    std::size_t at = 0;
    while (at + 8 <= data.size()) {
        std::uint64_t size = 0;
        for (int i = 7; i >= 0; --i) {
            size = size << 8 | static_cast<unsigned char>(data[at + static_cast<std::size_t>(i)]);
        }
        at += 8;
        if (at + size > data.size()) break;
        records.push_back(data.substr(at, size));
        at += size;
    }
    return records;
}

TEST_CASE("cpp_string_literal round-trips any bytes through the host compiler",
          "[codegen][escape][host]") {
    std::vector<std::string> strings = tricky_strings();
    for (std::string& s : random_strings(2000)) strings.push_back(std::move(s));
    // File names for `#line`, read back through __FILE__ (no NUL: a path cannot hold one).
    std::vector<std::string> files = {
        "pipeline.rop",     "dir with spaces/x.rop", "quote\"and\\backslash.rop",
        "tri?\?/graph.rop", "star*/slash.rop",       "new\nline\ttab.rop",
        "caf\xc3\xa9.rop",  "\xff\xfe-not-utf8.rop", "$dollar$.rop",
    };

    std::string program = R"src(#include <cstdint>
#include <cstdio>
#include <string_view>

#define ROP_CASE(literal) std::string_view(literal, sizeof(literal) - 1)
static const std::string_view kStrings[] = {
)src";
    for (const std::string& s : strings)
        program += "    ROP_CASE(" + cpp_string_literal(s) + "),\n";
    program += "};\n";
    for (std::size_t i = 0; i < files.size(); ++i) {
        program += line_directive(files[i], static_cast<std::uint32_t>(1000 + i)) + "\n";
        program += "static const std::string_view kFile" + std::to_string(i) +
                   " = ROP_CASE(__FILE__); static const int kLine" + std::to_string(i) +
                   " = __LINE__;\n";
    }
    program += R"src(
static void put(std::FILE* out, std::string_view bytes) {
    std::uint64_t size = bytes.size();
    unsigned char prefix[8];
    for (int i = 0; i < 8; ++i) prefix[i] = static_cast<unsigned char>(size >> (8 * i));
    std::fwrite(prefix, 1, 8, out);
    std::fwrite(bytes.data(), 1, bytes.size(), out);
}

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    std::FILE* out = std::fopen(argv[1], "wb");
    if (!out) return 2;
    for (std::string_view s : kStrings) put(out, s);
)src";
    for (std::size_t i = 0; i < files.size(); ++i) {
        std::string n = std::to_string(i);
        program += "    put(out, kFile" + n + ");\n";
        program += "    { char line[16]; int k = std::snprintf(line, sizeof line, \"%d\", kLine" +
                   n + "); put(out, std::string_view(line, static_cast<std::size_t>(k))); }\n";
    }
    program += "    return std::fclose(out) == 0 ? 0 : 1;\n}\n";

    namespace t = rop::codegen::test;
    auto dir = t::work_dir("string_literal_round_trip");
    t::write_file(dir / "round_trip.cpp", program);
    auto compiled = t::run_command(t::host_cxx() + " -std=c++20 -O0 -o " +
                                       t::shell_quote((dir / "round_trip").string()) + " " +
                                       t::shell_quote((dir / "round_trip.cpp").string()),
                                   dir / "compile.log");
    INFO(compiled.output);
    REQUIRE(compiled.exit_code == 0);
    auto ran = t::run_command(t::shell_quote((dir / "round_trip").string()) + " " +
                                  t::shell_quote((dir / "out.bin").string()),
                              dir / "run.log");
    REQUIRE(ran.exit_code == 0);

    std::vector<std::string> records = read_records(t::read_file(dir / "out.bin"));
    REQUIRE(records.size() == strings.size() + 2 * files.size());
    std::size_t mismatches = 0;
    for (std::size_t i = 0; i < strings.size(); ++i) {
        if (records[i] != strings[i]) {
            ++mismatches;
            UNSCOPED_INFO("string " << i << " came back different; literal "
                                    << cpp_string_literal(strings[i]));
        }
    }
    CHECK(mismatches == 0);
    for (std::size_t i = 0; i < files.size(); ++i) {
        CHECK(records[strings.size() + 2 * i] == files[i]);
        CHECK(records[strings.size() + 2 * i + 1] == std::to_string(1000 + i));
    }
}

}  // namespace
}  // namespace rop::codegen
