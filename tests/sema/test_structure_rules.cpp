// Statement shape: input and output counts per construct, optional inputs, duplicate inputs.
#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "sema_test_util.h"

using rop::test::at;
using rop::test::run_sema;

namespace {

// Streams in Doc: docs, t; in Page: pages, pt.
const std::string kHead = R"(pipeline p;
source docs : Doc = std.files(glob: "x");
pages = expand docs as Page with s;
t = map docs with f;
pt = map pages with f;
)";
constexpr int kLine = 6;

struct Row {
    std::string statement;
    std::vector<std::string> errors;
};

void check_rows(const std::vector<Row>& rows) {
    for (const Row& row : rows) {
        INFO(row.statement);
        const auto run = run_sema(kHead + row.statement + "\n");
        REQUIRE(run.parsed_cleanly);
        CHECK(run.found() == row.errors);
    }
}

}  // namespace

TEST_CASE("input count per construct", "[sema][structure]") {
    check_rows({
        {"x = map (docs, t) with f;", {}},
        {"x = map (docs) with f;", {}},
        {"x = filter t with keep;", {}},
        {"x = filter (docs, t) with keep;", {at("E0210", kLine, 13)}},
        {"x = expand (docs, t) as Part with s;", {at("E0210", kLine, 13)}},
        {"x = broadcast (docs, t) to Page;", {at("E0210", kLine, 16)}},
        {"x = reduce (pages, pt) to Doc;", {at("E0210", kLine, 13)}},
        {"x = reduce (pages, pt) to Doc with join;", {at("E0210", kLine, 13)}},
    });
}

TEST_CASE("only map and a reduce with a UDF have several outputs", "[sema][structure]") {
    check_rows({
        {"(x, y) = map docs with f;", {}},
        {"(x, y, z) = map (docs, t) with f;", {}},
        {"(x, y) = filter t with keep;", {at("E0211", kLine, 2)}},
        {"(x, y) = expand docs as Part with s;", {at("E0211", kLine, 2)}},
        {"(x, y) = broadcast t to Page;", {at("E0211", kLine, 2)}},
        {"(x, y) = reduce pt to Doc with join;", {}},
        {"(x, y, z) = reduce pt to Doc with join;", {}},
        {"(x, y) = reduce pt to Doc;", {at("E0211", kLine, 2)}},
        {"(x) = reduce pt to Doc;", {}},
    });
}

TEST_CASE("optional inputs only on a map with several inputs", "[sema][structure]") {
    check_rows({
        {"x = map (docs, t?) with f;", {}},
        {"x = map (docs?, t) with f;", {}},
        {"x = map (pages, pt?) with f;", {}},
        {"x = map docs? with f;", {at("E0212", kLine, 9)}},
        {"x = filter t? with keep;", {at("E0212", kLine, 12)}},
        {"x = expand docs? as Part with s;", {at("E0212", kLine, 12)}},
        {"x = broadcast t? to Page;", {at("E0212", kLine, 15)}},
        {"x = reduce pt? to Doc;", {at("E0212", kLine, 12)}},
        {"sink (docs, t?) -> out;", {at("E0212", kLine, 13)}},
        {"x = map (docs?, t?) with f;", {at("E0213", kLine, 10)}},
    });
}

TEST_CASE("a stream is given once as input", "[sema][structure]") {
    check_rows({
        {"x = map (docs, docs) with f;", {at("E0214", kLine, 16)}},
        {"x = map (docs, t, docs?) with f;", {at("E0214", kLine, 19)}},
        {"sink (t, t) -> out;", {at("E0214", kLine, 10)}},
        {"sink (t, docs) -> out;", {}},
    });
}
