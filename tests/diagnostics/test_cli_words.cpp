// ropc's words: a mistyped command or flag gets a suggestion, `ropc emit STAGE FILE` works as
// the help says, and colour follows --color and NO_COLOR (https://no-color.org).
#include <catch2/catch_test_macros.hpp>
#include <cstdlib>
#include <string>
#include <vector>

#include "ropc/cli.h"
#include "ropc_runner.h"

using rop::test::run_ropc;

TEST_CASE("cli: a mistyped command or option suggests the right one", "[cli]") {
    const std::vector<std::pair<std::vector<std::string>, std::string>> rows = {
        {{"chek", "x.rop"}, "ropc: error: unknown command 'chek'; did you mean 'check'?\n"},
        {{"grpah", "x.rop"}, "ropc: error: unknown command 'grpah'; did you mean 'graph'?\n"},
        {{"emitt", "plan", "x.rop"},
         "ropc: error: unknown command 'emitt'; did you mean 'emit'?\n"},
        {{"frobnicate"}, "ropc: error: unknown command 'frobnicate'\n"},
        {{"x.rop"}, "ropc: error: unknown command 'x.rop'\n"},  // a path, not a typo
        {{"check", "--formt=json", "x.rop"},
         "ropc: error: unknown option '--formt=json'; did you mean '--format'?\n"},
        {{"check", "--nobind", "x.rop"},
         "ropc: error: unknown option '--nobind'; did you mean '--no-bind'?\n"},
        {{"check", "--frobnicate", "x.rop"}, "ropc: error: unknown option '--frobnicate'\n"},
    };
    for (const auto& [args, first_line] : rows) {
        INFO(args.front());
        const auto result = run_ropc(args);
        CHECK(result.exit_code == 2);
        CHECK(result.out.empty());
        CHECK(result.err == first_line + "run `ropc --help` for usage\n");
    }
}

TEST_CASE("cli: ropc emit STAGE FILE is --emit=STAGE FILE", "[cli]") {
    const std::string kMineru = std::string(ROP_EXAMPLES_DIR) + "/mineru";
    for (const std::string stage : {"tokens", "ast", "plan"}) {
        INFO(stage);
        const auto word = run_ropc({"emit", stage, "mineru.rop"}, kMineru);
        const auto flag = run_ropc({"--emit=" + stage, "mineru.rop"}, kMineru);
        CHECK(word.exit_code == 0);
        CHECK_FALSE(word.out.empty());
        CHECK(word.out == flag.out);
        CHECK(word.err == flag.err);
    }
    // The help advertises exactly this form.
    CHECK(run_ropc({"emit", "--help"}).out.rfind("usage: ropc emit tokens|ast|plan FILE", 0) == 0);
    CHECK(run_ropc({"--help"}).out.find("emit STAGE FILE") != std::string::npos);
    // A stage word that is not one is a file name, and then emit has two files.
    CHECK(run_ropc({"emit", "bytecode", "mineru.rop"}, kMineru).exit_code == 2);
    CHECK(run_ropc({"emit", "plan"}, kMineru).exit_code == 2);  // no file
    const auto bad = run_ropc({"emit", "plan", "E0100_undefined_stream.rop"});
    CHECK(bad.exit_code == 1);
    CHECK(bad.out.empty());
}

// The generated C++ has one road, `ropc build FILE --emit=cpp` (docs/build.md); the spellings of
// `ropc emit` that used to print it too are usage errors that name it.
TEST_CASE("cli: the generated C++ is build --emit=cpp; ropc emit cpp points there", "[cli]") {
    const auto build = run_ropc({"build", "clean/bound.rop", "--emit=cpp"});
    CHECK(build.exit_code == 0);
    CHECK(build.out.find("make_pipeline") != std::string::npos);
    const std::string refused =
        "ropc: error: the generated C++ is `ropc build FILE --emit=cpp`; `ropc emit` prints "
        "tokens, ast or plan\nrun `ropc --help` for usage\n";
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"emit", "cpp", "clean/bound.rop"},
          std::vector<std::string>{"--emit=cpp", "clean/bound.rop"},
          std::vector<std::string>{"emit", "--emit=cpp", "clean/bound.rop"}}) {
        INFO(args.front() << " " << args[1]);
        const auto result = run_ropc(args);
        CHECK(result.exit_code == 2);
        CHECK(result.out.empty());
        CHECK(result.err == refused);
    }
}

TEST_CASE("cli: colour follows --color, then NO_COLOR, then the terminal", "[cli]") {
    using rop::cli::ColorMode;
    using rop::cli::use_color;
    struct Row {
        ColorMode mode;
        const char* no_color;
        bool tty;
        bool colour;
    };
    const std::vector<Row> rows = {
        {ColorMode::Auto, nullptr, true, true},
        {ColorMode::Auto, nullptr, false, false},
        {ColorMode::Auto, "1", true, false},
        {ColorMode::Auto, "", true, true},      // empty: unset
        {ColorMode::Auto, "0", true, false},    // any non-empty value counts
        {ColorMode::Always, "1", false, true},  // an explicit flag beats the environment
        {ColorMode::Never, nullptr, true, false},
    };
    for (const Row& row : rows) {
        INFO(static_cast<int>(row.mode)
             << " NO_COLOR=" << (row.no_color ? row.no_color : "unset") << " tty=" << row.tty);
        CHECK(use_color(row.mode, row.no_color, row.tty) == row.colour);
    }
    // End to end: stderr is a file here, so only --color=always colours.
    const std::vector<std::string> file = {"check", "--no-bind", "E0100_undefined_stream.rop"};
    auto with = [&](const std::string& flag) {
        std::vector<std::string> args = file;
        args.push_back(flag);
        return run_ropc(args).err;
    };
    CHECK(with("--color=always").find("\x1b[") != std::string::npos);
    CHECK(with("--color=never").find("\x1b[") == std::string::npos);
    CHECK(with("--color=auto").find("\x1b[") == std::string::npos);
    setenv("NO_COLOR", "1", 1);
    CHECK(with("--color=always").find("\x1b[") != std::string::npos);
    CHECK(with("--color=auto").find("\x1b[") == std::string::npos);
    unsetenv("NO_COLOR");
    CHECK(run_ropc({"check", "--color=sometimes", "x.rop"}).exit_code == 2);
}
