// rop/vocab/suggest.h: the one "did you mean" rule the compiler and a pipeline binary share.
// Each row is (word, candidates, the suggestion or "" for none).
#include <catch2/catch_test_macros.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "rop/vocab/suggest.h"

namespace {

const std::vector<std::string_view> kOptions = {"batch",   "actors",        "gpus",
                                                "retries", "infra_retries", "recovery",
                                                "timeout", "batching",      "isolation"};

struct Row {
    std::string word;
    std::vector<std::string_view> candidates;
    std::string expected;  // "" = no suggestion
};

}  // namespace

TEST_CASE("suggest: options users mean", "[sema][suggest]") {
    const std::vector<Row> rows = {
        // 1. the same word up to case, separators and a plural
        {"BATCH", kOptions, "batch"},
        {"Batch", kOptions, "batch"},
        {"infraRetries", kOptions, "infra_retries"},
        {"infra-retries", kOptions, "infra_retries"},
        {"retry", kOptions, "retries"},
        {"actor", kOptions, "actors"},
        {"gpu", kOptions, "gpus"},
        {"infra_retry", kOptions, "infra_retries"},
        {"isolate-tail", {"abort", "retry_batch", "retry_tail", "isolate_tail"}, "isolate_tail"},
        // 2. a prefix either way; the nearest length wins
        {"batchsize", kOptions, "batch"},
        {"batch_size", kOptions, "batch"},
        {"batchSize", kOptions, "batch"},
        {"BATCH_SIZE", kOptions, "batch"},
        {"batchin", kOptions, "batching"},
        {"retr", kOptions, "retries"},
        {"timeouts_ms", kOptions, "timeout"},
        {"isolate", {"abort", "retry_batch", "retry_tail", "isolate_tail"}, "isolate_tail"},
        {"single", {"any_parent", "single_parent"}, "single_parent"},
        {"--progres", {"--help", "--progress", "--trace"}, "--progress"},
        // 3. edit distance, at most a third of the word
        {"bach", kOptions, "batch"},
        {"acters", kOptions, "actors"},
        {"timout", kOptions, "timeout"},
        {"recovry", kOptions, "recovery"},
        {"isolaton", kOptions, "isolation"},
        {"--traec", {"--help", "--progress", "--trace"}, "--trace"},
        {"Pgae", {"Doc", "Page", "Region"}, "Page"},
        {"isolate_tial", {"abort", "retry_batch", "retry_tail", "isolate_tail"}, "isolate_tail"},
        // none
        {"colour", kOptions, ""},
        {"x", kOptions, ""},
        {"zz", {"m", "sum"}, ""},
        {"bisect", {"abort", "retry_batch", "retry_tail", "isolate_tail"}, ""},
        {"ba", kOptions, ""},      // too short to be a prefix
        {"batch", {"batch"}, ""},  // the word itself is never a suggestion
        {"anything", {}, ""},
        {"", kOptions, ""},
    };
    for (const Row& row : rows) {
        INFO(row.word);
        const auto got = rop::vocab::closest(row.word, row.candidates);
        CHECK(std::string(got.value_or("")) == row.expected);
    }
}

TEST_CASE("suggest: ties go to the first candidate; any string range works", "[sema][suggest]") {
    CHECK(rop::vocab::closest("cat", std::vector<std::string>{"bat", "hat"}) == "bat");
    CHECK(rop::vocab::closest_index("hta", std::vector<std::string>{"bat", "hat"}) == 1u);
    CHECK_FALSE(rop::vocab::closest_index("zzzz", std::vector<std::string>{"bat"}).has_value());
}

TEST_CASE("suggest: edit distance counts a swap as one edit", "[sema][suggest]") {
    CHECK(rop::vocab::edit_distance("page", "pgae") == 1);
    CHECK(rop::vocab::edit_distance("kitten", "sitting") == 3);
    CHECK(rop::vocab::edit_distance("", "abc") == 3);
    CHECK(rop::vocab::edit_distance("abcdefgh", "zzzzzzzz", 2) == 3);  // gave up past the limit
}
