// `ropc fmt` end to end, as a user or CI job runs it: stdout, --check's exit status and its
// message, -i rewriting atomically, and a file with a syntax error left untouched with the same
// diagnostic `ropc check` gives.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "ropc_runner.h"

namespace {

namespace fs = std::filesystem;
using rop::test::read_file;
using rop::test::run_ropc;

const std::string kCanonical =
    "pipeline p;\n\nsource d : Doc = std.io.Files(glob: \"in/*\");\n\n"
    "a      = map d with f;  # a comment\nlonger = map a with g;\n\nsink longer -> s;\n";
const std::string kMessy =
    "pipeline p;\n\nsource d : Doc = std.io.Files(glob: \"in/*\");\n\n"
    "a = map d with f; # a comment\nlonger = map a with g;\n\nsink longer -> s;\n";
// E0010 at 3:10: the ':' after the source name is missing.
const std::string kBroken = "pipeline p;\n\nsource d Doc = std.io.Files(glob: \"in/*\");\n";

// A fresh folder for one test case, with the given files.
fs::path folder(const std::string& name,
                const std::vector<std::pair<std::string, std::string>>& files) {
    fs::path dir =
        fs::temp_directory_path() / ("rop_fmt_cli_" + name + "_" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const auto& [file, text] : files) std::ofstream(dir / file, std::ios::binary) << text;
    return dir;
}

}  // namespace

TEST_CASE("ropc fmt prints the canonical text on stdout", "[format]") {
    const fs::path dir = folder("print", {{"messy.rop", kMessy}});
    const auto run = run_ropc({"fmt", "messy.rop"}, dir.string());
    CHECK(run.exit_code == 0);
    CHECK(run.out == kCanonical);
    CHECK(run.err.empty());
    CHECK(read_file((dir / "messy.rop").string()) == kMessy);  // not rewritten
    fs::remove_all(dir);
}

TEST_CASE("ropc fmt --check: 0 when canonical, 1 naming each file and line otherwise", "[format]") {
    const fs::path dir = folder("check", {{"good.rop", kCanonical}, {"messy.rop", kMessy}});
    auto good = run_ropc({"fmt", "--check", "good.rop"}, dir.string());
    CHECK(good.exit_code == 0);
    CHECK(good.out.empty());
    CHECK(good.err.empty());

    auto both = run_ropc({"fmt", "--check", "messy.rop", "good.rop"}, dir.string());
    CHECK(both.exit_code == 1);
    CHECK(both.out.empty());
    CHECK(both.err ==
          "messy.rop:5:1: error: not formatted as `ropc fmt` writes it (first difference on "
          "this line); run `ropc fmt -i messy.rop`\n"
          "  is:        a = map d with f; # a comment\n"
          "  should be: a      = map d with f;  # a comment\n");
    CHECK(read_file((dir / "messy.rop").string()) == kMessy);
    fs::remove_all(dir);
}

TEST_CASE("ropc fmt -i rewrites only what differs and keeps the file's mode", "[format]") {
    const fs::path dir = folder("inplace", {{"good.rop", kCanonical}, {"messy.rop", kMessy}});
    chmod((dir / "messy.rop").c_str(), 0640);
    chmod((dir / "good.rop").c_str(), 0600);
    const auto before = fs::last_write_time(dir / "good.rop");
    const auto run = run_ropc({"fmt", "-i", "messy.rop", "good.rop"}, dir.string());
    CHECK(run.exit_code == 0);
    CHECK(run.out.empty());
    CHECK(read_file((dir / "messy.rop").string()) == kCanonical);
    CHECK(read_file((dir / "good.rop").string()) == kCanonical);
    CHECK(fs::last_write_time(dir / "good.rop") == before);  // canonical: not written at all
    struct stat st{};
    REQUIRE(stat((dir / "messy.rop").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0640);
    // Nothing left beside the files (the temporary went by rename).
    CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}) == 2);
    CHECK(run_ropc({"fmt", "--check", "messy.rop"}, dir.string()).exit_code == 0);
    fs::remove_all(dir);
}

TEST_CASE("ropc fmt leaves a file with a syntax error untouched and reports it as check does",
          "[format]") {
    const fs::path dir = folder("broken", {{"broken.rop", kBroken}, {"messy.rop", kMessy}});
    const auto check = run_ropc({"check", "--no-bind", "broken.rop"}, dir.string());
    REQUIRE(check.exit_code == 1);
    for (const char* mode : {"-i", "--check", ""}) {
        INFO(mode);
        std::vector<std::string> args = {"fmt", "broken.rop", "messy.rop"};
        if (*mode) args.insert(args.begin() + 1, mode);
        const auto run = run_ropc(args, dir.string());
        CHECK(run.exit_code == 1);
        CHECK(run.err.starts_with(
            "broken.rop:3:10: error: expected ':' after the source name, found identifier 'Doc' "
            "[E0010]\n"));
        CHECK(run.err.starts_with(check.err));  // the same diagnostic, caret lines included
        CHECK(read_file((dir / "broken.rop").string()) == kBroken);
    }
    // The other file was still handled (with -i: rewritten).
    CHECK(read_file((dir / "messy.rop").string()) == kCanonical);
    fs::remove_all(dir);
}

TEST_CASE("ropc fmt usage errors and unreadable files", "[format]") {
    const fs::path dir = folder("usage", {{"good.rop", kCanonical}});
    auto none = run_ropc({"fmt"}, dir.string());
    CHECK(none.exit_code == 2);
    CHECK(none.err.starts_with("ropc: error: fmt needs at least one .rop file\n"));
    auto both = run_ropc({"fmt", "--check", "-i", "good.rop"}, dir.string());
    CHECK(both.exit_code == 2);
    CHECK(both.err.starts_with("ropc: error: fmt takes --check or --in-place, not both\n"));
    auto typo = run_ropc({"fmt", "--chek", "good.rop"}, dir.string());
    CHECK(typo.exit_code == 2);
    CHECK(typo.err.starts_with("ropc: error: unknown option '--chek'; did you mean '--check'?"));
    auto missing = run_ropc({"fmt", "--check", "missing.rop", "good.rop"}, dir.string());
    CHECK(missing.exit_code == 2);
    CHECK(missing.err.find("[F0002]") != std::string::npos);
    auto help = run_ropc({"fmt", "--help"}, dir.string());
    CHECK(help.exit_code == 0);
    CHECK(help.out.starts_with("usage: ropc fmt FILE... [--check | -i]"));
    fs::remove_all(dir);
}

// Runs `ropc ARGS < INPUT` in `dir` through the shell; stdout and stderr together.
rop::test::RopcResult run_with_stdin(const fs::path& dir, const std::string& args,
                                     const std::string& input) {
    const std::string command =
        "cd '" + dir.string() + "' && '" + ROP_ROPC + "' " + args + " < '" + input + "' 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    rop::test::RopcResult result;
    char buffer[4096];
    while (std::size_t n = fread(buffer, 1, sizeof buffer, pipe)) result.out.append(buffer, n);
    const int status = pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

TEST_CASE("ropc fmt - reads stdin and writes stdout, for editors", "[format]") {
    const fs::path dir = folder("stdin", {{"messy.rop", kMessy}, {"broken.rop", kBroken}});
    auto messy = run_with_stdin(dir, "fmt -", "messy.rop");
    CHECK(messy.exit_code == 0);
    CHECK(messy.out == kCanonical);
    auto check = run_with_stdin(dir, "fmt --check -", "messy.rop");
    CHECK(check.exit_code == 1);
    CHECK(check.out.starts_with(
        "<stdin>:5:1: error: not formatted as `ropc fmt` writes it (first difference on this "
        "line)\n"));
    auto broken = run_with_stdin(dir, "fmt -", "broken.rop");
    CHECK(broken.exit_code == 1);
    CHECK(broken.out.starts_with("<stdin>:3:10: error: expected ':' after the source name"));
    auto in_place = run_with_stdin(dir, "fmt -i -", "messy.rop");
    CHECK(in_place.exit_code == 2);
    CHECK(in_place.out.starts_with("ropc: error: fmt --in-place cannot rewrite stdin ('-')\n"));
    fs::remove_all(dir);
}
