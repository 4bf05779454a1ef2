// parse_pipeline_args: the flags of a generated pipeline binary, validated to one-line errors.
// `--set` checks the option table the compiler checks too (rop/vocab/call_options.h), and the
// Call arguments the definition lists (also read from $ROP_SET_<CALL>_<ARG>).
//
// Why not CLI11 (which ropc uses; issue 16 item 6 asked): evaluated against libcli11-dev 2.1.2
// (Debian 12) and kept hand-made, because CLI11 would replace only the token loop at the bottom
// (~60 of these lines) and every behaviour the tests pin would need a workaround around it:
// - the rest is validation against the pipeline's own tables (--set CALL.OPTION=VALUE against
//   call_options.h and the Call's arguments, --input NAME=PATH against the sources, the
//   $ROP_SET_ fallbacks) and would stay as CLI11 callbacks, unchanged;
// - CLI11 runs callbacks after the whole line is parsed, in declaration order (`--input a
//   --set x=1` ran --set's first) unless every option sets trigger_on_parse(); here the
//   environment applies first, then the flags in argv order, the last --set wins, and the first
//   bad flag in argv order is the one reported;
// - its messages (`--inptu a` gives "The following arguments were not expected: a --inptu",
//   `--input` alone "--input: 1 required TEXT missing") are not the one-line `--flag: why` this
//   binary documents, and 2.1 has no did-you-mean: ropc gets both only by catching CLI11's
//   errors, walking remaining() and rewording them (compiler/ropc/cli.cpp), about as much code
//   as the loop below;
// - its flags take `--progress=false` (and turn progress off) unless disable_flag_override() is
//   set on each; here a flag given a value is an error;
// - --help is not CLI11's: cli_help.cpp prints each Call argument's current value and where it
//   was set (default, --set, or which $ROP_SET_ variable).
// CLI11 being header-only was not a reason either way: it would be a build-time dependency only.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string_view>

#include "cache/result_store.h"
#include "cli_text.h"
#include "rop/runtime/executor.h"
#include "rop/runtime/pipeline_main.h"

namespace rop::runtime {

namespace {

using cli::did_you_mean;

struct FlagSpec {
    std::string_view name;
    std::string_view value;  // the value's name in messages; empty: takes none
};

constexpr FlagSpec kFlags[] = {
    {"--help", ""},
    {"--version", ""},
    {"--input", "[NAME=]PATH"},
    {"--output", "[NAME=]PATH"},
    {"--set", "CALL.OPTION=VALUE"},
    {"--progress", ""},
    {"--no-progress", ""},
    {"--trace", "FILE"},
    {"--report", "FILE"},
    {"--report-html", "FILE"},
    {"--estimate", ""},
    {"--sample", "PCT"},
    {"--cores", "N"},
    {"--estimate-json", "FILE"},
    {"--with-estimate", "FILE"},
    {"--max-inflight-roots", "N"},
    {"--max-payload-mb", "N"},
    {"--commit-group", "N"},
    {"--stuck-after", "DURATION"},
    {"--stop-grace", "DURATION"},
    {"--executor", "NAME"},
    {"--placement", "WHERE"},
    {"--explain-placement", ""},
    {"--resume", ""},
    {"--retry-failed", ""},
    {"--resume-rebuilt", ""},
    {"--report-roots", "WHICH"},
    {"--journal", "FILE"},
    {"--cache", "DIR"},
    {"--trust-mtime", ""},
    {"--cache-max-mb", "N"},
    {"--explain-cache", ""},
    {"--cache-info", ""},
    {"--cache-prune", "SIZE"},
    {"--cache-clear", ""},
    {"--log-level", "LEVEL"},
    {"--log-format", "FORMAT"},
    {"--metrics-file", "FILE"},
    {"--metrics-port", "PORT"},
};

constexpr std::size_t kMaxInflightRoots = std::size_t{1} << 20;
constexpr std::size_t kMaxPayloadMb = std::size_t{1} << 24;  // 16 TiB
// Durations (a Call's timeout, --stuck-after) share the timeout option's range.
constexpr std::int64_t kMaxDurationMs =
    static_cast<std::int64_t>(vocab::call_option("timeout").max);

std::string join(const std::vector<std::string>& names) {
    std::string s;
    for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
    return s;
}

std::optional<std::int64_t> parse_int(std::string_view text) {
    std::int64_t v = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
    return v;
}

// "500ms", "30s", "2m", "1h" (whole numbers, as in the language) or "none" (0).
std::optional<std::int64_t> parse_duration_ms(std::string_view text) {
    if (text == "none") return 0;
    struct Unit {
        std::string_view suffix;
        std::int64_t ms;
    };
    constexpr Unit kUnits[] = {{"ms", 1}, {"s", 1000}, {"m", 60'000}, {"h", 3'600'000}};
    for (const Unit& u : kUnits) {
        if (text.size() <= u.suffix.size() || !text.ends_with(u.suffix)) continue;
        const std::string_view digits = text.substr(0, text.size() - u.suffix.size());
        if (digits.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
        const auto n = parse_int(digits);
        if (!n) return kMaxDurationMs + 1;  // too many digits: out of range
        if (*n > kMaxDurationMs) return kMaxDurationMs + 1;
        return *n * u.ms;
    }
    return std::nullopt;
}

// --executor: one of the names make_executor() knows. `mpi`, the older spelling of
// --placement mpi, still means it (MPI places actors on ranks; it is not an executor).
std::string parse_executor(std::string_view value, ParsedArgs& args) {
    if (value == "mpi") {
        args.placement = "mpi";
        return {};
    }
    std::vector<std::string> names;
    for (std::string_view n : executor_names()) names.emplace_back(n);
    if (std::find(names.begin(), names.end(), value) != names.end()) {
        args.executor = std::string(value);
        return {};
    }
    std::string known;
    for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
    return "--executor: unknown executor '" + std::string(value) + "' (available: " + known + ")" +
           cli::did_you_mean(value, names);
}

// --placement: where the actors run (actor_placement.h): local or mpi.
std::string parse_placement(std::string_view value, std::string& into) {
    const std::vector<std::string> names = {"local", "mpi"};
    if (std::find(names.begin(), names.end(), value) != names.end()) {
        into = std::string(value);
        return {};
    }
    return "--placement: unknown placement '" + std::string(value) + "' (available: local, mpi)" +
           cli::did_you_mean(value, names);
}

// --log-level: error, warn, info or debug.
std::string parse_log_level(std::string_view value, LogLevel& into) {
    constexpr std::pair<std::string_view, LogLevel> kLevels[] = {{"error", LogLevel::Error},
                                                                 {"warn", LogLevel::Warn},
                                                                 {"info", LogLevel::Info},
                                                                 {"debug", LogLevel::Debug}};
    for (const auto& [word, level] : kLevels) {
        if (word == value) {
            into = level;
            return {};
        }
    }
    return "--log-level: expected error, warn, info or debug, got '" + std::string(value) + "'" +
           cli::did_you_mean(value, {"error", "warn", "info", "debug"});
}

// A duration option value: "30s" etc., or "none" (0). `where` prefixes the messages.
std::string set_duration(const std::string& where, std::string_view value,
                         std::chrono::milliseconds& into) {
    const auto ms = parse_duration_ms(value);
    if (!ms) {
        return where + ": '" + std::string(value) +
               "' is not a duration (e.g. 500ms, 30s, 2m, 1h, or none)";
    }
    if (*ms > kMaxDurationMs || (*ms == 0 && value != "none")) {
        return where + ": " + std::string(value) + " is out of range 1ms.." +
               cli::format_duration(kMaxDurationMs);
    }
    into = std::chrono::milliseconds(*ms);
    return {};
}

bool is_identifier(std::string_view s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
}

// --input / --output: "NAME=PATH", or "PATH" when there is exactly one endpoint. A prefix that
// looks like a name but names no endpoint is an error (a typo), not a path.
std::string parse_endpoint(std::string_view flag, std::string_view what, std::string_view value,
                           const std::vector<std::string>& names,
                           std::map<std::string, std::string>& into) {
    const std::string f(flag);
    if (names.empty()) return f + ": the pipeline has no " + std::string(what) + "s";
    const std::size_t eq = value.find('=');
    std::string name;
    std::string path;
    if (eq != std::string_view::npos && is_identifier(value.substr(0, eq))) {
        name = std::string(value.substr(0, eq));
        path = std::string(value.substr(eq + 1));
        if (std::find(names.begin(), names.end(), name) == names.end()) {
            std::string hint = did_you_mean(name, names);
            if (hint.empty()) hint = " (" + std::string(what) + "s: " + join(names) + ")";
            return f + ": unknown " + std::string(what) + " '" + name + "'" + hint;
        }
    } else if (names.size() == 1) {
        name = names[0];
        path = std::string(value);
    } else {
        return f + ": expected NAME=PATH (" + std::string(what) + "s: " + join(names) + ")";
    }
    if (path.empty()) return f + ": empty path for " + std::string(what) + " '" + name + "'";
    into[name] = path;
    return {};
}

std::string parse_count(std::string_view flag, std::string_view value, std::size_t max,
                        std::size_t& into) {
    const auto n = parse_int(value);
    if (!n) return std::string(flag) + ": '" + std::string(value) + "' is not a whole number";
    if (*n < 1 || static_cast<std::uint64_t>(*n) > max) {
        return std::string(flag) + ": " + std::to_string(*n) + " is out of range 1.." +
               std::to_string(max);
    }
    into = static_cast<std::size_t>(*n);
    return {};
}

std::string set_int(const std::string& where, std::string_view value,
                    const vocab::CallOptionSpec& spec, CallOptions& into) {
    const auto n = parse_int(value);
    if (!n) return where + ": '" + std::string(value) + "' is not a whole number";
    if (static_cast<double>(*n) < spec.min || static_cast<double>(*n) > spec.max) {
        return where + ": " + std::to_string(*n) + " is out of range " + cli::accepted_values(spec);
    }
    vocab::set_option_value(into, spec, static_cast<double>(*n));
    return {};
}

std::string set_number(const std::string& where, std::string_view value,
                       const vocab::CallOptionSpec& spec, CallOptions& into) {
    double v = 0;
    const char* end = value.data() + value.size();
    auto [ptr, ec] = std::from_chars(value.data(), end, v);
    if (value.empty() || ec != std::errc() || ptr != end || !std::isfinite(v)) {
        return where + ": '" + std::string(value) + "' is not a number";
    }
    if (v < spec.min || v > spec.max) {
        return where + ": " + std::string(value) + " is out of range " + cli::accepted_values(spec);
    }
    vocab::set_option_value(into, spec, v);
    return {};
}

std::string set_word(const std::string& where, std::string_view value,
                     const vocab::CallOptionSpec& spec, CallOptions& into) {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < spec.enumerators.size(); ++i) {
        if (spec.enumerators[i] == value) {
            vocab::set_option_value(into, spec, static_cast<double>(i));
            return {};
        }
        names.emplace_back(spec.enumerators[i]);
    }
    std::string hint = did_you_mean(value, names);
    if (hint.empty()) hint = " (one of " + join(names) + ")";
    return where + ": unknown value '" + std::string(value) + "'" + hint;
}

// A Call argument's value checked against its type: empty when `value` is one, else why not.
std::string check_argument(const std::string& where, const CallArgument& argument,
                           std::string_view value) {
    switch (argument.type) {
        case ArgumentType::String: return {};
        case ArgumentType::Bool:
            if (value == "true" || value == "false") return {};
            return where + ": expected true or false, got '" + std::string(value) + "'";
        case ArgumentType::Int: {
            const auto n = parse_int(value);
            if (!n) return where + ": '" + std::string(value) + "' is not a whole number";
            if (*n < argument.min || *n > argument.max) {
                return where + ": " + std::to_string(*n) + " is out of range " +
                       std::to_string(argument.min) + ".." + std::to_string(argument.max);
            }
            return {};
        }
        case ArgumentType::Float: {
            double v = 0;
            const char* end = value.data() + value.size();
            auto [ptr, ec] = std::from_chars(value.data(), end, v);
            if (value.empty() || ec != std::errc() || ptr != end || !std::isfinite(v)) {
                return where + ": '" + std::string(value) + "' is not a number";
            }
            return {};
        }
    }
    return where + ": cannot be set at run time";
}

// Sets `argument` to `value` (checked first); `set_by` says where it came from, for --help.
std::string set_argument(const std::string& where, CallArgument& argument, std::string_view value,
                         std::string set_by) {
    std::string error = check_argument(where, argument, value);
    if (!error.empty()) return error;
    argument.value = std::string(value);
    argument.set_by = std::move(set_by);
    return {};
}

CallArgument* find_argument(CallDefinition& call, std::string_view name) {
    for (CallArgument& a : call.arguments) {
        if (a.name == name) return &a;
    }
    return nullptr;
}

// $ROP_SET_<CALL>_<ARG> for every Call argument (each of a Call's names; the last one set wins).
std::string apply_environment(const EnvironmentLookup& env, std::vector<CallDefinition>& calls) {
    for (CallDefinition& call : calls) {
        for (CallArgument& argument : call.arguments) {
            for (const std::string& name : call_names(call)) {
                const std::string variable = argument_variable(name, argument.name);
                const std::optional<std::string> value = env(variable);
                if (!value) continue;
                std::string error = set_argument(variable + " (" + name + "." + argument.name + ")",
                                                 argument, *value, variable);
                if (!error.empty()) return error;
            }
        }
    }
    return {};
}

// Sets one run-time option in `o` (checked against the table).
std::string set_option(const std::string& where, const std::string& call,
                       const vocab::CallOptionSpec& option, std::string_view value,
                       CallOptions& o) {
    const vocab::CallOptionSpec* spec = &option;
    if (spec->name == "memory_mb" && o.isolation != Isolation::Process) {
        return where +
               ": only a Call with isolation process runs in a worker process whose "
               "memory can be limited; '" +
               call + "' runs in threads";
    }
    switch (spec->kind) {
        case vocab::OptionKind::Int: return set_int(where, value, *spec, o);
        case vocab::OptionKind::Enum: return set_word(where, value, *spec, o);
        case vocab::OptionKind::Duration: {
            std::chrono::milliseconds ms{0};
            std::string error = set_duration(where, value, ms);
            if (error.empty()) vocab::set_option_value(o, *spec, static_cast<double>(ms.count()));
            return error;
        }
        case vocab::OptionKind::Number: return set_number(where, value, *spec, o);
        case vocab::OptionKind::Gpus: break;  // whole or a fraction of one: fixed at build
    }
    return where + ": cannot be set at run time";
}

// --set POOL.OPTION=VALUE: one of the pool's placement options that may change at run time, in
// the pool and in each of its Calls.
std::string set_pool_option(PoolSpec& pool, const std::string& option, std::string_view value,
                            Plan& plan) {
    const std::string bare = bare_name(pool.name);
    const std::string where = "--set " + bare + "." + option;
    const vocab::CallOptionSpec* spec = vocab::find_call_option(option);
    if (!spec || !is_pool_option(option)) {
        return where + ": '" + bare +
               "' is a pool, which takes its placement options (actors, memory_mb); set the "
               "others on its Calls";
    }
    if (!spec->run_time)
        return "--set: option '" + option + "' is fixed when the pipeline is built";
    std::string error = set_option(where, bare, *spec, value, pool.options);
    if (!error.empty()) return error;
    for (const CallId c : pool.calls) {
        vocab::set_option_value(plan.calls[c].options, *spec,
                                vocab::option_value(pool.options, *spec));
    }
    return {};
}

// --set CALL.OPTION=VALUE or CALL.ARG=VALUE. An option is set in the Call's CallSpec of
// `args.plan`, the plan the run gets; an argument in `args.calls`.
std::string apply_set(std::string_view text, ParsedArgs& args) {
    const std::size_t eq = text.find('=');
    const std::size_t dot = text.substr(0, eq).find('.');
    if (eq == std::string_view::npos || dot == std::string_view::npos || dot == 0 ||
        dot + 1 == eq) {
        return "--set: expected CALL.OPTION=VALUE, got '" + std::string(text) + "'";
    }
    const std::string call(text.substr(0, dot));
    const std::string option(text.substr(dot + 1, eq - dot - 1));
    const std::string_view value = text.substr(eq + 1);

    // A shared pool answers to its name: its placement options are its Calls'.
    for (PoolSpec& pool : args.plan.pools) {
        if (bare_name(pool.name) != call) continue;
        return set_pool_option(pool, option, value, args.plan);
    }

    // A Call answers to its name and, with several outputs ("a,b"), to each output's name.
    std::vector<std::string> known;
    std::optional<std::size_t> index;  // of the Call, in args.calls and args.plan.calls
    for (std::size_t i = 0; i < args.calls.size(); ++i) {
        for (const std::string& name : call_names(args.calls[i])) {
            known.push_back(name);
            if (name == call && !index) index = i;
        }
        if (args.calls[i].name == call) index = i;
    }
    CallDefinition* target = index ? &args.calls[*index] : nullptr;
    if (!target) {
        std::string hint = did_you_mean(call, known);
        if (hint.empty()) hint = " (Calls: " + join(known) + ")";
        return "--set: unknown Call '" + call + "'" + hint;
    }
    const vocab::CallOptionSpec* spec = vocab::find_call_option(option);
    const std::string where = "--set " + call + "." + option;
    // An option's name wins over an argument's of the same name.
    if (CallArgument* argument = find_argument(*target, option); argument && !spec) {
        return set_argument(where, *argument, value, "--set");
    }
    if (spec && !spec->run_time) {
        return "--set: option '" + option + "' is fixed when the pipeline is built";
    }
    if (!spec) {
        std::vector<std::string> settable = cli::settable_options();
        std::vector<std::string> arguments;
        for (const CallArgument& a : target->arguments) arguments.push_back(a.name);
        settable.insert(settable.end(), arguments.begin(), arguments.end());
        std::string hint = did_you_mean(option, settable);
        if (hint.empty()) {
            hint = " (options: " + join(cli::settable_options());
            if (!arguments.empty()) hint += "; arguments: " + join(arguments);
            hint += ")";
        }
        const char* what = arguments.empty() ? "option" : "option or argument";
        return std::string("--set: unknown ") + what + " '" + option + "'" + hint;
    }
    if (!cli::applies_to(*spec, target->kind)) {
        return where + ": only a reduce takes " + option;
    }
    if (*index >= args.plan.calls.size()) {
        return where + ": the plan has no Call '" + call + "'";  // a malformed definition
    }
    CallOptions& o = args.plan.calls[*index].options;
    if (const PoolId pool = args.plan.calls[*index].pool;
        pool != kNoPool && is_pool_option(spec->name)) {
        const std::string& name = args.plan.pools[pool].name;
        const std::string bare = bare_name(name);
        return where + ": '" + call + "' runs on pool '" + bare + "', whose " + option +
               " its Calls share (--set " + bare + "." + option + "=" + std::string(value) + ")";
    }
    return set_option(where, call, *spec, value, o);
}

}  // namespace

bool is_secret_argument(std::string_view name) { return name.starts_with("api_key"); }

std::optional<std::string> process_environment(const std::string& name) {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
}

std::string argument_variable(std::string_view call, std::string_view argument) {
    std::string name = "ROP_SET_" + std::string(call) + "_" + std::string(argument);
    for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return name;
}

std::vector<std::string> call_names(const CallDefinition& call) {
    std::vector<std::string> names;
    std::size_t from = 0;
    for (;;) {
        const std::size_t comma = call.name.find(',', from);
        std::string part = call.name.substr(from, comma - from);
        if (!part.empty() && std::find(names.begin(), names.end(), part) == names.end()) {
            names.push_back(std::move(part));
        }
        if (comma == std::string::npos) break;
        from = comma + 1;
    }
    if (names.empty()) names.push_back(call.name);
    return names;
}

std::vector<CallDefinition> call_definitions(const PipelineDefinition& def) {
    if (!def.calls.empty()) return def.calls;
    std::vector<CallDefinition> calls;
    for (const CallSpec& spec : def.plan.calls) {
        calls.push_back({spec.name, spec.kind, {}});
    }
    return calls;
}

ParseOutcome parse_pipeline_args(int argc, const char* const* argv, const PipelineDefinition& def,
                                 const EnvironmentLookup& env) {
    ParsedArgs args;
    args.calls = call_definitions(def);
    args.plan = def.plan;  // --set edits its options
    if (env) {
        if (std::string error = apply_environment(env, args.calls); !error.empty()) {
            return {std::nullopt, std::move(error)};
        }
    }
    std::vector<std::string> source_names;
    std::vector<std::string> sink_names;
    for (const SourceDefinition& s : def.sources) {
        source_names.push_back(s.name);
        if (!s.default_input.empty()) args.inputs[s.name] = s.default_input;
    }
    for (const SinkDefinition& s : def.sinks) {
        sink_names.push_back(s.name);
        args.outputs[s.name] = s.default_output;
    }
    std::vector<std::string> flag_names;
    for (const FlagSpec& f : kFlags) flag_names.emplace_back(f.name);

    auto fail = [](std::string message) { return ParseOutcome{std::nullopt, std::move(message)}; };
    std::string estimate_flag;  // the last of --estimate's own flags given
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "-h") {
            args.help = true;
            continue;
        }
        if (!arg.starts_with("--") || arg == "--") {
            return fail("unexpected argument '" + std::string(arg) + "' (see --help)");
        }
        const std::size_t eq = arg.find('=');
        const std::string_view name = arg.substr(0, eq);
        const FlagSpec* flag = nullptr;
        for (const FlagSpec& f : kFlags) {
            if (f.name == name) flag = &f;
        }
        if (!flag) {
            std::string hint = did_you_mean(name, flag_names);
            if (hint.empty()) hint = " (see --help)";
            return fail("unknown flag '" + std::string(name) + "'" + hint);
        }
        std::string_view value;
        if (flag->value.empty()) {
            if (eq != std::string_view::npos) {
                return fail("'" + std::string(name) + "' takes no value");
            }
        } else if (eq != std::string_view::npos) {
            value = arg.substr(eq + 1);
        } else if (i + 1 < argc && !std::string_view(argv[i + 1]).starts_with("--")) {
            value = argv[++i];
        } else {
            return fail("'" + std::string(name) + "' needs a value: " + std::string(name) + " " +
                        std::string(flag->value));
        }

        std::string error;
        if (name == "--help") {
            args.help = true;
        } else if (name == "--version") {
            args.version = true;
        } else if (name == "--input") {
            error = parse_endpoint(name, "source", value, source_names, args.inputs);
        } else if (name == "--output") {
            error = parse_endpoint(name, "sink", value, sink_names, args.outputs);
        } else if (name == "--set") {
            error = apply_set(value, args);
        } else if (name == "--progress") {
            args.progress = ProgressMode::On;
        } else if (name == "--no-progress") {
            args.progress = ProgressMode::Off;
        } else if (name == "--trace") {
            args.trace_path = std::string(value);
        } else if (name == "--report") {
            args.report_path = std::string(value);
        } else if (name == "--report-html") {
            args.report_html_path = std::string(value);
        } else if (name == "--estimate") {
            args.estimate = true;
        } else if (name == "--sample") {
            std::string text(value);
            const bool pct = !text.empty() && text.back() == '%';
            if (pct) text.pop_back();
            char* end = nullptr;
            const double v = text.empty() ? -1 : std::strtod(text.c_str(), &end);
            if (!end || *end != '\0' || !(v > 0) || v > 100) {
                error =
                    "--sample: expected a share of the roots such as 2% (0 < PCT <= 100), got '" +
                    std::string(value) + "'";
            } else {
                args.estimate_sample = v / 100;
            }
        } else if (name == "--cores") {
            const auto cores = parse_int(value);
            if (!cores || *cores < 1 || *cores > 65536) {
                error = "--cores: expected a number of cores 1..65536, got '" + std::string(value) +
                        "'";
            } else {
                args.estimate_cores = static_cast<std::uint32_t>(*cores);
            }
        } else if (name == "--estimate-json") {
            args.estimate_json = std::string(value);
        } else if (name == "--with-estimate") {
            args.with_estimate = std::string(value);
        } else if (name == "--max-inflight-roots") {
            error = parse_count(name, value, kMaxInflightRoots, args.max_inflight_roots);
        } else if (name == "--commit-group") {
            error = parse_count(name, value, kMaxInflightRoots, args.commit_group);
        } else if (name == "--max-payload-mb") {
            error = parse_count(name, value, kMaxPayloadMb, args.max_payload_mb);
        } else if (name == "--stuck-after") {
            error = set_duration(std::string(name), value, args.stuck_after);
        } else if (name == "--stop-grace") {
            error = set_duration(std::string(name), value, args.stop_grace);  // none: no grace
        } else if (name == "--executor") {
            error = parse_executor(value, args);
        } else if (name == "--placement") {
            error = parse_placement(value, args.placement);
        } else if (name == "--explain-placement") {
            args.explain_placement = true;
        } else if (name == "--resume") {
            args.resume = true;
        } else if (name == "--retry-failed") {
            args.resume = args.retry_failed = true;
        } else if (name == "--resume-rebuilt") {
            args.resume = args.resume_rebuilt = true;
        } else if (name == "--report-roots") {
            if (value == "all" || value == "failed") {
                args.report_ok_roots = value == "all";
            } else {
                error = "--report-roots: expected all or failed, got '" + std::string(value) + "'" +
                        cli::did_you_mean(value, {"all", "failed"});
            }
        } else if (name == "--journal") {
            args.journal_path = std::string(value);
        } else if (name == "--cache") {
            args.cache_dir = std::string(value);
        } else if (name == "--trust-mtime") {
            args.trust_mtime = true;
        } else if (name == "--cache-max-mb") {
            const auto mb = parse_int(value);
            if (!mb || *mb < 1 || *mb > static_cast<std::int64_t>(kMaxPayloadMb)) {
                error = "--cache-max-mb: expected a size in MiB, 1.." +
                        std::to_string(kMaxPayloadMb) + ", got '" + std::string(value) + "'";
            } else {
                args.cache_max_mb = static_cast<std::uint64_t>(*mb);
            }
        } else if (name == "--explain-cache") {
            args.explain_cache = true;
        } else if (name == "--cache-info" || name == "--cache-clear" || name == "--cache-prune") {
            if (!args.cache_admin.empty() && args.cache_admin != name) {
                error = std::string(name) + ": one store command at a time (also " +
                        args.cache_admin + ")";
            }
            args.cache_admin = std::string(name);
            if (name == "--cache-prune") {
                const std::optional<std::uintmax_t> bytes = detail::parse_store_size(value);
                if (!bytes) {
                    error = "--cache-prune: expected a size such as 500M or 10G, got '" +
                            std::string(value) + "'";
                } else {
                    args.cache_prune_bytes = *bytes;
                }
            }
        } else if (name == "--log-level") {
            error = parse_log_level(value, args.log_level);
        } else if (name == "--log-format") {
            if (value == "text" || value == "json") {
                args.log_format = value == "json" ? LogFormat::Json : LogFormat::Text;
            } else {
                error = "--log-format: expected text or json, got '" + std::string(value) + "'" +
                        cli::did_you_mean(value, {"text", "json"});
            }
        } else if (name == "--metrics-file") {
            args.metrics_file = std::string(value);
        } else if (name == "--metrics-port") {
            const auto port = parse_int(value);
            if (!port || *port < 0 || *port > 65535) {
                error = "--metrics-port: expected a port 0..65535 (0: any free one), got '" +
                        std::string(value) + "'";
            } else {
                args.metrics_port = static_cast<std::uint16_t>(*port);
            }
        }
        if (!error.empty()) return fail(std::move(error));
        if (name == "--sample" || name == "--cores" || name == "--estimate-json") {
            estimate_flag = std::string(name);
        }
        if ((name == "--trace" || name == "--report" || name == "--report-html" ||
             name == "--journal" || name == "--metrics-file" || name == "--cache" ||
             name == "--estimate-json" || name == "--with-estimate") &&
            value.empty()) {
            return fail("'" + std::string(name) + "' needs a value: " + std::string(name) +
                        " FILE");
        }
    }
    // --estimate's flags do nothing in a run, and a run's estimate means nothing to --estimate.
    if (!args.estimate && !estimate_flag.empty()) {
        return fail(estimate_flag + " is for --estimate (a prediction instead of a run)");
    }
    if (args.estimate && !args.with_estimate.empty()) {
        return fail(
            "--with-estimate is for a run (its ETA and report follow the estimate); "
            "--estimate makes one");
    }
    if (!args.help && !args.version && args.cache_admin.empty()) {
        for (const std::string& s : source_names) {
            if (!args.inputs.count(s)) {
                return fail("no input for source '" + s + "'; use --input " + s + "=PATH");
            }
        }
    }
    return {std::move(args), {}};
}

}  // namespace rop::runtime
