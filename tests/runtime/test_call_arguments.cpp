// Call arguments settable at run time: `--set CALL.ARG=VALUE` and $ROP_SET_<CALL>_<ARG> (their
// parse table, precedence and messages), --help's Arguments section, the actor factory rebuilt
// from the effective values, and rop::gen::Arguments' conversions.
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <filesystem>
#include <map>
#include <sstream>

#include "rop/runtime/generated.h"
#include "test_pipeline_main_demo.h"

using namespace rop::runtime;
using namespace rop::runtime::test;
using Catch::Matchers::ContainsSubstring;

namespace {

using Environment = std::map<std::string, std::string>;

EnvironmentLookup lookup(const Environment& env) {
    return [env](const std::string& name) -> std::optional<std::string> {
        auto it = env.find(name);
        if (it == env.end()) return std::nullopt;
        return it->second;
    };
}

// The demo pipeline with arguments on its map Call `m`, as rop::gen::argument<T> types them.
PipelineDefinition with_arguments(DemoSinks& sinks) {
    PipelineDefinition def = demo_definition(sinks);
    def.calls[1].arguments = {
        rop::gen::argument<std::string>("base_url", "http://127.0.0.1:9/v1"),
        rop::gen::argument<int>("max_tokens", std::nullopt, "4096"),
        rop::gen::argument<double>("temperature", "0.5"),
        rop::gen::argument<bool>("probe", std::nullopt, "true"),
        rop::gen::argument<std::string>("api_key_env", "MY_SECRET_KEY"),
        rop::gen::argument<std::uint8_t>("level", "3"),
        rop::gen::argument<int>("retries", "7"),  // also an option's name: the option wins
    };
    return def;
}

ParseOutcome parse(std::vector<std::string> args, const PipelineDefinition& def,
                   const Environment& env = {}) {
    Argv a(std::move(args));
    return parse_pipeline_args(a.argc(), a.argv(), def, lookup(env));
}

const CallArgument& argument(const ParsedArgs& args, const std::string& name) {
    for (const CallArgument& a : args.calls[1].arguments) {
        if (a.name == name) return a;
    }
    FAIL("no argument " << name);
    throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("call arguments: --set parses each type", "[runtime][cli][arguments]") {
    DemoSinks sinks;
    const PipelineDefinition def = with_arguments(sinks);
    ParseOutcome out =
        parse({"--set", "m.base_url=http://10.0.0.2:8000/v1", "--set", "m.max_tokens=-12",
               "--set=m.temperature=1e-3", "--set", "m.probe=false", "--set", "m.level=255"},
              def);
    INFO(out.error);
    REQUIRE(out.args);
    CHECK(argument(*out.args, "base_url").value == "http://10.0.0.2:8000/v1");
    CHECK(argument(*out.args, "base_url").set_by == "--set");
    CHECK(argument(*out.args, "max_tokens").value == "-12");
    CHECK(argument(*out.args, "temperature").value == "1e-3");
    CHECK(argument(*out.args, "probe").value == "false");
    CHECK(argument(*out.args, "level").value == "255");
    // Untouched: the `.rop`'s value, or none (the C++ default).
    CHECK(argument(*out.args, "api_key_env").value == "MY_SECRET_KEY");
    CHECK(argument(*out.args, "api_key_env").set_by.empty());
    // An option's name wins over an argument's.
    ParseOutcome retries = parse({"--set", "m.retries=2"}, def);
    REQUIRE(retries.args);
    CHECK(retries.args->plan.calls[1].options.retries == 2);
    CHECK(argument(*retries.args, "retries").value == "7");
    // The last --set wins; an empty string is a value.
    ParseOutcome twice = parse({"--set", "m.base_url=a", "--set", "m.base_url="}, def);
    REQUIRE(twice.args);
    CHECK(argument(*twice.args, "base_url").value == "");
}

TEST_CASE("call arguments: bad values and names are usage errors", "[runtime][cli][arguments]") {
    DemoSinks sinks;
    const PipelineDefinition def = with_arguments(sinks);
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"m.max_tokens=many", "--set m.max_tokens: 'many' is not a whole number"},
        {"m.max_tokens=1.5", "--set m.max_tokens: '1.5' is not a whole number"},
        {"m.max_tokens=2147483648",
         "--set m.max_tokens: 2147483648 is out of range -2147483648..2147483647"},
        {"m.level=256", "--set m.level: 256 is out of range 0..255"},
        {"m.level=-1", "--set m.level: -1 is out of range 0..255"},
        {"m.temperature=warm", "--set m.temperature: 'warm' is not a number"},
        {"m.temperature=", "--set m.temperature: '' is not a number"},
        {"m.temperature=inf", "--set m.temperature: 'inf' is not a number"},
        {"m.probe=yes", "--set m.probe: expected true or false, got 'yes'"},
        {"m.base_ur=x", "--set: unknown option or argument 'base_ur'; did you mean 'base_url'?"},
        {"m.probes=x", "--set: unknown option or argument 'probes'; did you mean 'probe'?"},
        {"m.colour=x",
         "--set: unknown option or argument 'colour' (options: batch, actors, retries, "
         "infra_retries, recovery, timeout, batching, on_failure, memory_mb, cache; arguments: "
         "base_url, max_tokens, temperature, probe, api_key_env, level, retries)"},
        // A Call without arguments keeps the options-only message.
        {"split.base_url=x",
         "--set: unknown option 'base_url' (options: batch, actors, retries, infra_retries, "
         "recovery, timeout, batching, on_failure, memory_mb, cache)"},
    };
    for (const auto& [set, message] : cases) {
        INFO(set);
        ParseOutcome out = parse({"--set", set}, def);
        CHECK_FALSE(out.args.has_value());
        CHECK(out.error == message);
    }
}

TEST_CASE("call arguments: the environment, below --set", "[runtime][cli][arguments]") {
    DemoSinks sinks;
    const PipelineDefinition def = with_arguments(sinks);
    CHECK(argument_variable("answers", "base_url") == "ROP_SET_ANSWERS_BASE_URL");
    CHECK(argument_variable("m", "max_tokens") == "ROP_SET_M_MAX_TOKENS");

    const Environment env = {{"ROP_SET_M_BASE_URL", "http://env:1/v1"},
                             {"ROP_SET_M_MAX_TOKENS", "77"},
                             {"rop_set_m_probe", "false"}};  // names are upper-case
    ParseOutcome from_env = parse({}, def, env);
    REQUIRE(from_env.args);
    CHECK(argument(*from_env.args, "base_url").value == "http://env:1/v1");
    CHECK(argument(*from_env.args, "base_url").set_by == "ROP_SET_M_BASE_URL");
    CHECK(argument(*from_env.args, "max_tokens").value == "77");
    CHECK_FALSE(argument(*from_env.args, "probe").value.has_value());

    // The command line wins over the environment.
    ParseOutcome both = parse({"--set", "m.base_url=http://flag:2/v1"}, def, env);
    REQUIRE(both.args);
    CHECK(argument(*both.args, "base_url").value == "http://flag:2/v1");
    CHECK(argument(*both.args, "base_url").set_by == "--set");
    CHECK(argument(*both.args, "max_tokens").value == "77");

    // A bad value in the environment names the variable and the argument.
    ParseOutcome bad = parse({}, def, {{"ROP_SET_M_TEMPERATURE", "hot"}});
    CHECK_FALSE(bad.args.has_value());
    CHECK(bad.error == "ROP_SET_M_TEMPERATURE (m.temperature): 'hot' is not a number");
    // ... even when --set would have replaced it: the environment is read first.
    CHECK(parse({"--set", "m.temperature=1"}, def, {{"ROP_SET_M_TEMPERATURE", "hot"}}).error ==
          "ROP_SET_M_TEMPERATURE (m.temperature): 'hot' is not a number");
}

TEST_CASE("call arguments: --help lists effective values, never a secret",
          "[runtime][cli][arguments]") {
    DemoSinks sinks;
    const PipelineDefinition def = with_arguments(sinks);
    ParseOutcome out = parse({"--set", "m.max_tokens=9", "--help"}, def,
                             {{"ROP_SET_M_BASE_URL", "http://env:1/v1"}});
    REQUIRE(out.args);
    const std::string help = pipeline_help(def, *out.args);
    CHECK_THAT(help,
               ContainsSubstring("Arguments (--set CALL.ARG=VALUE, or the environment: "
                                 "ROP_SET_<CALL>_<ARG>):\n"
                                 "  m.base_url     \"http://env:1/v1\"  (ROP_SET_M_BASE_URL)\n"
                                 "  m.max_tokens   9                  (--set)\n"
                                 "  m.temperature  0.5\n"
                                 "  m.probe        true (default)\n"
                                 "  m.api_key_env  (hidden)\n"
                                 "  m.level        3\n"
                                 "  m.retries      7\n\n"
                                 "Flags:\n"));
    CHECK(help.find("MY_SECRET_KEY") == std::string::npos);
    // A pipeline without arguments has no such section.
    const PipelineDefinition plain = demo_definition(sinks);
    ParseOutcome plain_out = parse({"--help"}, plain);
    REQUIRE(plain_out.args);
    CHECK(pipeline_help(plain, *plain_out.args).find("Arguments (") == std::string::npos);
}

TEST_CASE("call arguments: the actor is built from the effective values",
          "[runtime][cli][arguments]") {
    DemoSinks sinks;
    PipelineDefinition def = with_arguments(sinks);
    auto seen = std::make_shared<std::vector<std::string>>();
    const ActorFactory map_factory = def.plan.calls[1].factory;
    def.calls[1].bind_arguments = [seen, map_factory](const std::vector<CallArgument>& values) {
        const rop::gen::Arguments arguments(values);
        seen->push_back(arguments.get<std::string>("base_url") + " " +
                        std::to_string(arguments.get<int>("max_tokens", 4096)) + " " +
                        (arguments.get<bool>("probe", true) ? "probe" : "no-probe"));
        return map_factory;
    };
    std::ostringstream out;
    std::ostringstream err;
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("rop_call_arguments_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    Argv argv({"--set", "m.base_url=http://set:3/v1", "--set", "m.probe=false", "--no-progress",
               "--journal", (dir / "run.journal").string(), "--input", "1,2"});
    CHECK(pipeline_main(argv.argc(), argv.argv(), def, out, err, false) == kExitOk);
    std::filesystem::remove_all(dir);
    INFO(err.str());
    REQUIRE_FALSE(seen->empty());
    CHECK(seen->back() == "http://set:3/v1 4096 no-probe");
    CHECK(sinks.pages.size() == 3);  // the bound factory's actor ran
}

TEST_CASE("call arguments: rop::gen::Arguments converts by the parameter's type",
          "[runtime][arguments]") {
    const std::vector<CallArgument> values = {
        rop::gen::argument<std::string>("s", "text"),
        rop::gen::argument<long long>("big", "-9000000000"),
        rop::gen::argument<float>("f", "0.25"),
        rop::gen::argument<bool>("b", "true"),
        rop::gen::argument<int>("left_out", std::nullopt, "5"),
    };
    CHECK(values[1].type == ArgumentType::Int);
    CHECK(values[1].min == INT64_MIN);
    CHECK(values[2].type == ArgumentType::Float);
    CHECK(values[3].type == ArgumentType::Bool);
    CHECK(rop::gen::argument<std::uint64_t>("u", "1").max == INT64_MAX);
    const rop::gen::Arguments arguments(values);
    CHECK(arguments.get<std::string>("s") == "text");
    CHECK(arguments.get<long long>("big") == -9'000'000'000LL);
    CHECK(arguments.get<float>("f") == 0.25f);
    CHECK(arguments.get<bool>("b"));
    CHECK(arguments.get<int>("left_out", 5) == 5);
    CHECK_THROWS_WITH(arguments.get<int>("left_out"), "Call argument 'left_out' has no value");
    CHECK_THROWS_WITH(arguments.get<int>("s"),
                      "Call argument 's': 'text' is not a value of its type");
    CHECK_THROWS_WITH(arguments.get<int>("nope"), "no Call argument 'nope'");
}
