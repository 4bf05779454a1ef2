#include "ropc/cli.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <charconv>
#include <string_view>

#include "driver/cache_admin.h"
#include "rop/vocab/suggest.h"

namespace rop::cli {

namespace {

// Every command word, for the did-you-mean of a misspelt one.
constexpr std::array<std::string_view, 11> kCommands = {
    "check", "build", "emit", "graph", "explain", "version", "help", "fmt", "lsp", "warm", "cache"};
constexpr std::array<std::string_view, 3> kCacheActions = {"info", "prune", "clear"};

std::optional<Command> subcommand(std::string_view word) {
    if (word == "check") return Command::Check;
    if (word == "build") return Command::Build;
    if (word == "emit") return Command::Emit;
    if (word == "graph") return Command::Graph;
    if (word == "explain") return Command::Explain;
    if (word == "version") return Command::Version;
    if (word == "help") return Command::Help;
    if (word == "fmt") return Command::Fmt;
    if (word == "lsp") return Command::Lsp;
    if (word == "warm") return Command::Warm;
    if (word == "cache") return Command::Cache;
    return std::nullopt;
}

std::optional<EmitStage> emit_stage(std::string_view word) {
    if (word == "tokens") return EmitStage::Tokens;
    if (word == "ast") return EmitStage::Ast;
    if (word == "plan") return EmitStage::Plan;
    return std::nullopt;
}

// The generated C++ has one road, build's (it follows build's options: --mpi changes it);
// `ropc emit cpp` and `ropc --emit=cpp` are usage errors that point there.
constexpr const char* kEmitCpp =
    "the generated C++ is `ropc build FILE --emit=cpp`; `ropc emit` prints tokens, ast or plan";

// "; did you mean 'check'?" or "".
std::string did_you_mean(std::string_view word, const auto& candidates) {
    const auto guess = vocab::closest(word, candidates);
    return guess ? "; did you mean '" + std::string(*guess) + "'?" : "";
}

// Which options a command line takes. Each subcommand registers exactly the groups its --help
// lists, so "works where it is listed" holds by construction.
enum Group : unsigned {
    kDiagnostics = 1u << 0,  // -Werror, --max-errors=N, --color=WHEN
    kIncludes = 1u << 1,     // -I DIR
    kFormat = 1u << 2,       // --format=FORMAT
    kNoBind = 1u << 3,       // --no-bind
    kEmit = 1u << 4,         // --emit=STAGE
    kTopLevel = 1u << 5,     // --explain ID, --version
    kBuild = 1u << 6,        // -o, --keep-cpp, --src, -j, --bundle, --static
    kFmt = 1u << 7,          // --check, -i/--in-place
    kLsp = 1u << 8,          // --bind
    kWarm = 1u << 9,         // --into
    kCompiler = 1u << 10,    // --cxx, -O, -v: the host compiler's (build and warm)
    kCache = 1u << 11,       // --max-size, --older-than, --dry-run
    kMpi = 1u << 12,         // --mpi: check and build as every Call's items cross ranks
};

// What CLI11 fills for one (sub)command; validated afterwards, so the messages stay ropc's.
struct Words {
    CLI::App* app = nullptr;
    bool help = false;
    std::vector<std::string> positional;
    std::vector<std::string> include_dirs;
    std::vector<std::string> warnings;  // -W VALUE: -Werror is -W with "error"
    std::string max_errors, format, color, emit, explain;
    bool no_bind = false;
    bool version = false;
    std::string output, cxx, keep_cpp, opt_level, jobs, bundle, into, max_size, older_than;
    bool static_link = false, mpi = false;
    std::vector<std::string> sources;
    bool verbose = false;
    bool check = false, in_place = false;
    bool bind = false;
    bool dry_run = false;

    // Whether the option `name` was on the command line (false when this command has none).
    bool given(const char* name) const {
        const CLI::Option* option = app->get_option_no_throw(name);
        return option != nullptr && option->count() > 0;
    }
};

// As with GCC's flags, a single-valued option given twice takes the last value.
CLI::Option* last_wins(CLI::Option* option) {
    return option->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

void register_words(CLI::App& app, Words& w, unsigned groups) {
    w.app = &app;
    app.set_help_flag();  // the help texts are ropc's own (help.cpp)
    app.allow_extras();   // unknown options come back to us for a did-you-mean
    app.add_flag("-h,--help", w.help);
    if (groups & kIncludes) app.add_option("-I", w.include_dirs)->allow_extra_args(false);
    if (groups & kDiagnostics) {
        app.add_option("-W", w.warnings)->allow_extra_args(false);
        last_wins(app.add_option("--max-errors", w.max_errors));
        last_wins(app.add_option("--color", w.color));
    }
    if (groups & kFormat) last_wins(app.add_option("--format", w.format));
    if (groups & kNoBind) app.add_flag("--no-bind", w.no_bind);
    if (groups & kEmit) last_wins(app.add_option("--emit", w.emit));
    if (groups & kTopLevel) {
        last_wins(app.add_option("--explain", w.explain));
        app.add_flag("--version", w.version);
    }
    if (groups & kBuild) {
        last_wins(app.add_option("-o", w.output));
        last_wins(app.add_option("--keep-cpp", w.keep_cpp));
        app.add_option("--src", w.sources)->allow_extra_args(false);
        last_wins(app.add_option("-j,--jobs", w.jobs));
        last_wins(app.add_option("--bundle", w.bundle));
        app.add_flag("--static", w.static_link);
    }
    if (groups & kMpi) app.add_flag("--mpi", w.mpi);
    if (groups & kFmt) {
        app.add_flag("--check", w.check);
        app.add_flag("-i,--in-place", w.in_place);
    }
    if (groups & kLsp) app.add_flag("--bind", w.bind);
    if (groups & kWarm) last_wins(app.add_option("--into", w.into));
    if (groups & kCache) {
        last_wins(app.add_option("--max-size", w.max_size));
        last_wins(app.add_option("--older-than", w.older_than));
        app.add_flag("--dry-run", w.dry_run);
    }
    if (groups & kCompiler) {
        last_wins(app.add_option("--cxx", w.cxx));
        last_wins(app.add_option("-O", w.opt_level));
        app.add_flag("-v,--verbose", w.verbose);
    }
    app.add_option("words", w.positional);
}

// The spellings a (sub)command accepts, for suggestions: CLI11's own option table.
std::vector<std::string> option_names(const CLI::App& app) {
    std::vector<std::string> names;
    for (const CLI::Option* option : app.get_options()) {
        for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
        for (const std::string& name : option->get_snames()) {
            names.push_back(name == "W" ? "-Werror" : "-" + name);
        }
    }
    return names;
}

// What a missing value means, per option (CLI11 says "-I: 1 required TEXT missing").
std::string missing_value(const std::string& option) {
    if (option == "-I") return "-I needs a directory";
    if (option == "--explain") return "--explain needs a diagnostic id, e.g. --explain E0203";
    if (option == "-o") return "-o needs a file name";
    if (option == "--cxx") return "--cxx needs a compiler";
    if (option == "--keep-cpp") return "--keep-cpp needs a directory";
    if (option == "--src") return "--src needs a file";
    if (option == "-O") return "-O needs a level (0, 1, 2, 3, s)";
    if (option == "-j" || option == "--jobs") return "-j needs a number of jobs";
    if (option == "--bundle") return "--bundle needs a directory or a .tar.gz file";
    if (option == "--into") return "--into needs a directory";
    if (option == "--max-size") return "--max-size needs a size, e.g. 5G";
    if (option == "--older-than") return "--older-than needs an age, e.g. 30d";
    return option + " needs a value";
}

std::optional<std::size_t> number(const std::string& text) {
    std::size_t n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
    return n;
}

class Validator {
  public:
    explicit Validator(ParseResult& result) : result_(result) {}

    bool fail(std::string message) {
        if (result_.error.empty()) result_.error = std::move(message);
        return false;
    }

    // The options every front-half subcommand shares.
    bool front(const Words& w, driver::FrontOptions& out) {
        out.include_dirs.insert(out.include_dirs.end(), w.include_dirs.begin(),
                                w.include_dirs.end());
        for (const std::string& value : w.warnings) {
            if (value != "error") {
                return fail("unknown option '-W" + value + "'; did you mean '-Werror'?");
            }
            out.warnings_as_errors = true;
        }
        if (w.given("--max-errors")) {
            const auto n = number(w.max_errors);
            if (!n) return fail("--max-errors takes a number, found '" + w.max_errors + "'");
            out.max_errors = *n;
        }
        if (w.given("--color")) {
            if (w.color == "auto") {
                out.color = ColorMode::Auto;
            } else if (w.color == "always") {
                out.color = ColorMode::Always;
            } else if (w.color == "never") {
                out.color = ColorMode::Never;
            } else {
                return fail("unknown --color '" + w.color + "' (expected auto, always or never)");
            }
        }
        if (w.given("--format")) {
            if (w.format == "text") {
                out.format = Format::Text;
            } else if (w.format == "json") {
                out.format = Format::Json;
            } else if (w.format == "sarif") {
                out.format = Format::Sarif;
            } else {
                return fail("unknown --format '" + w.format + "' (expected text, json or sarif)");
            }
        }
        if (w.no_bind) out.bind = false;
        if (w.mpi) out.mpi = true;
        return true;
    }

    bool emit(const Words& w, Request& request) {
        if (!w.given("--emit")) return true;
        if (w.emit == "cpp") return fail(kEmitCpp);
        const std::optional<EmitStage> stage = emit_stage(w.emit);
        if (!stage) {
            return fail("unknown --emit stage '" + w.emit + "' (expected tokens, ast or plan)");
        }
        request.emit = *stage;
        return true;
    }

    bool build(const Words& w, Request& request) {
        result_.help_hint = "ropc build --help";
        driver::BuildOptions& b = request.build;
        b.front = request.front;
        b.output = w.output;
        b.cxx = w.cxx;
        b.keep_cpp_dir = w.keep_cpp;
        b.sources = w.sources;
        b.verbose = w.verbose;
        b.bundle = w.bundle;
        b.static_link = w.static_link;
        if (w.given("--bundle") && w.bundle.empty()) {
            return fail("--bundle needs a directory or a .tar.gz file");
        }
        if (w.given("--emit")) {
            if (w.emit == "cpp") {
                b.emit = driver::BuildEmit::Cpp;
            } else if (w.emit == "plan") {
                b.emit = driver::BuildEmit::Plan;
            } else {
                return fail("ropc build: --emit takes 'cpp' or 'plan'");
            }
        }
        if (w.given("-O") && !opt_level(w, b.opt_level)) return false;
        if (w.given("-j")) {
            const auto n = number(w.jobs);
            if (!n || *n == 0) return fail("-j takes a positive number, found '" + w.jobs + "'");
            b.jobs = *n;
        }
        if (request.files.empty()) return fail("ropc build needs a .rop file");
        if (request.files.size() > 1) return fail("ropc build takes one .rop file");
        b.rop_path = request.files.front();
        if (b.emit == driver::BuildEmit::None && b.output.empty() && b.bundle.empty()) {
            return fail("ropc build needs -o BINARY");
        }
        if (b.emit != driver::BuildEmit::None && (!b.bundle.empty() || b.static_link)) {
            return fail("--emit builds nothing: it cannot be combined with --bundle or --static");
        }
        return true;
    }

    bool warm(const Words& w, Request& request) {
        result_.help_hint = "ropc warm --help";
        driver::WarmOptions& o = request.warm;
        o.into = w.into;
        o.cxx = w.cxx;
        o.verbose = w.verbose;
        if (w.given("--into") && w.into.empty()) return fail("--into needs a directory");
        if (w.given("-O") && !opt_level(w, o.opt_level)) return false;
        if (!request.files.empty()) return fail("ropc warm takes no files");
        return true;
    }

    bool cache(const Words& w, Request& request) {
        result_.help_hint = "ropc cache --help";
        CacheRequest& c = request.cache;
        if (request.files.size() > 1) return fail("ropc cache takes one action");
        if (!request.files.empty()) {
            const std::string& word = request.files.front();
            if (word == "info") {
                c.action = CacheAction::Info;
            } else if (word == "prune") {
                c.action = CacheAction::Prune;
            } else if (word == "clear") {
                c.action = CacheAction::Clear;
            } else {
                return fail("unknown cache action '" + word + "' (expected info, prune or clear)" +
                            did_you_mean(word, kCacheActions));
            }
        }
        for (const char* option : {"--max-size", "--older-than"}) {
            if (w.given(option) && c.action != CacheAction::Prune) {
                return fail(std::string(option) + " is for `ropc cache prune`");
            }
        }
        if (w.dry_run && c.action == CacheAction::Info) {
            return fail("--dry-run is for `ropc cache prune` and `ropc cache clear`");
        }
        c.dry_run = w.dry_run;
        if (w.given("--max-size")) {
            c.max_size = driver::parse_size(w.max_size);
            if (!c.max_size) {
                return fail("--max-size takes a size (e.g. 5G, 500M, 0), found '" + w.max_size +
                            "'");
            }
        }
        if (w.given("--older-than")) {
            c.older_than = driver::parse_age(w.older_than);
            if (!c.older_than) {
                return fail("--older-than takes an age (e.g. 30d, 12h, 45m), found '" +
                            w.older_than + "'");
            }
        }
        return true;
    }

  private:
    bool opt_level(const Words& w, std::string& out) {
        if (w.opt_level.empty() || w.opt_level.size() > 4) {
            return fail("-O needs a level (0, 1, 2, 3, s)");
        }
        out = w.opt_level;
        return true;
    }

    ParseResult& result_;
};

// The first unknown option left over by CLI11, with a did-you-mean from that command's options.
std::optional<std::string> unknown_option(const CLI::App& app) {
    for (const std::string& arg : app.remaining()) {
        if (arg.size() < 2 || arg[0] != '-') continue;
        const std::string_view name = std::string_view(arg).substr(0, arg.find('='));
        return "unknown option '" + arg + "'" + did_you_mean(name, option_names(app));
    }
    return std::nullopt;
}

}  // namespace

ParseResult parse_command_line(const std::vector<std::string>& args) {
    ParseResult result;
    CLI::App app("ropc");
    // One subcommand at most: after it, a command word is a file name (`ropc help check`,
    // `ropc check build`), not a second subcommand.
    app.require_subcommand(0, 1);
    Words top, check, build, emit, graph, explain, version, help, fmt, lsp, warm, cache;
    register_words(app, top, kTopLevel | kEmit | kIncludes | kDiagnostics | kNoBind);
    register_words(*app.add_subcommand("check"), check,
                   kIncludes | kDiagnostics | kFormat | kNoBind | kMpi);
    register_words(*app.add_subcommand("build"), build,
                   kIncludes | kDiagnostics | kEmit | kBuild | kMpi | kCompiler);
    register_words(*app.add_subcommand("emit"), emit, kIncludes | kDiagnostics | kNoBind | kEmit);
    register_words(*app.add_subcommand("graph"), graph, kDiagnostics);
    register_words(*app.add_subcommand("explain"), explain, 0);
    register_words(*app.add_subcommand("version"), version, 0);
    register_words(*app.add_subcommand("help"), help, 0);
    register_words(*app.add_subcommand("fmt"), fmt, kDiagnostics | kFmt);
    register_words(*app.add_subcommand("lsp"), lsp, kIncludes | kLsp);
    register_words(*app.add_subcommand("warm"), warm, kWarm | kCompiler);
    register_words(*app.add_subcommand("cache"), cache, kCache);
    const std::vector<std::pair<Command, Words*>> subcommands = {
        {Command::Check, &check}, {Command::Build, &build},     {Command::Emit, &emit},
        {Command::Graph, &graph}, {Command::Explain, &explain}, {Command::Version, &version},
        {Command::Help, &help},   {Command::Fmt, &fmt},         {Command::Lsp, &lsp},
        {Command::Warm, &warm},   {Command::Cache, &cache}};

    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 pops from the back
    try {
        app.parse(reversed);
    } catch (const CLI::ArgumentMismatch& e) {
        const std::string what = e.what();
        result.error = missing_value(what.substr(0, what.find(':')));
        if (build.app->parsed()) result.help_hint = "ropc build --help";
        if (warm.app->parsed()) result.help_hint = "ropc warm --help";
        if (cache.app->parsed()) result.help_hint = "ropc cache --help";
        return result;
    } catch (const CLI::ParseError& e) {
        result.error = e.what();
        return result;
    }

    Request request;
    Words* words = &top;
    std::optional<Command> explicit_command;
    for (const auto& [command, sub] : subcommands) {
        if (sub->app->parsed()) {
            explicit_command = command;
            words = sub;
        }
    }
    if (words->help || top.help) {
        request.command = Command::Help;
        if (explicit_command && *explicit_command != Command::Help) {
            request.help_for = explicit_command;
        }
        return {request, ""};
    }
    if (explicit_command == Command::Help) {
        request.command = Command::Help;
        if (!help.positional.empty()) request.help_for = subcommand(help.positional.front());
        return {request, ""};
    }
    if (explicit_command == Command::Build) result.help_hint = "ropc build --help";
    if (explicit_command == Command::Warm) result.help_hint = "ropc warm --help";
    if (explicit_command == Command::Cache) result.help_hint = "ropc cache --help";
    for (const CLI::App* level :
         {static_cast<const CLI::App*>(&app), static_cast<const CLI::App*>(words->app)}) {
        if (const auto error = unknown_option(*level)) {
            result.error = *error;
            return result;
        }
    }

    Validator validate(result);
    request.files = words->positional;
    // `ropc -I dir check x.rop`: the shared options may also come before the subcommand.
    if (words != &top) {
        if (top.version || top.given("--explain") || top.given("--emit")) {
            return {std::nullopt, "this option cannot be combined with the subcommand given"};
        }
        if (!top.positional.empty()) {
            return {std::nullopt, "unknown command '" + top.positional.front() + "'"};
        }
        if (!validate.front(top, request.front)) return result;
    }
    if (!validate.front(*words, request.front)) return result;
    // build's --emit (cpp or plan) is build's own (Validator::build).
    if (explicit_command != Command::Build && !validate.emit(*words, request)) return result;
    if (explicit_command) {
        request.command = *explicit_command;
    } else if (top.version) {
        request.command = Command::Version;
    } else if (top.given("--explain")) {
        request.command = Command::Explain;
        request.explain_code = top.explain;
    } else if (top.given("--emit")) {
        request.command = Command::Emit;
    } else {
        if (args.empty()) return {std::nullopt, "no command given"};
        // A path (`ropc x.rop`) is a missing command, not a misspelt one.
        const std::string& first = args.front();
        const bool path = first.find_first_of("./") != std::string::npos;
        return {std::nullopt,
                "unknown command '" + first + "'" + (path ? "" : did_you_mean(first, kCommands))};
    }

    switch (request.command) {
        case Command::Check:
            if (request.files.empty()) return {std::nullopt, "check needs at least one .rop file"};
            break;
        case Command::Emit:
            // `ropc emit plan FILE`: the stage as a word, as `--emit=plan`.
            if (explicit_command && !words->given("--emit") && !request.files.empty()) {
                if (request.files.front() == "cpp") return {std::nullopt, kEmitCpp};
                if (const auto stage = emit_stage(request.files.front())) {
                    request.emit = *stage;
                    request.files.erase(request.files.begin());
                }
            }
            [[fallthrough]];
        case Command::Graph:
            if (request.files.size() != 1) {
                return {std::nullopt,
                        std::string(request.command == Command::Emit ? "emit" : "graph") +
                            " takes exactly one .rop file"};
            }
            break;
        case Command::Build:
            if (!validate.build(*words, request)) return result;
            break;
        case Command::Fmt:
            if (request.files.empty()) return {std::nullopt, "fmt needs at least one .rop file"};
            if (fmt.check && fmt.in_place) {
                return {std::nullopt, "fmt takes --check or --in-place, not both"};
            }
            if (fmt.in_place && std::ranges::find(request.files, "-") != request.files.end()) {
                return {std::nullopt, "fmt --in-place cannot rewrite stdin ('-')"};
            }
            request.fmt_check = fmt.check;
            request.fmt_in_place = fmt.in_place;
            break;
        case Command::Warm:
            if (!validate.warm(*words, request)) return result;
            break;
        case Command::Cache:
            if (!validate.cache(*words, request)) return result;
            break;
        case Command::Lsp:
            if (!request.files.empty()) return {std::nullopt, "lsp takes no files"};
            request.lsp_bind = lsp.bind;
            break;
        case Command::Explain:
            if (explicit_command) {
                if (request.files.empty()) {
                    return {std::nullopt, "--explain needs a diagnostic id, e.g. --explain E0203"};
                }
                request.explain_code = request.files.front();
            }
            break;
        case Command::Version:
        case Command::Help: break;
    }
    result.request = std::move(request);
    return result;
}

}  // namespace rop::cli
