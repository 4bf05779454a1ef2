// ropc's command line as CI sees it: exit codes 0/1/2, where output goes, help for every
// subcommand, and the examples checking clean.
#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "ropc_runner.h"

using rop::test::run_ropc;

TEST_CASE("cli: exit status 0 clean / 1 errors / 2 usage or unreadable", "[cli]") {
    struct Row {
        std::vector<std::string> args;
        int exit_code;
    };
    const std::vector<Row> rows = {
        {{"check", "--no-bind", "W0001_unused_stream.rop"}, 0},             // warnings alone pass
        {{"check", "--no-bind", "W0001_unused_stream.rop", "-Werror"}, 1},  // unless promoted
        {{"check", "W0500_nondeterministic_udf.rop"}, 0},  // binding's warnings too
        {{"check", "W0500_nondeterministic_udf.rop", "-Werror"}, 1},
        {{"check", "clean/bound.rop"}, 0},              // binds clean
        {{"check", "clean/gpus.rop", "-Werror"}, 0},    // gpus: placed at run time, no warning
        {{"check", "E0306_isolation_process.rop"}, 1},  // an item type without a codec
        {{"check", "clean/isolated.rop"}, 0},           // isolation process, types with codecs
        {{"check", "E0500_unknown_udf.rop"}, 1},        // binding errors
        {{"check", "--no-bind", "E0500_unknown_udf.rop"}, 0},
        {{"check", "-I"}, 2},  // -I needs a directory
        {{"check", "E0100_undefined_stream.rop"}, 1},
        {{"check", "E0100_undefined_stream.rop", "--format=json"}, 1},
        {{"check", "E0100_undefined_stream.rop", "--format=sarif"}, 1},
        {{"check", "E0010_expected_token.rop"}, 1},  // syntax errors too
        {{"check", "no_such_file.rop"}, 2},
        {{"check", "--no-bind", "W0001_unused_stream.rop", "no_such_file.rop"}, 2},
        {{"check"}, 2},  // no file
        {{"check", "--format=xml", "x.rop"}, 2},
        {{"check", "--max-errors=lots", "x.rop"}, 2},
        {{"check", "--frobnicate", "x.rop"}, 2},
        {{"frobnicate"}, 2},
        {{}, 2},
        {{"--emit=bytecode", "x.rop"}, 2},
        {{"graph"}, 2},
        {{"--explain", "E9999"}, 2},
        {{"--explain", "E0203"}, 0},
        {{"explain", "W0001"}, 0},
        {{"--version"}, 0},
        {{"--help"}, 0},
    };
    for (const Row& row : rows) {
        std::string command;
        for (const std::string& arg : row.args) command += arg + " ";
        INFO("ropc " << command);
        CHECK(run_ropc(row.args).exit_code == row.exit_code);
    }
}

TEST_CASE("cli: an unreadable file gets one line naming it", "[cli]") {
    const auto result = run_ropc({"check", "no_such_file.rop"});
    CHECK(result.exit_code == 2);
    CHECK(result.out.empty());
    CHECK(result.err.find("no_such_file.rop") != std::string::npos);
    CHECK(result.err.find('\n') == result.err.size() - 1);
}

TEST_CASE("cli: text diagnostics go to stderr / machine formats to stdout", "[cli]") {
    const auto text = run_ropc({"check", "E0100_undefined_stream.rop"});
    CHECK(text.out.empty());
    CHECK(text.err.rfind("E0100_undefined_stream.rop:4:11: error: ", 0) == 0);
    CHECK(text.err.find("\x1b[") == std::string::npos);  // stderr is not a TTY here: no colour
    const auto json = run_ropc({"check", "E0100_undefined_stream.rop", "--format=json"});
    CHECK(json.err.empty());
    CHECK(json.out.find("\"E0100\"") != std::string::npos);
}

TEST_CASE("cli: every subcommand has --help", "[cli]") {
    const std::vector<std::vector<std::string>> helps = {{"--help"},          {"-h"},
                                                         {"check", "--help"}, {"emit", "--help"},
                                                         {"graph", "--help"}, {"explain", "--help"},
                                                         {"help", "check"}};
    for (const auto& args : helps) {
        INFO(args.front());
        const auto result = run_ropc(args);
        CHECK(result.exit_code == 0);
        CHECK(result.out.rfind("usage: ropc", 0) == 0);
    }
    CHECK(run_ropc({"check", "--help"}).out.find("--max-errors") != std::string::npos);
    CHECK(run_ropc({"--version"}).out.rfind("ropc ", 0) == 0);
}

// With binding: every operator resolves in the example's headers and the stdlib's, and the
// item types flow. No output at all (so -Werror passes too).
TEST_CASE("cli: the examples check clean", "[cli][examples]") {
    std::size_t examples = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(ROP_EXAMPLES_DIR)) {
        if (entry.path().extension() != ".rop") continue;
        ++examples;
        INFO(entry.path());
        const std::string dir = entry.path().parent_path().string();
        const auto result = run_ropc({"check", entry.path().filename().string()}, dir);
        CHECK(result.exit_code == 0);
        CHECK(result.err.empty());
        CHECK(result.out.empty());
    }
    CHECK(examples >= 3);
}

TEST_CASE("cli: emit and graph print each stage", "[cli]") {
    const std::string kMineru = std::string(ROP_EXAMPLES_DIR) + "/mineru";
    const auto tokens = run_ropc({"--emit=tokens", "mineru.rop"}, kMineru);
    CHECK(tokens.exit_code == 0);
    CHECK(tokens.out.find("kw_map") != std::string::npos);
    const auto ast = run_ropc({"emit", "--emit=ast", "mineru.rop"}, kMineru);
    CHECK(ast.exit_code == 0);
    CHECK(ast.out.find("\"kind\"") != std::string::npos);
    const auto plan = run_ropc({"--emit=plan", "mineru.rop"}, kMineru);
    CHECK(plan.exit_code == 0);
    CHECK(plan.out.find("\"expand_reduce\"") != std::string::npos);
    const auto graph = run_ropc({"graph", "mineru.rop"}, kMineru);
    CHECK(graph.exit_code == 0);
    CHECK(graph.out.rfind("digraph \"mineru\" {", 0) == 0);
    CHECK(graph.out.find("subgraph cluster_1") != std::string::npos);
    const auto bad_plan = run_ropc({"--emit=plan", "E0100_undefined_stream.rop"});
    CHECK(bad_plan.exit_code == 1);
    CHECK(bad_plan.out.empty());
    CHECK(run_ropc({"graph", "no_such_file.rop"}).exit_code == 2);
}

// `ropc build` runs the same checks before it generates anything: an item type that cannot
// cross a process boundary stops the build with the same diagnostic, and no binary is written.
TEST_CASE("cli: ropc build rejects isolation process with a type without a codec (E0306)",
          "[cli]") {
    const std::filesystem::path output =
        std::filesystem::temp_directory_path() / "rop_cli_e0306_never_built";
    std::filesystem::remove(output);
    const auto result = run_ropc({"build", "E0306_isolation_process.rop", "-o", output.string()});
    CHECK(result.exit_code == 1);
    CHECK(result.err.rfind("E0306_isolation_process.rop:4:48: error: isolation process: item type "
                           "'isolation::Page' cannot cross a process boundary: field 'cache'",
                           0) == 0);
    CHECK(result.err.find("[E0306]") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(output));
}

// The generated file defines the codecs of the structs the Calls pass (those an `isolation
// process` Call sends among them), each after the codecs it uses.
TEST_CASE("cli: build --emit=cpp writes the codecs of the structs that cross", "[cli]") {
    const auto isolated = run_ropc({"build", "clean/isolated.rop", "--emit=cpp"});
    REQUIRE(isolated.exit_code == 0);
    const std::string& cpp = isolated.out;
    const auto entry = cpp.find("struct rop::Codec<isolation::Entry>");
    const auto index = cpp.find("struct rop::Codec<isolation::Index>");
    const auto doc = cpp.find("struct rop::Codec<isolation::Doc>");
    REQUIRE(entry != std::string::npos);
    REQUIRE(index != std::string::npos);
    REQUIRE(doc != std::string::npos);
    CHECK(entry < index);  // Index's codec uses Entry's
    CHECK(cpp.find("rop::FieldsCodec<isolation::Entry, &isolation::Entry::word,") !=
          std::string::npos);
    CHECK(cpp.find("&isolation::Entry::pages> {};") != std::string::npos);
    CHECK(index < cpp.find("namespace {"));  // before any use of the types
    CHECK(cpp.find("#include \"../udfs/isolation.hpp\"") < entry);
    // Without such a Call too: the result store (--cache) keys and keeps items by their bytes.
    const auto bound = run_ropc({"build", "clean/bound.rop", "--emit=cpp"});
    REQUIRE(bound.exit_code == 0);
    CHECK(bound.out.find("struct rop::Codec<golden::Doc>") != std::string::npos);
    CHECK(bound.out.find("struct rop::Codec<golden::Page>") != std::string::npos);
}

// --mpi: every Call's item types need a codec, a binding diagnostic like any other (E0512, its
// golden is E0512_mpi_without_codec): `ropc check --mpi` and `ropc build --mpi` report it the same
// way, in JSON and SARIF too, and a type an `isolation process` Call carries stays E0306's.
TEST_CASE("cli: --mpi asks every Call's item types for a codec (E0512)", "[cli]") {
    const auto checked = run_ropc({"check", "--mpi", "E0512_mpi_without_codec.rop"});
    CHECK(checked.exit_code == 1);
    const std::string first_line =
        "E0512_mpi_without_codec.rop:4:23: error: --mpi: item type 'isolation::Page' of call "
        "'isolation.render' cannot cross between ranks: field 'cache' has type "
        "'std::shared_ptr<isolation::Cache>', which has no codec; give it a rop::Codec "
        "specialization (docs/udfs.md) [E0512]\n";
    CHECK(checked.err.rfind(first_line, 0) == 0);
    CHECK(run_ropc({"check", "E0512_mpi_without_codec.rop"}).exit_code == 0);  // without --mpi

    const std::filesystem::path output =
        std::filesystem::temp_directory_path() / "rop_cli_e0512_never_built";
    std::filesystem::remove(output);
    const auto built =
        run_ropc({"build", "--mpi", "E0512_mpi_without_codec.rop", "-o", output.string()});
    CHECK(built.exit_code == 1);
    CHECK(built.err == checked.err);
    CHECK_FALSE(std::filesystem::exists(output));
    const auto emitted = run_ropc({"build", "--mpi", "E0512_mpi_without_codec.rop", "--emit=cpp"});
    CHECK(emitted.exit_code == 1);
    CHECK(emitted.out.empty());

    const auto json = run_ropc({"check", "--mpi", "--format=json", "E0512_mpi_without_codec.rop"});
    CHECK(json.exit_code == 1);
    const nlohmann::json diags = nlohmann::json::parse(json.out);
    REQUIRE(diags.size() == 1);  // once for Page, though keep and show take it too
    CHECK(diags[0]["id"] == "E0512");
    CHECK(diags[0]["line"] == 4);
    CHECK(diags[0]["column"] == 23);
    const auto sarif =
        run_ropc({"check", "--mpi", "--format=sarif", "E0512_mpi_without_codec.rop"});
    const nlohmann::json results = nlohmann::json::parse(sarif.out)["runs"][0]["results"];
    REQUIRE(results.size() == 1);
    CHECK(results[0]["ruleId"] == "E0512");

    // render runs in processes: E0306 at its option; keep and show take the same Page.
    const auto isolated = run_ropc({"check", "--mpi", "E0306_isolation_process.rop"});
    CHECK(isolated.exit_code == 1);
    CHECK(isolated.err == run_ropc({"check", "E0306_isolation_process.rop"}).err);
}
