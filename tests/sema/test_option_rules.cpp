// Call options: every option x every construct x in-range / out-of-range / wrong-kind value,
// plus unknown and duplicate options, each with the exact id and line:col.
#include <catch2/catch_test_macros.hpp>
#include <map>
#include <string>
#include <vector>

#include "sema_test_util.h"

using rop::test::at;
using rop::test::column_of;
using rop::test::run_sema;

namespace {

// One statement per construct; {X} marks where the option goes.
struct Construct {
    std::string name;
    int line;
    bool takes_udf_options;  // map, filter, expand, reduce with `with`
    bool is_source_or_sink;  // takes retries, infra_retries, timeout only
};

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

const std::vector<Construct> kConstructs = {
    {"source", 2, false, true},
    {"expand", 3, true, false},
    {"map", 4, true, false},
    {"filter", 5, true, false},
    {"broadcast", 7, false, false},
    {"reduce_with", 9, true, false},
    {"reduce_plain", 10, false, false},
    {"sink", 11, false, true},
};

std::string with_option(const std::string& construct, const std::string& option) {
    std::string text = kTemplate;
    for (const Construct& c : kConstructs) {
        const std::string marker = "{" + c.name + "}";
        text.replace(text.find(marker), marker.size(), c.name == construct ? option : "");
    }
    return text;
}

struct Value {
    std::string text;
    // empty: accepted, without a warning; else E0303 / E0304 / E0305, reported at the value.
    // (`isolation process` is accepted here; binding checks that the Call's item types have
    // codecs, E0306.)
    std::string id;
};

const std::map<std::string, std::vector<Value>> kValues = {
    {"batch",
     {{"1", ""},
      {"48", ""},
      {"65536", ""},
      {"0", "E0304"},
      {"65537", "E0304"},
      {"4.5", "E0303"},
      {"\"8\"", "E0303"},
      {"8s", "E0303"},
      {"big", "E0303"}}},
    {"actors",
     {{"1", ""},
      {"4096", ""},
      {"0", "E0304"},
      {"4097", "E0304"},
      {"1.5", "E0303"},
      {"true", "E0303"}}},
    // gpus: whole GPUs (1..64) or a fraction in (0, 1] of one shared GPU; nothing between.
    {"gpus",
     {{"1", ""},
      {"0.25", ""},
      {"0.5", ""},
      {"1.0", ""},
      {"2", ""},
      {"2.0", ""},
      {"64", ""},
      {"0", "E0304"},
      {"0.0", "E0304"},
      {"1.5", "E0304"},
      {"2.5", "E0304"},
      {"-1", "E0304"},
      {"-0.5", "E0304"},
      {"64.5", "E0304"},
      {"65", "E0304"},
      {"one", "E0303"},
      {"1s", "E0303"}}},
    {"retries", {{"0", ""}, {"100", ""}, {"101", "E0304"}, {"2.0", "E0303"}, {"1s", "E0303"}}},
    {"infra_retries", {{"0", ""}, {"100", ""}, {"101", "E0304"}, {"\"3\"", "E0303"}}},
    {"recovery",
     {{"abort", ""},
      {"retry_batch", ""},
      {"retry_tail", ""},
      {"isolate_tail", ""},
      {"bisect", "E0305"},
      {"isolate_tial", "E0305"},
      {"3", "E0303"},
      {"\"abort\"", "E0303"}}},
    {"timeout",
     {{"30s", ""},
      {"500ms", ""},
      {"2m", ""},
      {"1h", ""},
      {"168h", ""},
      {"0s", "E0304"},
      {"169h", "E0304"},
      {"30", "E0303"},
      {"1.5", "E0303"}}},
    {"batching",
     {{"any_parent", ""}, {"single_parent", ""}, {"per_parent", "E0305"}, {"1", "E0303"}}},
    {"isolation", {{"thread", ""}, {"process", ""}, {"vm", "E0305"}, {"\"process\"", "E0303"}}},
};

bool allowed(const Construct& c, const std::string& option) {
    if (c.takes_udf_options) return true;
    if (!c.is_source_or_sink) return false;
    return option == "retries" || option == "infra_retries" || option == "timeout";
}

}  // namespace

TEST_CASE("every option on every construct / in and out of range", "[sema][options]") {
    std::size_t rows = 0;
    for (const Construct& c : kConstructs) {
        for (const auto& [option, values] : kValues) {
            for (const Value& value : values) {
                const std::string clause = " " + option + " " + value.text;
                const std::string text = with_option(c.name, clause);
                INFO(c.name << ":" << clause);
                const auto run = run_sema(text);
                REQUIRE(run.parsed_cleanly);
                const int option_col = column_of(text, c.line, clause) + 1;
                const int value_col = option_col + static_cast<int>(option.size()) + 1;
                std::vector<std::string> expected;
                if (!allowed(c, option)) {
                    expected = {at("E0302", c.line, option_col)};
                } else if (!value.id.empty()) {
                    expected = {at(value.id, c.line, value_col)};
                }
                CHECK(run.found(rop::Severity::Warning) == expected);
                ++rows;
            }
        }
    }
    CHECK(rows > 400);
}

TEST_CASE("unknown options / with a suggestion", "[sema][options]") {
    for (const Construct& c : kConstructs) {
        const std::string text = with_option(c.name, " bach 4");
        INFO(c.name);
        const auto run = run_sema(text);
        CHECK(run.found() ==
              std::vector<std::string>{at("E0300", c.line, column_of(text, c.line, " bach") + 1)});
        REQUIRE(run.diagnostics.size() == 1);
        REQUIRE(run.diagnostics[0].fixit.has_value());
        CHECK(run.diagnostics[0].fixit->replacement == "batch");
    }
}

TEST_CASE("unknown options / the suggestion is the option users mean", "[sema][options]") {
    const std::vector<std::pair<std::string, std::string>> rows = {
        {"batchsize", "batch"},  // not 'batching', whose fix-it would then fail with E0303
        {"batch_size", "batch"}, {"batchSize", "batch"},           {"BATCH", "batch"},
        {"retry", "retries"},    {"infra_retry", "infra_retries"}, {"actor", "actors"},
        {"timout", "timeout"},   {"recover", "recovery"},
    };
    for (const auto& [word, expected] : rows) {
        const std::string text = with_option("map", " " + word + " 8");
        INFO(word);
        const auto run = run_sema(text);
        CHECK(run.found() ==
              std::vector<std::string>{at("E0300", 4, column_of(text, 4, " " + word) + 1)});
        REQUIRE(run.diagnostics.size() == 1);
        REQUIRE(run.diagnostics[0].fixit.has_value());
        CHECK(run.diagnostics[0].fixit->replacement == expected);
        CHECK(run.diagnostics[0].notes.at(0).message == "did you mean '" + expected + "'?");
    }
}

TEST_CASE("gpus out of range states the rule", "[sema][options]") {
    const auto run = run_sema(with_option("map", " gpus 1.5"));
    REQUIRE(run.diagnostics.size() == 1);
    CHECK(run.diagnostics[0].message ==
          "option 'gpus' is out of range: 1.5; it takes a whole number of GPUs from 1 to 64, or a "
          "fraction greater than 0 and at most 1 that shares one GPU");
}

TEST_CASE("an option is given once", "[sema][options]") {
    const std::string text = with_option("map", " batch 4 actors 2 batch 8");
    const auto run = run_sema(text);
    CHECK(run.found() == std::vector<std::string>{at("E0301", 4, column_of(text, 4, "batch 8"))});
    const std::string twice_wrong = with_option("map", " timeout 1s timeout 0s");
    CHECK(run_sema(twice_wrong).found() ==
          std::vector<std::string>{at("E0301", 4, column_of(twice_wrong, 4, "timeout 0s"))});
}

TEST_CASE("checked options reach the Call with defaults filled in", "[sema][options]") {
    const auto run = run_sema(with_option("map",
                                          " batch 48 gpus 0.5 recovery isolate_tail timeout 2m "
                                          "batching single_parent isolation thread"));
    REQUIRE(run.program.has_value());
    const auto& call = run.program->calls[2];
    REQUIRE(call.kind == rop::sema::CallKind::Map);
    CHECK(call.options.batch == 48);
    CHECK(call.options.gpus == 0.5);
    CHECK(call.options.actors == 1);  // default
    CHECK(call.options.retries == 0);
    CHECK(call.options.infra_retries == 3);
    CHECK(call.options.recovery == rop::sema::Recovery::IsolateTail);
    CHECK(call.options.timeout.count() == 120000);
    CHECK(call.options.batching == rop::sema::Batching::SingleParent);
    CHECK(call.options.isolation == rop::sema::Isolation::Thread);
    const auto& other = run.program->calls[3];
    CHECK(other.options.batch == 1);
    CHECK(other.options.timeout.count() == 0);                          // none
    CHECK(other.options.recovery == rop::sema::Recovery::IsolateTail);  // SEMANTICS.md
}

TEST_CASE("isolation process passes sema, written as given for binding's E0306",
          "[sema][options]") {
    const std::string text = with_option("map", " batch 4 isolation process");
    const auto run = run_sema(text);
    CHECK(run.found(rop::Severity::Warning) == std::vector<std::string>{});
    REQUIRE(run.program.has_value());
    const rop::sema::Call* map = nullptr;
    for (const rop::sema::Call& call : run.program->calls) {
        if (call.options.isolation == rop::sema::Isolation::Process) map = &call;
    }
    REQUIRE(map != nullptr);  // the one Call written with it
    CHECK(map->kind == rop::sema::CallKind::Map);
    // The options as written, where E0306 points (the whole `isolation process`).
    REQUIRE(map->written.size() == 2);
    const rop::ast::Option& isolation = map->written[1];
    CHECK(isolation.name.name == "isolation");
    CHECK(isolation.value.text == "process");
    CHECK(static_cast<int>(
              run.sources->line_col(isolation.range.file, isolation.range.begin).column) ==
          column_of(text, 4, "isolation"));
    CHECK(isolation.range.end - isolation.range.begin == std::string("isolation process").size());
}

TEST_CASE("gpus is accepted and recorded without a warning, also under -Werror",
          "[sema][options]") {
    // The runtime places it (docs/cluster.md): nothing to warn about.
    const std::string text = with_option("map", " batch 4 gpus 0.5");
    const auto run = run_sema(text);
    CHECK(run.diagnostics.empty());
    REQUIRE(run.program.has_value());
    CHECK(run.program->calls[2].options.gpus == 0.5);  // recorded for the plan
    const auto strict = run_sema(text, /*werror=*/true);
    CHECK(strict.diagnostics.empty());
    CHECK(strict.program.has_value());

    // An out-of-range gpus is E0304, at the value.
    const std::string bad = with_option("map", " gpus 1.5");
    CHECK(run_sema(bad).found(rop::Severity::Warning) ==
          std::vector<std::string>{at("E0304", 4, column_of(bad, 4, "1.5"))});
}
