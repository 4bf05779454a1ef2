// Every option of the Call option table (rop/vocab/call_options.h) survives the whole chain:
// a `.rop` file writing each one at a value other than its default -> `ropc emit plan` (the
// plan JSON) -> the generated C++ (`ropc build`) -> the binary's `--set` (each run-time option
// at a third value) -> the plan the binary's run gets, as its hidden --rop-dump-options prints
// it after --set (cli_main.cpp: the CallSpecs handed to the run, before placement). The values
// come from the table, so an option added to it is covered without a change here.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "rop/vocab/call_options.h"

namespace fs = std::filesystem;
namespace vocab = rop::vocab;
using nlohmann::json;

namespace {

struct Result {
    int exit_code = -1;
    std::string out;
    std::string err;
};

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Runs argv[0] (a path) in `dir`, without a shell.
Result run(const std::vector<std::string>& argv, const fs::path& dir) {
    const fs::path out_path = dir / "stdout.txt";
    const fs::path err_path = dir / "stderr.txt";
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out < 0 || err < 0 || chdir(dir.c_str()) != 0) _exit(127);
        dup2(out, STDOUT_FILENO);
        dup2(err, STDERR_FILENO);
        std::vector<std::string> copies = argv;
        std::vector<char*> args;
        for (std::string& arg : copies) args.push_back(arg.data());
        args.push_back(nullptr);
        execv(args[0], args.data());
        _exit(127);
    }
    int status = 0;
    waitpid(child, &status, 0);
    Result result;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    result.out = read_file(out_path);
    result.err = read_file(err_path);
    return result;
}

// A value of an option as the table counts it, and its spelling in `.rop` and in `--set` (the
// binary's dump spells it the same way).
struct Sample {
    double value = 0;
    std::string text;
};

std::string number_text(double value) {
    if (value == std::floor(value)) return std::to_string(static_cast<long long>(value));
    std::string text = std::to_string(value);
    while (text.back() == '0') text.pop_back();
    return text;
}

// The `nth` (1 or 2) value of `spec` other than its default, the two different from each other
// (an enumeration of two words has one: its second sample is the default again).
Sample sample(const vocab::CallOptionSpec& spec, int nth) {
    switch (spec.kind) {
        case vocab::OptionKind::Int: {
            double v = spec.default_value + nth;
            if (v > spec.max) v = spec.default_value - nth;
            return {v, number_text(v)};
        }
        case vocab::OptionKind::Number:
        case vocab::OptionKind::Gpus: {
            double v = nth == 1 ? 0.5 : 0.25;  // a fraction of one GPU; inside a Number's range
            if (v == spec.default_value || v < spec.min || v > spec.max) {
                v = spec.default_value + 1.5 * nth;
            }
            return {v, number_text(v)};
        }
        case vocab::OptionKind::Duration: {
            // Whole seconds, not whole minutes: the language and --set spell them "Ns".
            const double v = nth == 1 ? 30'000 : 2'000;
            return {v, number_text(v / 1000) + "s"};
        }
        case vocab::OptionKind::Enum: {
            const std::size_t n = spec.enumerators.size();
            const std::size_t i = (static_cast<std::size_t>(spec.default_value) + nth) % n;
            return {static_cast<double>(i), std::string(spec.enumerators[i])};
        }
    }
    return {};
}

// The default's spelling: what the dump prints for an option no one set.
std::string default_text(const vocab::CallOptionSpec& spec) {
    switch (spec.kind) {
        case vocab::OptionKind::Duration:
            return spec.default_value == 0 ? "none" : number_text(spec.default_value / 1000) + "s";
        case vocab::OptionKind::Enum:
            return std::string(spec.enumerators[static_cast<std::size_t>(spec.default_value)]);
        case vocab::OptionKind::Int:
        case vocab::OptionKind::Number:
        case vocab::OptionKind::Gpus: break;
    }
    return number_text(spec.default_value);
}

// The option's value in a plan JSON `options` object, as the table counts it.
double plan_value(const json& options, const vocab::CallOptionSpec& spec) {
    const std::string name(spec.name);
    switch (spec.kind) {
        case vocab::OptionKind::Duration: {
            const json& ms = options.at(name + "_ms");
            return ms.is_null() ? 0 : ms.get<double>();
        }
        case vocab::OptionKind::Enum: {
            const std::string word = options.at(name).get<std::string>();
            for (std::size_t i = 0; i < spec.enumerators.size(); ++i) {
                if (spec.enumerators[i] == word) return static_cast<double>(i);
            }
            FAIL("plan JSON: " << name << " = " << word << " is no word of the option");
            return -1;
        }
        case vocab::OptionKind::Int:
        case vocab::OptionKind::Number:
        case vocab::OptionKind::Gpus: return options.at(name).get<double>();
    }
    return -1;
}

// `CALL.OPTION=VALUE` lines -> {"CALL.OPTION": "VALUE"}.
std::map<std::string, std::string> dump_lines(const std::string& text) {
    std::map<std::string, std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        const std::size_t eq = line.find('=');
        REQUIRE(eq != std::string::npos);
        out[line.substr(0, eq)] = line.substr(eq + 1);
    }
    return out;
}

// Where an option goes: a Call with a UDF takes every Call option; an option only a reduce
// takes goes on the reduce. One the table allows on neither reaches no plan Call.
bool on_map(const vocab::CallOptionSpec& spec) {
    return vocab::allowed_at(spec, vocab::OptionSite::Call);
}
bool on_reduce(const vocab::CallOptionSpec& spec) {
    return !on_map(spec) && vocab::allowed_at(spec, vocab::OptionSite::Reduce);
}

}  // namespace

TEST_CASE("every Call option survives .rop -> plan -> C++ -> --set -> the run's plan",
          "[ropc][options][build]") {
    const fs::path source = ROP_SOURCE_DIR;
    const fs::path work = ROP_WORK_DIR;
    fs::remove_all(work);
    fs::create_directories(work);
    fs::copy(source / "examples/wordcount/udfs", work / "udfs", fs::copy_options::recursive);
    fs::copy(source / "examples/wordcount/in", work / "in", fs::copy_options::recursive);

    // wordcount with every option at its first sample: `words` (a map with a UDF) takes the
    // Call options, `totals` (a reduce with a UDF) those only a reduce takes.
    std::string map_options;
    std::string reduce_options;
    for (const vocab::CallOptionSpec& spec : vocab::call_options()) {
        const Sample first = sample(spec, 1);
        REQUIRE(first.value != spec.default_value);
        std::string& into = on_map(spec) ? map_options : reduce_options;
        if (on_map(spec) || on_reduce(spec))
            into += " " + std::string(spec.name) + " " + first.text;
    }
    const std::string rop =
        "pipeline option_chain;\n"
        "use \"udfs/wordcount.hpp\";\n"
        "source files : File = std.io.Files(glob: \"in/*.txt\");\n"
        "text   = map files with std.text.read;\n"
        "lines  = expand text as Line with wordcount.split_lines;\n"
        "words  = map lines with wordcount.count_words" +
        map_options +
        ";\n"
        "totals = reduce words to File with wordcount.total" +
        reduce_options +
        ";\n"
        "report = map (files, totals) with wordcount.Report(title: \"x\");\n"
        "sink report -> std.io.MarkdownDir(path: \"out\");\n";
    std::ofstream(work / "options.rop") << rop;
    INFO(rop);

    // 1. The plan JSON: each option at its sample, the other Calls at the defaults.
    const Result plan = run({ROP_ROPC, "emit", "plan", "options.rop"}, work);
    INFO(plan.err);
    REQUIRE(plan.exit_code == 0);
    const json program = json::parse(plan.out);
    std::map<std::string, const json*> options_of;  // by the Call's first output
    for (const json& call : program.at("calls")) {
        const json& outputs = call.at("outputs");
        if (outputs.empty()) continue;  // a sink
        const std::size_t port = outputs[0].get<std::size_t>();
        options_of[program.at("ports")[port].at("name").get<std::string>()] = &call.at("options");
    }
    REQUIRE(options_of.count("words") == 1);
    REQUIRE(options_of.count("totals") == 1);
    for (const vocab::CallOptionSpec& spec : vocab::call_options()) {
        INFO("plan JSON, option " << spec.name);
        const double want_words = on_map(spec) ? sample(spec, 1).value : spec.default_value;
        const double want_totals = on_reduce(spec) ? sample(spec, 1).value : spec.default_value;
        CHECK(plan_value(*options_of.at("words"), spec) == want_words);
        CHECK(plan_value(*options_of.at("totals"), spec) == want_totals);
        CHECK(plan_value(*options_of.at("text"), spec) == spec.default_value);
    }

    // 2. The generated C++, compiled and linked.
    const Result build = run({ROP_ROPC, "build", "options.rop", "-o", "option_chain", "-O1"}, work);
    INFO(build.err);
    REQUIRE(build.exit_code == 0);

    // 3. The binary's plan as compiled: the dump spells each value as the `.rop` did.
    auto expected = [](bool set_here, const vocab::CallOptionSpec& spec, int nth) {
        return set_here ? sample(spec, nth).text : default_text(spec);
    };
    const Result compiled = run({(work / "option_chain").string(), "--rop-dump-options"}, work);
    INFO(compiled.err);
    REQUIRE(compiled.exit_code == 0);
    std::map<std::string, std::string> dump = dump_lines(compiled.out);
    for (const vocab::CallOptionSpec& spec : vocab::call_options()) {
        INFO("compiled, option " << spec.name);
        const std::string name(spec.name);
        CHECK(dump.at("words." + name) == expected(on_map(spec), spec, 1));
        CHECK(dump.at("totals." + name) == expected(on_reduce(spec), spec, 1));
        CHECK(dump.at("text." + name) == expected(false, spec, 1));
        CHECK(dump.at("report." + name) == expected(false, spec, 1));
    }

    // 4. --set each run-time option to its second sample: the run's plan has it; an option
    // fixed at build keeps the `.rop`'s value.
    std::vector<std::string> argv = {(work / "option_chain").string(), "--rop-dump-options"};
    for (const vocab::CallOptionSpec& spec : vocab::call_options()) {
        if (!spec.run_time || !(on_map(spec) || on_reduce(spec))) continue;
        argv.push_back("--set");
        argv.push_back(std::string(on_map(spec) ? "words." : "totals.") + std::string(spec.name) +
                       "=" + sample(spec, 2).text);
    }
    const Result set = run(argv, work);
    INFO(set.err);
    REQUIRE(set.exit_code == 0);
    dump = dump_lines(set.out);
    for (const vocab::CallOptionSpec& spec : vocab::call_options()) {
        INFO("after --set, option " << spec.name);
        const std::string name(spec.name);
        const int nth = spec.run_time ? 2 : 1;
        CHECK(dump.at("words." + name) == expected(on_map(spec), spec, nth));
        CHECK(dump.at("totals." + name) == expected(on_reduce(spec), spec, nth));
        CHECK(dump.at("text." + name) == expected(false, spec, nth));
    }
}
