// The reduce option `on_failure suppress|skip`: allowed on every reduce (with or without
// `with`), rejected on every other construct (E0302 at the option's name), checked values
// (E0303 kind, E0305 unknown word at the value), and its value reaching the Call.
#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "sema_test_util.h"

using rop::test::at;
using rop::test::column_of;
using rop::test::run_sema;

namespace {

const std::string kTemplate = R"(pipeline p;
source docs : Doc = std.files(glob: "x"){source};
pages = expand docs as Page with split{expand};
m = map pages with f{map};
k = filter m with keep{filter};
t = map docs with f;
h = broadcast t to Page{broadcast};
j = map (k, h) with f;
r = reduce j to Doc with join{reduce_with};
q = reduce j to Doc{reduce_plain};
sink (r, q) -> out{sink};
)";

struct Construct {
    std::string name;
    int line;
    bool is_reduce;
};

const std::vector<Construct> kConstructs = {
    {"source", 2, false},       {"expand", 3, false},    {"map", 4, false},
    {"filter", 5, false},       {"broadcast", 7, false}, {"reduce_with", 9, true},
    {"reduce_plain", 10, true}, {"sink", 11, false},
};

std::string with_option(const std::string& construct, const std::string& option) {
    std::string text = kTemplate;
    for (const Construct& c : kConstructs) {
        const std::string marker = "{" + c.name + "}";
        text.replace(text.find(marker), marker.size(), c.name == construct ? option : "");
    }
    return text;
}

}  // namespace

TEST_CASE("on_failure: only on a reduce, with a known word", "[sema][options]") {
    struct Value {
        std::string text;
        std::string id;  // on a reduce: empty when accepted
    };
    const std::vector<Value> values = {
        {"suppress", ""}, {"skip", ""}, {"ignore", "E0305"}, {"\"skip\"", "E0303"}, {"1", "E0303"}};
    for (const Construct& c : kConstructs) {
        for (const Value& value : values) {
            const std::string clause = " on_failure " + value.text;
            const std::string text = with_option(c.name, clause);
            INFO(c.name << ":" << clause);
            const auto run = run_sema(text);
            REQUIRE(run.parsed_cleanly);
            const int option_col = column_of(text, c.line, clause) + 1;
            const int value_col = option_col + static_cast<int>(std::string("on_failure ").size());
            std::vector<std::string> expected;
            if (!c.is_reduce) {
                expected = {at("E0302", c.line, option_col)};
            } else if (!value.id.empty()) {
                expected = {at(value.id, c.line, value_col)};
            }
            CHECK(run.found() == expected);
        }
    }
}

TEST_CASE("on_failure: a plain reduce takes it and nothing else", "[sema][options]") {
    const std::string text = with_option("reduce_plain", " on_failure skip actors 2");
    const auto run = run_sema(text);
    CHECK(run.found() ==
          std::vector<std::string>{at("E0302", 10, column_of(text, 10, "actors 2"))});
    REQUIRE(run.diagnostics.size() == 1);
    REQUIRE(run.diagnostics[0].notes.size() == 1);
    CHECK(run.diagnostics[0].notes[0].message ==
          "reduce without `with` runs no UDF, so it takes only: on_failure");

    const auto on_map = run_sema(with_option("map", " on_failure skip"));
    REQUIRE(on_map.diagnostics.size() == 1);
    CHECK(on_map.diagnostics[0].message == "option 'on_failure' is not allowed on map");
}

TEST_CASE("on_failure: the value reaches the Call, suppress by default", "[sema][options]") {
    const auto run = run_sema(with_option("reduce_with", " on_failure skip batch 4"));
    REQUIRE(run.program.has_value());
    int reduces = 0;
    for (const auto& call : run.program->calls) {
        if (call.kind != rop::sema::CallKind::Reduce) {
            CHECK(call.options.on_failure == rop::sema::OnFailure::Suppress);
            continue;
        }
        ++reduces;
        const bool with_udf = call.op.has_value();
        CHECK(call.options.on_failure ==
              (with_udf ? rop::sema::OnFailure::Skip : rop::sema::OnFailure::Suppress));
    }
    CHECK(reduces == 2);
    const auto plain = run_sema(with_option("reduce_plain", " on_failure skip"));
    REQUIRE(plain.program.has_value());
    bool skipped = false;
    for (const auto& call : plain.program->calls) {
        skipped = skipped || call.options.on_failure == rop::sema::OnFailure::Skip;
    }
    CHECK(skipped);
}
