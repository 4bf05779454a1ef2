// The cached precompiled prelude (ReadOptions::pch_cache_dir): same answers as a full parse,
// rebuilt when the cached file is bad, and much faster.
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "bind_test_util.h"

namespace rop::bind::test {
namespace {

namespace fs = std::filesystem;

// A cache directory of its own per test case (ctest runs test cases in parallel processes).
std::string cache_dir(const std::string& name) {
    fs::path dir = fs::path(ROP_BIND_TEST_CACHE) / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir.string();
}

std::vector<fs::path> cached_files(const std::string& dir) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir)) files.push_back(entry.path());
    return files;
}

ReadResult read_with(const std::string& header, const std::string& dir) {
    ReadResult result;
    ReadOptions options;
    options.pch_cache_dir = dir;
    result.library = read_udfs({fixture(header)}, include_dirs(), &result.errors, options);
    return result;
}

void check_same(const ReadResult& a, const ReadResult& b) {
    REQUIRE(a.library.decls.size() == b.library.decls.size());
    for (std::size_t i = 0; i < a.library.decls.size(); ++i) {
        const UdfDecl& x = a.library.decls[i];
        const UdfDecl& y = b.library.decls[i];
        INFO(x.qualified_name);
        CHECK(x.qualified_name == y.qualified_name);
        CHECK(x.location == y.location);
        CHECK(x.result.canonical == y.result.canonical);
        CHECK(x.params.size() == y.params.size());
        CHECK(x.nondeterminism.size() == y.nondeterminism.size());
    }
    REQUIRE(a.errors.size() == b.errors.size());
    for (std::size_t i = 0; i < a.errors.size(); ++i) {
        CHECK(a.errors[i].message == b.errors[i].message);
        CHECK(a.errors[i].location == b.errors[i].location);
    }
}

TEST_CASE("bind prelude cache: same answers as a full parse", "[bind]") {
    std::string dir = cache_dir("same");
    for (const char* header : {"shapes.hpp", "lint.hpp", "syntax_error.hpp"}) {
        INFO(header);
        ReadResult full = read_fresh(header, false);
        ReadResult cold = read_with(header, dir);  // builds the prelude on first use
        ReadResult warm = read_with(header, dir);
        check_same(full, cold);
        check_same(full, warm);
    }
    CHECK(cached_files(dir).size() == 1);
}

TEST_CASE("bind prelude cache: a corrupt cached prelude is rebuilt", "[bind]") {
    std::string dir = cache_dir("corrupt");
    read_with("shapes.hpp", dir);
    auto files = cached_files(dir);
    REQUIRE(files.size() == 1);
    std::ofstream(files[0], std::ios::trunc) << "not a precompiled header";
    ReadResult result = read_with("shapes.hpp", dir);
    CHECK(result.errors.empty());
    check_same(read_fixture("shapes.hpp"), result);
    CHECK(fs::file_size(files[0]) > 1000);  // rebuilt
}

TEST_CASE("bind prelude cache: without rop/udf.h on the include path, no prelude", "[bind]") {
    std::string dir = cache_dir("no-udf-h");
    std::vector<BindError> errors;
    ReadOptions options;
    options.pch_cache_dir = dir;
    UdfLibrary lib = read_udfs({fixture("syntax_error.hpp")}, {}, &errors, options);
    CHECK(lib.find("fine_before") != nullptr);
    CHECK(errors.size() == 1);
    CHECK(cached_files(dir).empty());
}

// The prelude precompiles the standard headers rop's own headers include, which every
// pipeline's binding reads first anyway (udf_reader.cpp). A standard header added to one of them
// and not to the prelude would still be right, only parsed on every read: keep them in step.
TEST_CASE("bind prelude: covers the standard headers rop's headers include", "[bind]") {
    const fs::path api = ROP_API_INCLUDE;
    std::vector<fs::path> headers = {api / "rop/udf.h", api / "rop/records.h",
                                     api / "rop/fields.h"};
    for (const auto& entry : fs::directory_iterator(fs::path(ROP_STDLIB_INCLUDE) / "rop/stdlib")) {
        if (entry.path().extension() == ".h") headers.push_back(entry.path());
    }
    const std::string prelude(prelude_text());
    REQUIRE(prelude.rfind("#include <rop/udf.h>\n", 0) == 0);
    int standard = 0;
    for (const fs::path& header : headers) {
        std::ifstream in(header);
        REQUIRE(in);
        for (std::string line; std::getline(in, line);) {
            if (line.rfind("#include <", 0) != 0 || line.find('/') != std::string::npos ||
                line.find('.') != std::string::npos) {
                continue;  // not a standard C++ header (<rop/...>, <poppler/...>, <x.h>)
            }
            INFO(header.string() << ": " << line);
            CHECK(prelude.find(line + "\n") != std::string::npos);
            ++standard;
        }
    }
    CHECK(standard > 30);
}

// A benchmark, not a test (hidden: `bind_tests "[.bench]"` runs it): how long a read takes with
// and without the lint and the cached prelude; the bounds are its own, not a test's verdict.
TEST_CASE("bind timing: reading a typical UDF header", "[bind][.bench]") {
    using Clock = std::chrono::steady_clock;
    std::string dir = cache_dir("timing");
    auto time_read = [&](bool lint, bool pch) {
        double best_wall = 1e9, best_cpu = 1e9;
        for (int run = 0; run < 3; ++run) {
            std::vector<BindError> errors;
            ReadOptions options;
            options.lint = lint;
            if (pch) options.pch_cache_dir = dir;
            auto start = Clock::now();
            std::clock_t cpu_start = std::clock();
            UdfLibrary lib = read_udfs({fixture("shapes.hpp")}, include_dirs(), &errors, options);
            double cpu = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
            double wall = std::chrono::duration<double>(Clock::now() - start).count();
            REQUIRE(errors.empty());
            REQUIRE(lib.find("demo::title") != nullptr);
            best_wall = std::min(best_wall, wall);
            best_cpu = std::min(best_cpu, cpu);
        }
        return std::pair{best_wall * 1000, best_cpu * 1000};
    };
    read_with("shapes.hpp", dir);  // build the prelude outside the timing
    auto [plain_wall, plain_cpu] = time_read(false, false);
    auto [lint_wall, lint_cpu] = time_read(true, false);
    auto [pch_wall, pch_cpu] = time_read(true, true);
    WARN("read_udfs(shapes.hpp), best of 3, wall/CPU ms: no lint "
         << plain_wall << "/" << plain_cpu << ", lint " << lint_wall << "/" << lint_cpu
         << ", lint + cached prelude " << pch_wall << "/" << pch_cpu);
    // Generous bounds for a shared machine; the times are in the WARN above.
    CHECK(lint_cpu < 2000);
    CHECK(pch_cpu < 500);
}

}  // namespace
}  // namespace rop::bind::test
