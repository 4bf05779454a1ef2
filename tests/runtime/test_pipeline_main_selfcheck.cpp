// `PIPELINE --selfcheck` on the paths a run would write (selfcheck.h, docs/shipping.md): each
// output checked the way the run uses it (a folder sink's folder, a file sink's file, the journal,
// --report, --trace, --metrics-file), so that a selfcheck that fails is a run that exits 2 before
// it starts, and one that passes wrote nothing.
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_pipeline_main_demo.h"

using namespace rop::runtime;
using namespace rop::runtime::test;
using Catch::Matchers::ContainsSubstring;
namespace fs = std::filesystem;

namespace {

// A fresh directory under the system temp dir, removed at the end of the test.
struct TempDir {
    TempDir() {
        static int n = 0;
        path = fs::temp_directory_path() /
               ("rop_selfcheck_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    std::string operator/(const std::string& name) const { return (path / name).string(); }
    fs::path path;
};

// The demo pipeline with sinks that use their outputs as stdlib sinks do: 'totals' is a folder
// it makes (MarkdownDir), 'pages' a file it appends to, its folder made when missing (Jsonl).
PipelineDefinition shaped_definition(DemoSinks& sinks) {
    PipelineDefinition def = demo_definition(sinks);
    def.sinks[0].open = [](const std::string& path) {
        fs::create_directories(path);  // throws when it cannot: a file in the way
        RootSinkBinding binding;
        binding.write_root = [](const RootKey&, std::span<const Value>) {};
        return binding;
    };
    def.sinks[1].open = [&sinks](const std::string& path) {
        if (const fs::path parent = fs::path(path).parent_path(); !parent.empty()) {
            fs::create_directories(parent);
        }
        auto file = std::make_shared<std::ofstream>(path, std::ios::app);
        if (!*file) throw std::runtime_error("cannot open '" + path + "'");
        RootSinkBinding binding;
        binding.write_root = [file, &sinks](const RootKey&, std::span<const Value> items) {
            std::lock_guard<std::mutex> lock(sinks.mu);
            for (const Value& v : items) sinks.pages.push_back(v.get<long>());
        };
        return binding;
    };
    return def;
}

struct Result {
    int code = -1;
    std::string out;
    std::string err;
};

Result run_main(std::vector<std::string> args, DemoSinks& sinks) {
    Argv a(args);
    std::ostringstream out;
    std::ostringstream err;
    Result o;
    o.code = pipeline_main(a.argc(), a.argv(), shaped_definition(sinks), out, err, false);
    o.out = out.str();
    o.err = err.str();
    return o;
}

// The selfcheck's line for one output ("selfcheck: output 'totals' PATH: ..."), or "".
std::string line_of(const std::string& out, const std::string& prefix) {
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
        if (line.starts_with(prefix)) return line;
    }
    return {};
}

}  // namespace

TEST_CASE("selfcheck: an output the run cannot write fails it, and the run exits 2 at start",
          "[runtime][cli][selfcheck]") {
    TempDir d;
    std::ofstream(d / "file") << "x";
    fs::create_directories(d.path / "dir");
    const std::string pid = std::to_string(::getpid());
    const std::string long_name = d / std::string(250, 'r');  // its temp file's name is too long
    struct Case {
        std::vector<std::string> args;
        std::string line;  // the selfcheck's line for the output that fails
    };
    const std::vector<Case> table = {
        // A folder sink's output is an existing file, or under one.
        {{"--output", "totals=" + (d / "file")},
         "selfcheck: output 'totals' " + (d / "file") + ": FAILED (" + (d / "file") +
             " is not a folder)"},
        {{"--output", "totals=" + (d / "file/sub")},
         "selfcheck: output 'totals' " + (d / "file/sub") + ": FAILED (" + (d / "file") +
             " is not a folder)"},
        // A file sink's output is an existing folder.
        {{"--output", "pages=" + (d / "dir")},
         "selfcheck: output 'pages' " + (d / "dir") + ": FAILED (" + (d / "dir") + " is a folder)"},
        // The run's own files: a folder, or in a folder that does not exist (and that no sink
        // makes), or with a name its temp file cannot have.
        {{"--journal", d / "dir"},
         "selfcheck: output --journal " + (d / "dir") + ": FAILED ('" + (d / "dir") +
             "' is a directory)"},
        {{"--journal", d / "nowhere/j"},
         "selfcheck: output --journal " + (d / "nowhere/j") + ": FAILED (directory '" +
             (d / "nowhere") + "' does not exist)"},
        {{"--report", d / "dir"},
         "selfcheck: output --report " + (d / "dir") + ": FAILED ('" + (d / "dir") +
             "' is a directory)"},
        {{"--report", d / "nowhere/r.json"},
         "selfcheck: output --report " + (d / "nowhere/r.json") + ": FAILED (directory '" +
             (d / "nowhere") + "' does not exist)"},
        {{"--report", d / "file/r.json"},
         "selfcheck: output --report " + (d / "file/r.json") + ": FAILED ('" + (d / "file") +
             "' is not a directory)"},
        {{"--report", long_name},
         "selfcheck: output --report " + long_name + ": FAILED (cannot create '" + long_name +
             ".tmp." + pid + "': File name too long)"},
        {{"--trace", d / "dir"},
         "selfcheck: output --trace " + (d / "dir") + ": FAILED ('" + (d / "dir") +
             "' is a directory)"},
        {{"--metrics-file", d / "dir"},
         "selfcheck: output --metrics-file " + (d / "dir") + ": FAILED ('" + (d / "dir") +
             "' is a directory)"},
    };
    for (const Case& c : table) {
        CAPTURE(c.args);
        // The other outputs where they can be written.
        std::vector<std::string> args = c.args;
        for (const auto& [flag, value] :
             {std::pair<std::string, std::string>{"--output", "totals=" + (d / "out/totals")},
              {"--output", "pages=" + (d / "out/pages.txt")},
              {"--journal", d / "out.journal"}}) {
            const bool named =  // by the case: the same flag (and sink)
                c.args[0] == flag &&
                (flag != "--output" || c.args[1].starts_with(value.substr(0, value.find('=') + 1)));
            if (named) continue;
            args.insert(args.end(), {flag, value});
        }
        DemoSinks checked;
        std::vector<std::string> selfcheck = args;
        selfcheck.push_back("--selfcheck");
        const Result check = run_main(selfcheck, checked);
        CHECK(check.code == 1);
        const std::string what = c.line.substr(0, c.line.find(": FAILED"));
        CHECK(line_of(check.out, what) == c.line);
        CHECK_THAT(check.out, ContainsSubstring("\nselfcheck: FAILED: output "));
        CHECK(check.err.empty());
        // The run refuses before it reads anything.
        DemoSinks ran;
        const Result real = run_main(args, ran);
        CHECK(real.code == kExitUsage);
        CHECK(ran.pages.empty());
        CHECK_THAT(real.err, ContainsSubstring("demo: error: "));
        fs::remove_all(d.path / "out");
        fs::remove(d.path / "out.journal");
    }
}

TEST_CASE("selfcheck: outputs the run can write pass, and nothing is written",
          "[runtime][cli][selfcheck]") {
    TempDir d;
    TempDir scratch;  // where the sinks are asked how they use their outputs
    const char* tmpdir = std::getenv("TMPDIR");
    const std::string saved = tmpdir ? tmpdir : "";
    ::setenv("TMPDIR", scratch.path.c_str(), 1);
    // The journal goes next to the folder output (out/totals.journal), in the folder the sinks
    // make; --report and the rest in folders that exist.
    const std::vector<std::string> args = {"--output",       "totals=" + (d / "out/totals"),
                                           "--output",       "pages=" + (d / "out/pages.txt"),
                                           "--report",       d / "report.json",
                                           "--trace",        d / "trace.json",
                                           "--metrics-file", d / "demo.prom"};
    DemoSinks checked;
    std::vector<std::string> selfcheck = args;
    selfcheck.push_back("--selfcheck");
    const Result check = run_main(selfcheck, checked);
    if (tmpdir) {
        ::setenv("TMPDIR", saved.c_str(), 1);
    } else {
        ::unsetenv("TMPDIR");
    }
    CHECK(check.code == 0);
    const std::string dir = d.path.string();
    for (const std::string& line :
         {"selfcheck: output 'totals' " + (d / "out/totals") + ": ok (" + dir + " is writable)",
          "selfcheck: output 'pages' " + (d / "out/pages.txt") + ": ok (" + dir + " is writable)",
          "selfcheck: output --journal " + (d / "out/totals.journal") + ": ok (" + dir +
              " is writable)",
          "selfcheck: output --report " + (d / "report.json") + ": ok (" + dir + " is writable)",
          "selfcheck: output --trace " + (d / "trace.json") + ": ok (" + dir + " is writable)",
          "selfcheck: output --metrics-file " + (d / "demo.prom") + ": ok (" + dir +
              " is writable)",
          std::string("selfcheck: passed")}) {
        CHECK(line_of(check.out, line) == line);
    }
    // Nothing at the run's paths, no temp file beside them, and the sinks' scratch folder gone.
    CHECK(fs::is_empty(d.path));
    CHECK(fs::is_empty(scratch.path));
    // The run passes too.
    DemoSinks ran;
    const Result real = run_main(args, ran);
    CHECK(real.code == kExitOk);
    CHECK(fs::is_directory(d.path / "out/totals"));
    CHECK(fs::is_regular_file(d.path / "out/totals.journal"));
    CHECK(fs::is_regular_file(d.path / "report.json"));
    CHECK(fs::is_regular_file(d.path / "trace.json"));
    CHECK(fs::is_regular_file(d.path / "demo.prom"));
}
