// std.text: read, normalize_whitespace, nonempty, join, to_json_string.
#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "rop/stdlib/text.h"

using namespace rop::stdlib;

TEST_CASE("read gives UTF-8, replacing invalid bytes, and fails one record when missing") {
    const auto path = std::filesystem::temp_directory_path() /
                      ("rop-stdlib-text-" + std::to_string(::getpid()) + ".txt");
    std::ofstream(path, std::ios::binary) << "\xEF\xBB\xBFh\xC3\xA9llo \xFF!";
    CHECK(text::read(File{path.string(), "t", {}}) == "h\xC3\xA9llo \xEF\xBF\xBD!");
    std::filesystem::remove(path);
    try {
        text::read(File{path.string(), "t", {}});
        FAIL("a missing file must throw");
    } catch (const rop::RecordFailure& failure) {
        CHECK(std::string(failure.reason()).find("cannot read") == 0);
    }
}

TEST_CASE("normalize_whitespace trims lines and collapses blank runs") {
    CHECK(text::normalize_whitespace("  a \t b  \r\n\r\n\n\n c\n\n") == "a b\n\nc");
    CHECK(text::normalize_whitespace("\n\n  \n") == "");
    CHECK(text::normalize_whitespace("one\ntwo") == "one\ntwo");
}

TEST_CASE("nonempty, join and to_json_string") {
    CHECK_FALSE(text::nonempty(" \n\t\r "));
    CHECK(text::nonempty(" x "));
    const std::vector<std::string> parts{"a", "b", "c"};
    CHECK(text::join(parts, ", ") == "a, b, c");
    CHECK(text::join(parts) == "a\n\nb\n\nc");
    CHECK(text::join({}, "-") == "");
    CHECK(text::to_json_string("q\"\n\x01").text == "\"q\\\"\\n\\u0001\"");
    CHECK(text::to_markdown("# t").text == "# t");
}
