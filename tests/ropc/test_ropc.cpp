// ropc's one command line across subcommands: the flags each --help lists work there (build
// takes -Werror and --max-errors like check), an unknown option gets a did-you-mean from that
// subcommand's own options, and the plan shows each Call's bound C++ UDF.
#include <catch2/catch_test_macros.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ropc_runner.h"

using nlohmann::json;
using rop::test::run_ropc;

namespace {

// What `ropc check`/`build` print for warn.rop's one finding, as a warning or (-Werror) error.
std::string spare_finding(const std::string& severity) {
    return "warn.rop:9:1: " + severity +
           ": stream 'spare' is never used [W0001]\n"
           " 9 | spare   = map text with shapes.lengths;\n"
           "   | ^~~~~\n"
           "   | _spare\n"
           "fix-it:\"warn.rop\":{9:1-9:6}:\"_spare\"\n"
           "warn.rop:9:1: note: no statement or sink reads it; remove the statement, sink it, or "
           "name it '_spare' to keep it quiet\n";
}

}  // namespace

TEST_CASE("ropc build -Werror: a warning becomes an error and stops the build", "[ropc]") {
    // Without -Werror the warning is printed and the plan comes out (no C++ compiler needed).
    const auto plain = run_ropc({"build", "warn.rop", "--emit=plan"});
    CHECK(plain.exit_code == 0);
    CHECK(plain.err == spare_finding("warning") + "1 warning generated.\n");
    CHECK_FALSE(plain.out.empty());

    const auto strict = run_ropc({"build", "warn.rop", "-o", "never-written", "-Werror"});
    CHECK(strict.exit_code == 1);
    CHECK(strict.out.empty());
    CHECK(strict.err == spare_finding("error") + "1 error generated.\n");
    // check and build read the flag the same way.
    const auto check = run_ropc({"check", "warn.rop", "-Werror"});
    CHECK(check.exit_code == 1);
    CHECK(check.err == strict.err);
    // The shared options may come before the subcommand too.
    const auto before = run_ropc({"-Werror", "build", "warn.rop", "-o", "never-written"});
    CHECK(before.exit_code == 1);
    CHECK(before.err == strict.err);
}

TEST_CASE("ropc build --max-errors=N stops listing after N errors", "[ropc]") {
    const std::string first =
        "many.rop:5:9: error: use of undefined stream 'x1' [E0100]\n"
        " 5 | a = map x1 with f;\n"
        "   |         ^~\n";
    const auto capped = run_ropc({"build", "many.rop", "-o", "never-written", "--max-errors=1"});
    CHECK(capped.exit_code == 1);
    CHECK(capped.err == first +
                            "many.rop:6:9: fatal error: too many errors emitted, stopping now "
                            "(limit 1) [F0001]\n"
                            " 6 | b = map x2 with f;\n"
                            "   |         ^~\n"
                            "2 errors generated.\n");
    // `--max-errors N` (separate word) is the same flag; 0 lifts the cap: all four E0100s.
    CHECK(run_ropc({"build", "many.rop", "-o", "x", "--max-errors", "1"}).err == capped.err);
    const auto all = run_ropc({"build", "many.rop", "-o", "never-written", "--max-errors=0"});
    CHECK(all.exit_code == 1);
    CHECK(all.err.rfind(first, 0) == 0);
    CHECK(all.err.find("[F0001]") == std::string::npos);
    CHECK(all.err.find("many.rop:8:9: error: use of undefined stream 'x4' [E0100]") !=
          std::string::npos);
    CHECK(all.err.ends_with("4 errors generated.\n"));
    CHECK(run_ropc({"build", "many.rop", "-o", "x", "--max-errors=lots"}).exit_code == 2);
}

TEST_CASE("ropc emit plan FILE: every Call's binding names its C++ UDF and types", "[ropc]") {
    const auto emitted = run_ropc({"emit", "plan", "plan.rop"});
    REQUIRE(emitted.exit_code == 0);
    CHECK(emitted.err.empty());
    const json plan = json::parse(emitted.out);
    REQUIRE(plan["calls"].size() == 5);
    const std::vector<json> expected = {
        {{"cpp_symbol", "rop::stdlib::io::Files"},
         {"udf_kind", "class"},
         {"shape", "source"},
         {"batch", false},
         {"input_types", json::array()},
         {"output_types", {"rop::stdlib::File"}}},
        {{"cpp_symbol", "rop::stdlib::text::read"},
         {"udf_kind", "function"},
         {"shape", "element_map"},
         {"batch", false},
         {"input_types", {"rop::stdlib::File"}},
         {"output_types", {"std::string"}}},
        {{"cpp_symbol", "shapes::lengths"},
         {"udf_kind", "function"},
         {"shape", "batch_map"},
         {"batch", true},
         {"input_types", {"std::string"}},
         {"output_types", {"std::size_t"}}},
        {{"cpp_symbol", "shapes::Label"},
         {"udf_kind", "class"},
         {"shape", "element_map"},
         {"batch", false},
         {"input_types", {"std::size_t"}},
         {"output_types", {"rop::stdlib::JsonText"}}},
        {{"cpp_symbol", "rop::stdlib::io::Jsonl"},
         {"udf_kind", "class"},
         {"shape", "sink"},
         {"batch", false},
         {"input_types", {"rop::stdlib::JsonText"}},
         {"output_types", json::array()}},
    };
    for (std::size_t i = 0; i < expected.size(); ++i) {
        INFO("call " << i);
        json binding = plan["calls"][i]["binding"];
        // Every bound UDF's code fingerprint (test_fingerprint.cpp has what goes in it).
        CHECK(binding["code"]["digest"].get<std::string>().size() == 32);
        binding.erase("code");
        CHECK(binding == expected[i]);
    }
    // The same bytes from every spelling: --emit=plan, and build's --emit=plan.
    CHECK(run_ropc({"--emit=plan", "plan.rop"}).out == emitted.out);
    CHECK(run_ropc({"build", "plan.rop", "--emit=plan"}).out == emitted.out);
    // --no-bind: the language checks only, so no binding.
    const json unbound = json::parse(run_ropc({"emit", "plan", "plan.rop", "--no-bind"}).out);
    for (const json& call : unbound["calls"]) CHECK(call["binding"].is_null());
}

TEST_CASE("ropc: an unknown option names the closest option of its own subcommand", "[ropc]") {
    const std::vector<std::pair<std::vector<std::string>, std::string>> rows = {
        {{"build", "plan.rop", "--keep-cp", "d"},
         "unknown option '--keep-cp'; did you mean '--keep-cpp'?\n"
         "run `ropc build --help` for usage\n"},
        {{"build", "plan.rop", "-Werrror"},
         "unknown option '-Werrror'; did you mean '-Werror'?\nrun `ropc build --help` for usage\n"},
        {{"build", "plan.rop", "--max-erors=3"},
         "unknown option '--max-erors=3'; did you mean '--max-errors'?\n"
         "run `ropc build --help` for usage\n"},
        {{"emit", "plan", "plan.rop", "--no-bnd"},
         "unknown option '--no-bnd'; did you mean '--no-bind'?\nrun `ropc --help` for usage\n"},
        // --format is check's: graph does not list it, so it does not take it.
        {{"graph", "plan.rop", "--format=json"},
         "unknown option '--format=json'\nrun `ropc --help` for usage\n"},
        {{"build", "plan.rop", "-o"}, "-o needs a file name\nrun `ropc build --help` for usage\n"},
        {{"build", "plan.rop"}, "ropc build needs -o BINARY\nrun `ropc build --help` for usage\n"},
    };
    for (const auto& [args, message] : rows) {
        INFO(args.back());
        const auto result = run_ropc(args);
        CHECK(result.exit_code == 2);
        CHECK(result.out.empty());
        CHECK(result.err == "ropc: error: " + message);
    }
}

TEST_CASE("ropc: help for a subcommand, however it is asked for", "[ropc]") {
    for (const std::string command : {"check", "build", "emit", "graph"}) {
        INFO(command);
        const std::string usage = "usage: ropc " + command + " ";
        CHECK(run_ropc({"help", command}).out.rfind(usage, 0) == 0);
        CHECK(run_ropc({command, "--help"}).out.rfind(usage, 0) == 0);
        CHECK(run_ropc({command, "-h"}).out.rfind(usage, 0) == 0);
    }
    // After the subcommand a command word is a file name, not a second subcommand.
    const auto file = run_ropc({"check", "build"});
    CHECK(file.exit_code == 2);
    CHECK(file.err.find("cannot read 'build'") != std::string::npos);
}

TEST_CASE("ropc: every flag a subcommand's --help lists is accepted there", "[ropc]") {
    struct Row {
        std::vector<std::string> help;
        std::vector<std::string> run;  // every listed flag at once
        int exit_code;
    };
    const std::vector<Row> rows = {
        {{"build", "--help"},
         {"build", "plan.rop", "--emit=plan", "-I", ".", "-I.", "-Werror", "--max-errors=3",
          "--color=never", "-O1", "-j", "2", "-v", "--cxx", "c++", "--keep-cpp", "kept-unused",
          "--src", "shapes.hpp"},
         0},
        {{"check", "--help"},
         {"check", "plan.rop", "-I", ".", "-Werror", "--max-errors=3", "--color=never",
          "--format=json", "--no-bind"},
         0},
        {{"emit", "--help"},
         {"emit", "plan", "plan.rop", "-I", ".", "-Werror", "--max-errors=3", "--color=never",
          "--no-bind"},
         0},
        {{"graph", "--help"},
         {"graph", "plan.rop", "-Werror", "--max-errors=3", "--color=never"},
         0},
    };
    for (const Row& row : rows) {
        INFO(row.help.front());
        const auto help = run_ropc(row.help);
        CHECK(help.exit_code == 0);
        for (const std::string& arg : row.run) {
            if (arg.size() < 2 || arg[0] != '-') continue;
            const std::string flag =
                arg.substr(0, arg.find('=')).substr(0, arg[1] == '-' ? 100 : 2);
            INFO(flag);
            CHECK(help.out.find(flag) != std::string::npos);  // the help lists it
        }
        const auto run = run_ropc(row.run);
        INFO(run.err);
        CHECK(run.exit_code == row.exit_code);
    }
}
