// The command line of every generated pipeline binary: a static PipelineDefinition (plan,
// sources, sinks, Call docs) in, flags parsed, the run driven with progress, report, exit code.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rop/runtime/plan.h"
#include "rop/runtime/run.h"

namespace rop::runtime {

// Where roots come from. `open` gets the effective input (the default or --input) and throws
// (any std::exception, one-line message) when it cannot be read: a usage error, exit 2.
struct SourceDefinition {
    std::string name;           // the `.rop` source name: `docs`
    std::string description;    // one line for --help: "Doc: std.files(glob)"
    std::string default_input;  // `in/*.pdf`; empty: --input is required
    std::function<std::unique_ptr<RootSource>(const std::string& input)> open;
};

// Where one Port's results go. `open` gets the effective output path and throws on failure
// (exit 2); the binding's port is taken from `port` (and its name from `name` when empty).
// The runtime calls the binding's restore() before the first write (see RootSinkBinding).
struct SinkDefinition {
    std::string name;
    std::string description;
    PortId port = 0;
    std::string default_output;
    std::function<RootSinkBinding(const std::string& output)> open;
};

// A named argument of a Call's operator that may be changed at run time (`--set CALL.ARG=VALUE`
// or $ROP_SET_<CALL>_<ARG>): a string, whole number, number or bool. Its value is kept as text
// and converted to the parameter's C++ type when the actor is built (rop::gen::Arguments).
enum class ArgumentType : std::uint8_t { String, Int, Float, Bool };

struct CallArgument {
    std::string name;  // the parameter's name: `base_url`
    ArgumentType type = ArgumentType::String;
    std::int64_t min = 0, max = 0;     // Int: the C++ type's range
    std::optional<std::string> value;  // as written in the `.rop` or set; empty: the C++ default
    std::string default_text;          // the C++ default's source text, for --help
    std::string set_by;                // empty (the `.rop`), "--set" or the environment variable
};

// A secret (api_key*) is never printed: --help shows `(hidden)`.
bool is_secret_argument(std::string_view name);

// One Call as the user knows it: its `.rop` name (what --set addresses), kind, UDF and the
// arguments compiled into the binary. Its options are its CallSpec's in the plan (one place:
// --set edits them there).
struct CallDefinition {
    std::string name;  // its output stream; a Call with several outputs: "a,b"
    CallKind kind = CallKind::Map;
    std::string udf;  // "ocr_page", "std.pdf_pages"; empty for broadcast / UDF-less reduce
    std::vector<CallArgument> arguments = {};  // the operator's run-time settable arguments
    // The Call's actor factory for the effective arguments (pipeline_main replaces the plan's
    // factory with it after --set); empty: the plan's factory as is.
    std::function<ActorFactory(const std::vector<CallArgument>&)> bind_arguments = {};
};

struct PipelineDefinition {
    std::string name = "pipeline";  // program name in messages and --help
    std::string version;            // --version (ropc stamps its own version)
    std::string rop_path;           // the `.rop` file it was compiled from (optional)
    std::string rop_hash;           // a hash of the `.rop` text (optional; the report's rop_hash)
    Plan plan;  // its Calls' options as compiled; the run gets a copy --set has edited
    std::vector<SourceDefinition> sources;  // the runtime runs exactly one today
    std::vector<SinkDefinition> sinks;
    // One per plan Call, same order. Empty: taken from `plan` (names and kinds).
    std::vector<CallDefinition> calls;
};

enum class ProgressMode : std::uint8_t { Auto, On, Off };
// --log-level (a line is shown when its level is at or above this one) and --log-format.
enum class LogLevel : std::uint8_t { Error, Warn, Info, Debug };
enum class LogFormat : std::uint8_t { Text, Json };

// Everything the flags say, with defaults applied (inputs/outputs hold every source/sink).
struct ParsedArgs {
    bool help = false;
    bool version = false;
    std::map<std::string, std::string> inputs;   // source name -> input
    std::map<std::string, std::string> outputs;  // sink name -> output
    std::vector<CallDefinition> calls;           // effective arguments after --set
    Plan plan;  // the definition's, its Calls' options after --set: the plan the run gets
    ProgressMode progress = ProgressMode::Auto;
    std::string trace_path;
    std::string report_path;
    std::string report_html_path;  // --report-html: the run as an HTML page (report_html.h)
    std::size_t max_inflight_roots = RunOptions{}.max_inflight_roots;
    std::size_t commit_group = RunOptions{}.commit_group;
    std::size_t max_payload_mb = RunOptions{}.max_payload_bytes >> 20;
    std::chrono::milliseconds stuck_after = RunOptions{}.stuck_min;  // 0: never warn
    std::chrono::milliseconds stop_grace = RunOptions{}.stop_grace;  // --stop-grace
    std::string executor = RunOptions{}.executor;                    // --executor
    // --placement: where actors run: "local" (this process), "mpi" (the other ranks of an MPI
    // job); "": mpi when a launcher started several ranks, else local.
    std::string placement;
    bool explain_placement = false;  // --explain-placement: print where each actor runs
    bool resume = false;             // --resume: continue from the journal
    bool retry_failed = false;       // --retry-failed: resume, and run failed roots again
    bool resume_rebuilt = false;     // --resume-rebuilt: resume, from another .rop text's run
    bool report_ok_roots = true;     // --report-roots all (true) or failed
    std::string journal_path;        // --journal; empty: default_journal_path(def, outputs)
    // --cache DIR: the result store (docs/runtime.md "Re-runs"); empty: off. --trust-mtime: a
    // file's content is its path, size and mtime. --cache-max-mb: the store's size limit.
    // --explain-cache: after the run, each Call's hits and misses by reason on stderr.
    std::string cache_dir;
    bool trust_mtime = false;
    std::uint64_t cache_max_mb = 0;
    bool explain_cache = false;
    // --cache-info, --cache-prune SIZE (the bytes), --cache-clear: the flag given (one of them),
    // a command on the store instead of a run.
    std::string cache_admin;
    std::uint64_t cache_prune_bytes = 0;

    // Observability (docs/runtime.md "Observability").
    LogLevel log_level = LogLevel::Info;        // --log-level
    LogFormat log_format = LogFormat::Text;     // --log-format
    std::string metrics_file;                   // --metrics-file: a Prometheus textfile
    std::optional<std::uint16_t> metrics_port;  // --metrics-port: HTTP on 127.0.0.1 (0: any)
    // --estimate: predict the run from a sample instead of running it (docs/runtime.md
    // "Estimates"); --sample PCT, --cores N, --estimate-json FILE.
    bool estimate = false;
    double estimate_sample = 0.02;
    std::uint32_t estimate_cores = 0;  // 0: this machine's
    std::string estimate_json;
    // --with-estimate FILE: an --estimate-json file for this run: the progress ETA follows its
    // model and the reports put it beside what happened (RunReport::prediction).
    std::string with_estimate;
};

struct ParseOutcome {
    std::optional<ParsedArgs> args;
    std::string error;  // one line, without the "NAME: error: " prefix; empty when args is set
};

// The environment as parse_pipeline_args reads it: a variable's value, or nullopt when unset.
using EnvironmentLookup = std::function<std::optional<std::string>(const std::string& name)>;
// The process environment (getenv).
std::optional<std::string> process_environment(const std::string& name);

// Parses argv[1..argc). Never prints, never exits. A Call argument takes its value from, in
// rising precedence: the `.rop`, $ROP_SET_<CALL>_<ARG> (`env`), `--set CALL.ARG=VALUE`.
ParseOutcome parse_pipeline_args(int argc, const char* const* argv, const PipelineDefinition& def,
                                 const EnvironmentLookup& env = process_environment);

// The environment variable that sets argument `argument` of the Call named `call`:
// ROP_SET_<CALL>_<ARGUMENT>, upper-case.
std::string argument_variable(std::string_view call, std::string_view argument);

// The journal used without --journal: the first sink's effective output (a trailing '/'
// dropped) + ".journal"; empty when the pipeline has no sinks (no journal).
std::string default_journal_path(const PipelineDefinition& def, const ParsedArgs& args);

// The Calls of `def` (def.calls, or derived from def.plan when empty).
std::vector<CallDefinition> call_definitions(const PipelineDefinition& def);
// The names --set accepts for a Call: each output's ("a,b" -> a, b); the whole name works too.
std::vector<std::string> call_names(const CallDefinition& call);

// --help text (with the effective options of `args`) and --version line.
std::string pipeline_help(const PipelineDefinition& def, const ParsedArgs& args);
std::string pipeline_version(const PipelineDefinition& def);

// Progress rendering: pure functions from a Progress snapshot to text.
struct ProgressCall {
    std::string name;
    bool per_root = false;  // in the root Domain: exactly one Grain per root, total is known
};
std::vector<ProgressCall> progress_calls(const Plan& plan);
// One header line (roots) and one line per Call: done/total Grains, rate/s, ETA. A total that
// is extrapolated from finished roots is marked `~`; unknown totals are `?`.
std::vector<std::string> render_progress(const Progress& progress,
                                         std::span<const ProgressCall> calls);
// The same, the header also saying how many roots failed so far (when any), its ETA from
// `prediction`'s model when given (--with-estimate).
std::vector<std::string> render_progress(const Progress& progress,
                                         std::span<const ProgressCall> calls,
                                         std::size_t roots_failed,
                                         const RunPrediction* prediction = nullptr);
// Seconds left in the run, for the header's ETA; nullopt when it cannot be told (no total, no
// rate yet). With Progress::work it counts Grains: those of finished roots, of the roots in
// flight (with the children their expands announced), and, for roots not admitted yet, the
// mean per root so far; the rate is Grains sealed per second. Without it, roots per second.
std::optional<double> estimate_remaining_s(const Progress& progress);
// The same with an estimate's model (--with-estimate): the run's share done is each Call's
// Grains done over its predicted Grains, weighted by its predicted busy time (a page's OCR
// weighs more than its listing). Until a fifth of that work is done the predicted makespan
// counts too (its time left, blended out linearly); past that, the time left is the elapsed
// time x (1 - share) / share. A Call past its predicted Grains is counted as far from done as
// the roots are. Falls back to the Grain count above when the model has no busy time.
std::optional<double> estimate_remaining_s(const Progress& progress,
                                           const RunPrediction& prediction);
// `line` cut to fit a terminal `width` columns wide (one column is kept free, so that the
// terminal never wraps); 0: as is. A multi-byte UTF-8 character is never cut in two.
std::string fit_width(const std::string& line, std::size_t width);
// While a batch is stuck (Progress::stuck) its Call's line is marked "stuck: ..." and no ETA is
// claimed ("ETA ?"): the run cannot finish before that batch does.
// Terminal redraw: moves the cursor up over the `previous` lines drawn before and rewrites them.
std::string redraw_progress(std::span<const std::string> lines, std::size_t previous);
// Plain (non-TTY) form: each line prefixed with "[elapsed] ", newline-terminated.
std::string plain_progress(const Progress& progress, std::span<const std::string> lines);

// The stderr warning for a stuck batch (without the "NAME: warning: " prefix), `call_name` as
// --set spells it: what runs, for how long, against the Call's median, and how to set a
// timeout when the Call has none.
std::string stuck_warning(const StuckBatch& stuck, const std::string& call_name);

// Exit codes.
inline constexpr int kExitOk = 0;       // every root ok or dropped
inline constexpr int kExitAborted = 1;  // run aborted (or an internal error)
inline constexpr int kExitUsage = 2;    // bad flag, unreadable input, unwritable output
inline constexpr int kExitFailedRoots = 3;
inline constexpr int kExitInterrupted = 130;  // SIGINT: stopped cleanly, journal intact (128 + 2)
inline constexpr int kExitTerminated = 143;   // SIGTERM: the same (128 + 15)

// The stderr summary of failed roots ("N failed of M" and the first few); empty when none.
std::string failure_summary(const RunReport& report, std::size_t shown = 5);

// What every generated main calls: parse, --help/--version, open sources and sinks, run with
// progress, write --report (temp file + rename), print the summary, return the exit code.
int pipeline_main(int argc, char** argv, PipelineDefinition def);
// The same with explicit streams and terminal detection (tests).
int pipeline_main(int argc, const char* const* argv, PipelineDefinition def, std::ostream& out,
                  std::ostream& err, bool err_is_tty);

}  // namespace rop::runtime
