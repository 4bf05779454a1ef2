// The Call option table (rop/vocab/call_options.h) is the one vocabulary: docs/language.md's
// option table is rendered from it row by row, the one CallOptions (the compiler's and the
// runtime's) defaults to its values and maps every option it lists to a field (a set value
// reads back), and generated code spells options through it (options_with).
#include <catch2/catch_test_macros.hpp>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "rop/runtime/plan.h"
#include "rop/vocab/call_options.h"
#include "sema/call_options.h"
#include "sema/plan_json.h"
#include "sema/program.h"
#include "sema_test_util.h"

namespace vocab = rop::vocab;
namespace sema = rop::sema;
namespace runtime = rop::runtime;

namespace {

constexpr const char* kBegin = "<!-- call-options:begin";
constexpr const char* kEnd = "<!-- call-options:end -->";

std::string number(double value) {
    if (value == std::floor(value)) return std::to_string(static_cast<long long>(value));
    std::string text = std::to_string(value);
    while (text.back() == '0') text.pop_back();
    return text;
}

std::string join(std::span<const std::string_view> words, const char* separator) {
    std::string out;
    for (std::string_view w : words) out += (out.empty() ? "" : separator) + std::string(w);
    return out;
}

std::string kind_text(vocab::OptionKind kind) {
    switch (kind) {
        case vocab::OptionKind::Int: return "integer";
        case vocab::OptionKind::Number: return "number";
        case vocab::OptionKind::Gpus: return "integer or number";
        case vocab::OptionKind::Duration: return "duration";
        case vocab::OptionKind::Enum: return "word";
    }
    return "?";
}

std::string range_text(const vocab::CallOptionSpec& spec) {
    switch (spec.kind) {
        case vocab::OptionKind::Gpus:
            return "whole GPUs 1.." + number(spec.max) +
                   ", or a fraction in (0, 1] sharing one GPU";
        case vocab::OptionKind::Duration:
            return "> 0s, <= " + number(spec.max / 86'400'000) + "d (" +
                   number(spec.max / 3'600'000) + "h)";
        case vocab::OptionKind::Enum: return join(spec.enumerators, ", ");
        case vocab::OptionKind::Int:
        case vocab::OptionKind::Number: break;
    }
    return number(spec.min) + ".." + number(spec.max);
}

std::string default_text(const vocab::CallOptionSpec& spec) {
    switch (spec.kind) {
        case vocab::OptionKind::Enum:
            return std::string(spec.enumerators[static_cast<std::size_t>(spec.default_value)]);
        case vocab::OptionKind::Duration:
        case vocab::OptionKind::Gpus:
            if (spec.default_value == 0) return "none";
            break;
        case vocab::OptionKind::Int:
        case vocab::OptionKind::Number: break;
    }
    return number(spec.default_value);
}

std::string yes_no(bool yes) { return yes ? "yes" : "no"; }

// One row per option: the docs' layout, every cell taken from the table.
std::vector<std::string> catalogue_rows() {
    std::vector<std::string> rows = {
        "| option | kind | range | default | map / filter / expand / reduce with `with` | "
        "source, sink | broadcast, reduce without `with` | `--set` | meaning |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"};
    for (const vocab::CallOptionSpec& spec : vocab::call_options()) {
        const bool call = vocab::allowed_at(spec, vocab::OptionSite::Call);
        const bool reduce = vocab::allowed_at(spec, vocab::OptionSite::Reduce);
        const bool source = vocab::allowed_at(spec, vocab::OptionSite::Source);
        const bool sink = vocab::allowed_at(spec, vocab::OptionSite::Sink);
        const std::string on_calls = call ? "yes" : reduce ? "on a reduce only" : "no";
        const std::string ends = source && sink ? "yes"
                                 : source       ? "source only"
                                 : sink         ? "sink only"
                                                : "no";
        const std::string no_udf = reduce ? "on a reduce only" : "no";
        rows.push_back("| `" + std::string(spec.name) + "` | " + kind_text(spec.kind) + " | " +
                       range_text(spec) + " | " + default_text(spec) + " | " + on_calls + " | " +
                       ends + " | " + no_udf + " | " + yes_no(spec.run_time) + " | " +
                       std::string(spec.meaning) + " |");
    }
    return rows;
}

// The lines between the markers in docs/language.md (blank lines dropped).
std::vector<std::string> docs_rows() {
    std::ifstream in(std::string(ROP_SOURCE_DIR) + "/docs/language.md");
    std::vector<std::string> rows;
    std::string line;
    bool inside = false;
    while (std::getline(in, line)) {
        if (line.starts_with(kBegin)) {
            inside = true;
        } else if (line.starts_with(kEnd)) {
            break;
        } else if (inside && !line.empty()) {
            rows.push_back(line);
        }
    }
    return rows;
}

std::string lines(const std::vector<std::string>& rows) {
    std::string out;
    for (const std::string& row : rows) out += row + "\n";
    return out;
}

// A value of the option other than its default, as the language writes it and as the table
// counts it (number, milliseconds or enumerator index).
struct Sample {
    std::string text;
    double value;
};

Sample non_default(const vocab::CallOptionSpec& spec) {
    switch (spec.kind) {
        case vocab::OptionKind::Enum: {
            const std::size_t i = spec.default_value == 0 ? spec.enumerators.size() - 1 : 0;
            return {std::string(spec.enumerators[i]), static_cast<double>(i)};
        }
        case vocab::OptionKind::Duration: return {"2m", 120'000};
        case vocab::OptionKind::Gpus: return {"0.5", 0.5};
        case vocab::OptionKind::Int:
        case vocab::OptionKind::Number: break;
    }
    return {number(spec.max), spec.max};
}

}  // namespace

TEST_CASE("docs/language.md's option table is the catalogue", "[vocab][docs]") {
    const std::vector<std::string> expected = catalogue_rows();
    const std::vector<std::string> found = docs_rows();
    // On a failure, paste the expected table between the markers in docs/language.md.
    INFO("expected:\n" << lines(expected) << "docs/language.md has:\n" << lines(found));
    REQUIRE(found.size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        INFO("row " << i);
        CHECK(found[i] == expected[i]);
    }
}

TEST_CASE("the docs table check notices a changed cell", "[vocab][docs]") {
    std::vector<std::string> rows = catalogue_rows();
    const std::string infra = "| `infra_retries` | integer | 0..100 | 3 |";
    std::size_t row = 0;
    while (row < rows.size() && !rows[row].starts_with(infra)) ++row;
    REQUIRE(row < rows.size());  // the unified default, as docs/language.md states it
    rows[row].replace(rows[row].find(" 3 |"), 4, " 2 |");
    CHECK(rows != docs_rows());
}

TEST_CASE("one CallOptions for compiler and runtime, defaulting to the table, option by option",
          "[vocab][defaults]") {
    static_assert(std::is_same_v<sema::CallOptions, vocab::CallOptions>);
    static_assert(std::is_same_v<runtime::CallOptions, vocab::CallOptions>);
    static_assert(std::is_same_v<sema::CallKind, runtime::CallKind>);
    const vocab::CallOptions defaults{};
    for (const vocab::CallOptionSpec& spec : vocab::call_options()) {
        INFO(spec.name);
        CHECK(vocab::option_value(defaults, spec) == spec.default_value);
    }
    CHECK(defaults.infra_retries == 3u);
    CHECK(defaults.timeout.count() == 0);  // none
}

TEST_CASE("options_with: generated code's spelling of the options that differ",
          "[vocab][codegen]") {
    constexpr vocab::CallOptions options = vocab::options_with(
        {{"batch", 16}, {"recovery", "retry_tail"}, {"timeout", 30000}, {"gpus", 0.5}});
    CHECK(options.batch == 16u);
    CHECK(options.recovery == vocab::Recovery::RetryTail);
    CHECK(options.timeout.count() == 30'000);
    CHECK(options.gpus == 0.5);
    vocab::CallOptions expected;
    expected.batch = 16;
    expected.recovery = vocab::Recovery::RetryTail;
    expected.timeout = std::chrono::milliseconds(30'000);
    expected.gpus = 0.5;
    CHECK(options == expected);  // and every other field at its default
    CHECK(vocab::options_with({}) == vocab::CallOptions{});
}

TEST_CASE("every option of the table reaches a field on both sides", "[vocab][fields]") {
    for (const vocab::CallOptionSpec& spec : vocab::call_options()) {
        const Sample sample = non_default(spec);
        INFO(spec.name << " " << sample.text);
        REQUIRE(sample.value != spec.default_value);

        // The compiler: checked without a diagnostic, stored in its field.
        const bool reduce_only = !vocab::allowed_at(spec, vocab::OptionSite::Call);
        const std::string text =
            "pipeline p;\nsource docs : Doc = std.files(glob: \"x\");\n" +
            std::string(reduce_only ? "pages = expand docs as Page with split;\n"
                                      "out = reduce pages to Doc with join "
                                    : "out = map docs with f ") +
            // memory_mb limits a worker process: only with isolation process (else E0307)
            std::string(spec.name == "memory_mb" ? "isolation process " : "") +
            std::string(spec.name) + " " + sample.text +
            ";\nsink out -> std.io.Jsonl(path: \"y\");\n";
        const auto run = rop::test::run_sema(text);
        // (isolation process too: whether its item types have codecs is binding's check, E0306.)
        CHECK(run.found() == std::vector<std::string>{});
        REQUIRE(run.program.has_value());
        const sema::CallKind kind = reduce_only ? sema::CallKind::Reduce : sema::CallKind::Map;
        const sema::Call* call = nullptr;
        for (const sema::Call& c : run.program->calls) {
            if (c.kind == kind) call = &c;
        }
        REQUIRE(call != nullptr);
        CHECK(sema::option_value(call->options, spec) == sample.value);

        // The one setter (--set's) and getter agree, and change that field only.
        vocab::CallOptions options;
        vocab::set_option_value(options, spec, sample.value);
        CHECK(vocab::option_value(options, spec) == sample.value);
        for (const vocab::CallOptionSpec& other : vocab::call_options()) {
            if (other.name != spec.name) {
                CHECK(vocab::option_value(options, other) == other.default_value);
            }
        }
    }
}

TEST_CASE("the enumerations have one spelling on both sides", "[vocab][words]") {
    CHECK(std::string(sema::to_string(sema::Recovery::RetryTail)) == "retry_tail");
    CHECK(std::string(sema::to_string(sema::OnFailure::Skip)) == "skip");
    CHECK(vocab::from_word<runtime::Recovery>("isolate_tail") == runtime::Recovery::IsolateTail);
    CHECK(vocab::from_word<runtime::Batching>("single_parent") == runtime::Batching::SingleParent);
    CHECK_FALSE(vocab::from_word<runtime::Isolation>("vm").has_value());
    const vocab::CallOptionSpec* recovery = vocab::find_call_option("recovery");
    REQUIRE(recovery != nullptr);
    CHECK(join(recovery->enumerators, ",") == "abort,retry_batch,retry_tail,isolate_tail");
}

TEST_CASE("the plan JSON has one key per option of the table", "[vocab][plan]") {
    const auto run = rop::test::run_sema(
        "pipeline p;\nsource docs : Doc = std.files(glob: \"x\");\n"
        "out = map docs with f batch 8 timeout 30s recovery retry_tail;\n"
        "sink out -> std.io.Jsonl(path: \"y\");\n");
    REQUIRE(run.program.has_value());
    const nlohmann::json plan = nlohmann::json::parse(sema::plan_json(*run.program, *run.sources));
    const nlohmann::json* options = nullptr;
    for (const nlohmann::json& call : plan["calls"]) {
        if (call["kind"] == "map") options = &call["options"];
    }
    REQUIRE(options != nullptr);
    std::set<std::string> expected;
    for (const vocab::CallOptionSpec& spec : vocab::call_options()) {
        expected.insert(std::string(spec.name) +
                        (spec.kind == vocab::OptionKind::Duration ? "_ms" : ""));
    }
    std::set<std::string> keys;
    for (const auto& [key, value] : options->items()) keys.insert(key);
    CHECK(keys == expected);
    CHECK((*options)["batch"] == 8);
    CHECK((*options)["timeout_ms"] == 30000);
    CHECK((*options)["recovery"] == "retry_tail");
    CHECK((*options)["infra_retries"] == 3);
    CHECK((*options)["on_failure"] == "suppress");
    CHECK((*options)["gpus"] == 0.0);
}
