// Code fingerprints (issue 29; docs/build.md, "Code fingerprints"): a table of edits to the
// fixture's UDFs against whether each Call's digest changes, through the real ropc
// (`ropc build --emit=plan`, which reads the code as a build does); what a fallback says; and
// the compile flags that count, through fingerprint_udfs itself (ropc has no flag of its own
// that would pass -D or -f to the user's files).
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "bind/code_fingerprint.h"
#include "ropc_runner.h"

using nlohmann::json;
using rop::test::run_ropc;
namespace fs = std::filesystem;

namespace {

const fs::path kFixture = fs::path(ROP_GOLDEN_DIR) / "fingerprint";

// A fresh copy of the fixture, to edit.
fs::path copy_fixture(const std::string& name) {
    const fs::path dir =
        fs::temp_directory_path() / ("rop-fingerprint-" + std::to_string(getpid())) / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    fs::copy(kFixture, dir, fs::copy_options::recursive);
    return dir;
}

std::string slurp(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// Replaces the one occurrence of `from` in `file` (the edit must apply).
void edit(const fs::path& file, const std::string& from, const std::string& to) {
    std::string text = slurp(file);
    const std::size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
    std::ofstream(file) << text;
}

// Each Call's `code` by its C++ symbol, from `ropc build --emit=plan` in `dir`.
json codes(const fs::path& dir, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"build", "fp.rop", "--emit=plan", "--src", "lib/other.cpp"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto result = run_ropc(args, dir.string());
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    const json plan = json::parse(result.out);
    json out = json::object();
    for (const json& call : plan["calls"]) {
        if (call["binding"].is_null() || call["binding"]["code"].is_null()) continue;
        out[call["binding"]["cpp_symbol"].get<std::string>()] = call["binding"]["code"];
    }
    return out;
}

}  // namespace

TEST_CASE("code fingerprint: which edits change a UDF's digest", "[ropc][fingerprint]") {
    struct Row {
        std::string what;
        std::string file;  // in the fixture
        std::string from, to;
        std::string udf;  // whose digest is compared
        bool changes;
    };
    const std::vector<Row> rows = {
        {"a comment", "udfs/fp.cpp", "// the score: a weight, scaled",
         "// a longer comment about the score", "fp::score", false},
        {"whitespace and line breaks", "udfs/fp.cpp", "std::int64_t total = weight(text) + kScale;",
         "std::int64_t   total =\n        weight( text )\n      + kScale ;", "fp::score", false},
        {"a renamed local variable (documented: it counts)", "udfs/fp.cpp",
         "std::int64_t total = weight(text) + kScale;\n    return bonus(total);",
         "std::int64_t sum = weight(text) + kScale;\n    return bonus(sum);", "fp::score", true},
        {"a changed constant the UDF reads", "udfs/fp.cpp", "kScale = 7", "kScale = 8", "fp::score",
         true},
        {"a changed callee in another .cpp (--src)", "lib/other.cpp", "n + 1", "n + 2", "fp::score",
         true},
        {"a changed inline helper in the header", "udfs/fp.hpp", "* 3;", "* 4;", "fp::score", true},
        {"a function no UDF reaches", "udfs/fp.cpp", "text.size()) - 1", "text.size()) - 2",
         "fp::score", false},
        {"a class UDF's out-of-line operator()", "udfs/fp.cpp", "weight(text) * k_",
         "weight(text) * k_ + 1", "fp::Scaler", true},
        {"a class UDF's field initializer", "udfs/fp.hpp", "k_ = 1;", "k_ = 3;", "fp::Scaler",
         true},
        {"the header helper, seen from the class UDF", "udfs/fp.hpp", "* 3;", "* 4;", "fp::Scaler",
         true},
        {"a comment in the class", "udfs/fp.hpp", "// A class UDF: its constructor here",
         "// A class UDF (edited comment)", "fp::Scaler", false},
        // The fallback hashes fp.cpp whole: any token of it counts for through_pointer.
        {"the fallback covers the translation unit", "udfs/fp.cpp", "text.size()) - 1",
         "text.size()) - 2", "fp::through_pointer", true},
        {"but not its comments", "udfs/fp.cpp", "// the score: a weight, scaled", "// edited",
         "fp::through_pointer", false},
        // A Call on a pool: its method and the class's constructor, not the other methods.
        {"a pooled Call's method", "udfs/fp.cpp", "base_ + static_cast", "base_ - static_cast",
         "fp::Model::tag", true},
        {"the pool class's constructor", "udfs/fp.cpp", "base_(base + 1)", "base_(base + 2)",
         "fp::Model::tag", true},
        {"another method of the pool's class", "udfs/fp.cpp", "base_ * static_cast",
         "base_ / static_cast", "fp::Model::tag", false},
        {"which is the other Call's own", "udfs/fp.cpp", "base_ * static_cast",
         "base_ / static_cast", "fp::Model::other", true},
    };
    const json before = codes(copy_fixture("base"));
    for (const Row& row : rows) {
        INFO(row.what);
        const fs::path dir = copy_fixture("edit");
        edit(dir / row.file, row.from, row.to);
        const json after = codes(dir);
        REQUIRE(after.contains(row.udf));
        CHECK((after[row.udf]["digest"] != before[row.udf]["digest"]) == row.changes);
    }
}

TEST_CASE("code fingerprint: what went in, fallbacks, the lint, the stdlib",
          "[ropc][fingerprint]") {
    const fs::path dir = copy_fixture("show");
    const json code = codes(dir);

    // score: itself, the header helper, the constant, the callee in lib/other.cpp; nothing of
    // the standard library or rop's headers.
    std::vector<std::string> names;
    for (const json& f : code["fp::score"]["functions"]) {
        names.push_back(f["name"]);
        CHECK(f["hash"].get<std::string>().size() == 32);
    }
    CHECK(names == std::vector<std::string>{"fp::bonus", "fp::kScale", "fp::score", "fp::weight"});
    CHECK(code["fp::score"]["functions"][0]["location"] == "lib/other.cpp:6");
    CHECK(code["fp::score"]["functions"][2]["location"] == "udfs/fp.cpp:10");
    CHECK(code["fp::score"]["fallback"].is_null());
    CHECK(code["fp::score"]["flags"] == "-std=c++20");
    CHECK(code["fp::score"]["digest"].get<std::string>().size() == 32);
    CHECK(code["fp::score"]["volatile_udf"] == false);

    // A pooled Call: its method, the constructor it was set up by, and what they reach.
    std::vector<std::string> pooled;
    for (const json& f : code["fp::Model::tag"]["functions"]) pooled.push_back(f["name"]);
    CHECK(pooled == std::vector<std::string>{"fp::Model::Model", "fp::Model::tag"});

    // A call through a function pointer: never "unchanged"; the reason names the call.
    const std::string fallback = code["fp::through_pointer"]["fallback"];
    CHECK(fallback.find("a call through a function pointer") == 0);
    CHECK(fallback.find("at udfs/fp.cpp:23") != std::string::npos);

    // W0500's UDF is volatile; the stdlib's operators are keyed by rop's version.
    CHECK(code["fp::noisy"]["volatile_udf"] == true);
    const json& read = code["rop::stdlib::text::read"];
    REQUIRE(read["functions"].size() == 1);
    CHECK(read["functions"][0]["location"].get<std::string>().starts_with("rop/stdlib/text.h:"));
    CHECK(read["fallback"].is_null());

    // Without --src, bonus has no definition ropc can see: a fallback that says so.
    const auto alone = run_ropc({"build", "fp.rop", "--emit=plan"}, dir.string());
    REQUIRE(alone.exit_code == 0);
    const json plan = json::parse(alone.out);
    for (const json& call : plan["calls"]) {
        if (call["binding"].is_null() || call["binding"]["cpp_symbol"] != "fp::score") continue;
        CHECK(call["binding"]["code"]["fallback"] ==
              "a call to fp::bonus (declared at udfs/fp.hpp:17), defined in none of the files "
              "compiled with the pipeline");
        CHECK(call["binding"]["code"]["digest"] != code["fp::score"]["digest"]);
    }

    // -O levels do not count; `ropc emit plan` reads the same files as build's default.
    CHECK(codes(dir, {"-O0"}) == codes(dir, {"-O3"}));
}

TEST_CASE("code fingerprint: the compile flags that change results", "[fingerprint]") {
    CHECK(rop::bind::result_flags({"-std=c++20", "-O2", "-ffast-math", "-DLIMIT=3", "-I/x",
                                   "-fdiagnostics-color=never", "-g", "-Wall", "-march=native",
                                   "-UNDEBUG"}) ==
          "-std=c++20 -ffast-math -DLIMIT=3 -march=native -UNDEBUG");

    const fs::path dir = copy_fixture("flags");
    auto digest = [&](std::vector<std::string> flags) {
        rop::bind::FingerprintRequest request;
        request.headers = {(dir / "udfs/fp.hpp").string()};
        request.sources = {(dir / "udfs/fp.cpp").string(), (dir / "lib/other.cpp").string()};
        request.include_dirs = {dir.string()};
        request.flags = std::move(flags);
        request.base_dir = dir.string();
        return rop::bind::fingerprint_udfs({"fp::score"}, request).at("fp::score").digest;
    };
    const std::string plain = digest({"-std=c++20", "-O2"});
    CHECK(digest({"-std=c++20", "-O0"}) == plain);
    CHECK(digest({"-std=c++20", "-O2", "-ffast-math"}) != plain);
    CHECK(digest({"-std=c++20", "-O2", "-DFP_EXTRA=1"}) != plain);
    CHECK(digest({"-std=c++20", "-O2", "-DFP_EXTRA=1"}) ==
          digest({"-std=c++20", "-O3", "-DFP_EXTRA=1"}));
}
