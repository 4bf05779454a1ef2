// pipeline_main: what every generated main calls. Parses the flags, opens the source and the
// sinks, runs the plan with progress on stderr, writes the report atomically and maps the run's
// outcome to the exit code.
#include "rop/runtime/pipeline_main.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <thread>

#include "cache/result_store.h"
#include "cli_text.h"
#include "core/crash.h"
#include "estimate/estimate.h"
#include "log.h"
#include "metrics.h"
#include "placement/actor_placement.h"
#include "placement/gpu_devices.h"
#include "placement/mpi_runtime.h"
#include "placement/process.h"
#include "placement/sites.h"
#include "report_html.h"
#include "report_stream.h"
#include "selfcheck.h"

namespace rop::runtime {

namespace {

// Writes `text` to `path` through a temp file in the same directory, fsync and rename, so a
// reader never sees a torn report. Returns an error message, or "" on success.
std::string write_atomically(const std::string& path, const std::string& text) {
    const std::string temp = path + ".tmp." + std::to_string(::getpid());
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return "cannot create '" + temp + "': " + std::strerror(errno);
    std::size_t written = 0;
    while (written < text.size()) {
        const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const std::string error = std::strerror(errno);
            ::close(fd);
            ::unlink(temp.c_str());
            return "cannot write '" + temp + "': " + error;
        }
        written += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        const std::string error = std::strerror(errno);
        ::unlink(temp.c_str());
        return "cannot write '" + temp + "': " + error;
    }
    if (std::rename(temp.c_str(), path.c_str()) != 0) {
        const std::string error = std::strerror(errno);
        ::unlink(temp.c_str());
        return "cannot rename '" + temp + "' to '" + path + "': " + error;
    }
    return {};
}

// Takes `flag` (a flag without a value) out of `arguments`; whether it was there.
bool take_flag(std::vector<const char*>& arguments, std::string_view flag) {
    for (std::size_t i = 1; i < arguments.size(); ++i) {
        if (std::string_view(arguments[i]) == flag) {
            arguments.erase(arguments.begin() + static_cast<std::ptrdiff_t>(i));
            return true;
        }
    }
    return false;
}

// A file to be written after the run must be writable as its writer will write it (checked
// before the run, so a typo costs nothing; --selfcheck checks the same, selfcheck.h).
std::string check_output_dir(const std::string& flag, const std::string& path) {
    if (path.empty()) return {};
    // The journal and the trace are written in place; the reports and the metrics replaced.
    const detail::FileWrite how = flag == "--journal" || flag == "--trace"
                                      ? detail::FileWrite::InPlace
                                      : detail::FileWrite::Replace;
    std::string problem = detail::output_file_problem(path, how);
    return problem.empty() ? problem : flag + ": " + problem;
}

// The terminal's width in columns (TIOCGWINSZ on stderr, asked at each redraw, so that a
// resized window is followed), else $COLUMNS; 0 when neither says.
std::size_t terminal_width() {
    struct winsize size{};
    if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
    if (const char* columns = std::getenv("COLUMNS")) {
        const long n = std::strtol(columns, nullptr, 10);
        if (n > 0 && n < 10000) return static_cast<std::size_t>(n);
    }
    return 0;
}

// Draws progress on stderr from the driver thread: redrawn in place on a terminal (~4 Hz),
// each line cut to the terminal's width, plain periodic lines otherwise. Log lines go through
// it too, so that on a terminal a log line is not overwritten by the next redraw: it replaces
// the block, which is drawn anew below.
class ProgressPrinter {
  public:
    ProgressPrinter(std::ostream& err, bool tty, std::vector<ProgressCall> calls,
                    detail::Logger logger, bool real_terminal)
        : err_(err),
          tty_(tty),
          calls_(std::move(calls)),
          logger_(std::move(logger)),
          real_terminal_(real_terminal) {}

    void operator()(const Progress& progress) {
        std::vector<std::string> lines =
            render_progress(progress, calls_, roots_failed_, prediction_);
        if (tty_) {
            // Only the process's own stderr has a width to ask for (not a test's stream).
            if (const std::size_t width = real_terminal_ ? terminal_width() : 0; width > 0) {
                for (std::string& line : lines) line = fit_width(line, width);
            }
            err_ << redraw_progress(lines, drawn_);
            drawn_ = std::max(drawn_, lines.size());
        } else {
            err_ << plain_progress(progress, lines);
        }
        err_.flush();
    }

    // Whether a line at `level` would be written (to skip building one that would not).
    bool enabled(LogLevel level) const { return logger_.enabled(level); }
    // A log line (filtered by level, formatted by --log-format).
    void log(LogLevel level, const std::string& message,
             const nlohmann::json& fields = nlohmann::json::object()) {
        const std::string line = logger_.line(level, message, fields);
        if (line.empty()) return;
        // Up over the block and erase it to the end of the screen (ESC [ J).
        if (tty_ && drawn_ > 0) err_ << "\x1b[" << drawn_ << "F\x1b[J";
        drawn_ = 0;
        err_ << line;
        err_.flush();
    }

    void root_failed() { ++roots_failed_; }
    // --with-estimate: the header's ETA follows it (outlives the run).
    void follow(const RunPrediction* prediction) { prediction_ = prediction; }

  private:
    const RunPrediction* prediction_ = nullptr;
    std::ostream& err_;
    bool tty_;
    std::vector<ProgressCall> calls_;
    detail::Logger logger_;
    bool real_terminal_;
    std::size_t drawn_ = 0;
    std::size_t roots_failed_ = 0;
};

// What the header's ETA said along the run, for the report (RunReport::eta): a reading at
// least 0.5 s and a fifth of the run's time after the last, so that a run of any length keeps a
// few dozen (the driver thread writes them, the report reads them once the run is over).
class EtaLog {
  public:
    explicit EtaLog(const RunPrediction* prediction) : prediction_(prediction) {}
    void operator()(const Progress& p) {
        if (p.elapsed_s < next_at_) return;
        const std::optional<double> left =
            prediction_ ? estimate_remaining_s(p, *prediction_) : estimate_remaining_s(p);
        if (!left) return;
        readings_.push_back({p.elapsed_s, p.elapsed_s + *left});
        next_at_ = std::max(p.elapsed_s + 0.5, p.elapsed_s * 1.2);
    }
    std::vector<EtaReading> readings() const { return readings_; }

  private:
    const RunPrediction* prediction_;
    double next_at_ = 0;
    std::vector<EtaReading> readings_;
};

// --metrics-file and --metrics-port: the metrics text from each Progress snapshot, written to
// the file (temp + rename, at most once a second while the run goes, and at the end) and given
// to the HTTP server.
class MetricsPublisher {
  public:
    MetricsPublisher(std::string pipeline, std::vector<ProgressCall> calls, std::string file,
                     detail::MetricsServer* server)
        : pipeline_(std::move(pipeline)),
          calls_(std::move(calls)),
          file_(std::move(file)),
          server_(server) {}

    void root_finished(const RootResult& result) {
        switch (result.status) {
            case RootStatus::Ok: ++tally_.ok; break;
            case RootStatus::Dropped: ++tally_.dropped; break;
            case RootStatus::Failed: ++tally_.failed; break;
        }
    }

    // Returns the file's write error, if any ("" otherwise).
    std::string publish(const Progress& progress, bool final) {
        std::string text = detail::render_metrics(pipeline_, progress, tally_, calls_);
        std::string error;
        const auto now = std::chrono::steady_clock::now();
        if (!file_.empty() && (final || now - last_write_ >= std::chrono::seconds(1))) {
            last_write_ = now;
            error = write_atomically(file_, text);
        }
        if (server_ != nullptr) server_->set(std::move(text));
        return error;
    }

  private:
    std::string pipeline_;
    std::vector<ProgressCall> calls_;
    std::string file_;
    detail::MetricsServer* server_;
    detail::RootTally tally_;
    std::chrono::steady_clock::time_point last_write_{};
};

// SIGINT / SIGTERM during a run: the first asks the driver to stop admitting roots and to let
// the ones in flight finish (--stop-grace), the second to stop at once; both keep the journal
// whole. A third ends the process here and now (the journal's lines are whole: each is one
// write). Installed for the run only; the previous handlers come back after it.
StopRequest* g_stop = nullptr;

extern "C" void on_stop_signal(int signal) {
    StopRequest* stop = g_stop;
    if (stop == nullptr) return;
    if (stop->count() >= 2) ::_exit(128 + signal);
    stop->request(signal);
}

class StopSignals {
  public:
    explicit StopSignals(StopRequest& stop) {
        g_stop = &stop;
        struct sigaction action{};
        action.sa_handler = on_stop_signal;
        sigemptyset(&action.sa_mask);
        ::sigaction(SIGINT, &action, &old_int_);
        ::sigaction(SIGTERM, &action, &old_term_);
    }
    ~StopSignals() {
        ::sigaction(SIGINT, &old_int_, nullptr);
        ::sigaction(SIGTERM, &old_term_, nullptr);
        g_stop = nullptr;
    }
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;

  private:
    struct sigaction old_int_{};
    struct sigaction old_term_{};
};

}  // namespace

namespace {
std::string host_name() {
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0) return {};
    return name;
}
}  // namespace

// --cache-info, --cache-prune SIZE, --cache-clear: the store's own commands; nothing runs.
int cache_admin(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
    if (args.cache_dir.empty()) {
        err << "error: " << args.cache_admin << " needs --cache DIR (the store it applies to)\n";
        return kExitUsage;
    }
    try {
        detail::ResultStoreOptions options;  // info shows the limit a run would keep to
        if (args.cache_max_mb) options.max_bytes = args.cache_max_mb << 20;
        const auto store = detail::ResultStore::open(args.cache_dir, options);
        if (args.cache_admin == "--cache-prune" || args.cache_admin == "--cache-clear") {
            const detail::ResultStorePruneResult r = args.cache_admin == "--cache-clear"
                                                         ? store->clear()
                                                         : store->prune(args.cache_prune_bytes);
            out << "removed " << r.removed << " entries (" << detail::format_store_bytes(r.freed)
                << "), " << r.left_entries << " left (" << detail::format_store_bytes(r.left_bytes)
                << ")\n";
            return kExitOk;
        }
        out << detail::format_result_store_info(store->info());
    } catch (const std::exception& e) {
        err << "error: " << args.cache_admin << ": " << e.what() << "\n";
        return kExitUsage;
    }
    return kExitOk;
}

std::string failure_summary(const RunReport& report, std::size_t shown) {
    const std::size_t failed = report.failed_roots();  // listed and counted
    if (failed == 0) return {};
    std::string out =
        std::to_string(failed) + " failed of " + std::to_string(report.total_roots()) + " roots\n";
    std::size_t listed = 0;
    for (const RootResult& r : report.roots) {
        if (r.status != RootStatus::Failed) continue;
        if (listed++ == shown) break;
        out += "  " + r.name + ": ";
        if (!r.failed_call.empty()) out += "call '" + r.failed_call + "': ";
        out += r.reason + "\n";
    }
    if (failed > shown) {
        out += "  ... and " + std::to_string(failed - shown) + " more (see --report)\n";
    }
    return out;
}

int pipeline_main(int argc, const char* const* argv, PipelineDefinition def, std::ostream& out,
                  std::ostream& err, bool err_is_tty) {
    const std::string prog = def.name.empty() ? "pipeline" : def.name;
    auto usage_error = [&](const std::string& message) {
        err << prog << ": error: " << message << "\n";
        return kExitUsage;
    };
    // A malformed definition is a bug of the code generator, not of the user.
    auto internal_error = [&](const std::string& message) {
        err << prog << ": internal error: " << message << "\n";
        return kExitAborted;
    };

    // Worker mode (a process-isolated Call's actor, started by the driver): the same arguments
    // as the driver's, plus --rop-worker SPEC, which is taken out before they are parsed.
    std::vector<const char*> arguments(argv, argv + argc);
    std::string worker_spec;
    for (std::size_t i = 1; i + 1 < arguments.size(); ++i) {
        if (arguments[i] == detail::kWorkerFlag) {
            worker_spec = arguments[i + 1];
            arguments.erase(arguments.begin() + static_cast<std::ptrdiff_t>(i),
                            arguments.begin() + static_cast<std::ptrdiff_t>(i) + 2);
            break;
        }
    }
    // Hidden, for tests: print each Call's options in the plan this run would get, one
    // `CALL.OPTION=VALUE` line per option of the table (cli::options_dump), and run nothing.
    const bool dump_options = take_flag(arguments, "--rop-dump-options");
    // --selfcheck checks the node instead of running (selfcheck.h); a bundle's Tesseract data.
    if (detail::take_selfcheck_flag(arguments)) return detail::run_selfcheck(def, arguments, out);
    detail::use_bundled_tessdata();
    ParseOutcome parsed =
        parse_pipeline_args(static_cast<int>(arguments.size()), arguments.data(), def);
    if (!parsed.args) return usage_error(parsed.error);
    const ParsedArgs& args = *parsed.args;
    if (args.help) {
        out << pipeline_help(def, args);
        return kExitOk;
    }
    if (args.version) {
        out << pipeline_version(def);
        return kExitOk;
    }
    if (!args.cache_admin.empty()) return cache_admin(args, out, err);
    const std::string journal_path =
        args.journal_path.empty() ? default_journal_path(def, args) : args.journal_path;
    if (args.resume && journal_path.empty()) {
        return usage_error(std::string(args.retry_failed ? "--retry-failed" : "--resume") +
                           ": the pipeline has no sink; name a journal with --journal FILE");
    }
    for (const auto& [flag, path] : {std::pair{std::string("--report"), args.report_path},
                                     std::pair{std::string("--trace"), args.trace_path},
                                     std::pair{std::string("--report-html"), args.report_html_path},
                                     std::pair{std::string("--metrics-file"), args.metrics_file}}) {
        if (std::string e = check_output_dir(flag, path); !e.empty()) return usage_error(e);
    }

    // The plan with the effective options.
    if (def.sources.size() != 1) {
        return internal_error("the runtime runs exactly one source, the definition has " +
                              std::to_string(def.sources.size()));
    }
    Plan plan = std::move(parsed.args->plan);  // --set edited its options (cli_args.cpp)
    if (plan.calls.size() != args.calls.size()) {
        return internal_error("the plan has " + std::to_string(plan.calls.size()) +
                              " Calls, the definition documents " +
                              std::to_string(args.calls.size()));
    }
    // Calls with run-time arguments get actors built from the effective ones (--set, env).
    for (std::size_t i = 0; i < args.calls.size(); ++i) {
        const CallDefinition& call = args.calls[i];
        if (call.bind_arguments) plan.calls[i].factory = call.bind_arguments(call.arguments);
        // The result store keys a Call by its effective arguments too (a changed dpi re-runs).
        for (const CallArgument& a : call.arguments) {
            std::string& text = plan.calls[i].arguments;
            text += (text.empty() ? "" : " ") + a.name + "=" + a.value.value_or(a.default_text);
        }
    }
    if (dump_options) {
        out << cli::options_dump(args.calls, plan);
        return kExitOk;
    }
    if (!worker_spec.empty()) return detail::serve_process_worker(plan, worker_spec, err);

    // MPI (docs/cluster.md): started by mpirun or srun with several ranks, or --placement mpi.
    // Every rank gets here with the same plan; ranks >= 1 host actors until rank 0 is done.
    if (std::string problem = detail::launch_problem(); !problem.empty()) {
        return usage_error(problem);
    }
    const int launched = detail::launched_ranks();
    if (args.placement == "local" && launched > 1) {
        return usage_error("--placement local: started by an MPI launcher with " +
                           std::to_string(launched) +
                           " ranks (every rank would run the whole pipeline); start one "
                           "process, or drop --placement local");
    }
    detail::MpiRuntime* mpi = nullptr;
    if (args.placement == "mpi" || launched > 1) {
        mpi = detail::mpi_runtime();
        if (!mpi) {
            const int code =
                usage_error((launched > 1 ? "started by an MPI launcher with " +
                                                std::to_string(launched) + " ranks, but this binary"
                                          : std::string("--placement mpi: this binary")) +
                            " was built without the MPI executor; build it with `ropc build --mpi` "
                            "(docs/cluster.md)");
            if (launched > 1) detail::await_launched_ranks();  // every rank says it, then exits
            return code;
        }
        if (launched <= 1) {
            return usage_error(
                "--placement mpi: this process is the only rank; start it with mpirun -np N or "
                "srun -n N, N >= 2 (rank 0 drives, the others host actors; docs/cluster.md)");
        }
        if (args.executor == "inline") {
            return usage_error("--executor inline: started by an MPI launcher with " +
                               std::to_string(launched) +
                               " ranks, where the actors are placed on the ranks and batches go "
                               "to them from actor threads; start one process to run inline");
        }
        try {
            mpi->start();
        } catch (const std::exception& e) {
            return usage_error(std::string("mpi: ") + e.what());
        }
        if (mpi->rank() > 0) {
            // Rank 0 drives the stop: srun's scancel and mpirun's Ctrl-C signal every rank, and
            // a worker rank that died at once would leave rank 0's batches on it unanswered.
            // Rank 0 finishes what it can in --stop-grace, then ends the run here too.
            ::signal(SIGINT, SIG_IGN);
            ::signal(SIGTERM, SIG_IGN);
            // A UDF that brings this rank down is named, and journaled where rank 0's journal
            // can be reached (crash.h).
            detail::install_crash_handler(prog);
            RunOptions worker;
            worker.worker_argv.emplace_back("/proc/self/exe");
            for (int i = 1; i < argc; ++i) worker.worker_argv.emplace_back(argv[i]);
            // The Grains this rank runs are keyed, read and stored here (docs/cluster.md); not
            // for --estimate, whose sample reads and stores nothing (estimate.cpp).
            worker.pipeline_name = def.name;
            if (!args.estimate) worker.cache_dir = args.cache_dir;
            worker.trust_mtime = args.trust_mtime;
            worker.cache_max_bytes = args.cache_max_mb << 20;
            const int status = mpi->serve(plan, worker, err);
            mpi->finish();
            return status;
        }
    }
    // Rank 0 tells the other ranks to stop however it returns.
    struct MpiFinish {
        detail::MpiRuntime* mpi;
        ~MpiFinish() {
            if (mpi) mpi->finish();
        }
    } mpi_finish{mpi};
    // Where the actors run (actor_placement.h): chosen by run() from this (place_actors).
    auto placement = std::make_shared<detail::PlacementChoice>();
    bool pin_gpus = false;  // one machine, and some Call asks for gpus: placed before the run
    if (mpi) {
        std::string table;
        try {
            placement->ranks = mpi->place_on_ranks(plan, table);
        } catch (const std::exception& e) {
            return usage_error(e.what());
        }
        if (args.explain_placement) err << table;
    } else {
        for (const CallSpec& c : plan.calls) pin_gpus |= c.options.gpus > 0 && c.factory != nullptr;
        for (const PoolSpec& p : plan.pools) pin_gpus |= p.options.gpus > 0 && !p.calls.empty();
        if (args.explain_placement && !pin_gpus) {
            err << "placement: one process (" << args.executor
                << " executor): every actor runs here\n";
        }
    }

    // Source and sinks: failing to open one is the user's (unreadable input, bad path).
    const SourceDefinition& source_def = def.sources[0];
    std::unique_ptr<RootSource> source;
    try {
        if (!source_def.open) return internal_error("source '" + source_def.name + "' has no open");
        source = source_def.open(args.inputs.at(source_def.name));
    } catch (const std::exception& e) {
        return usage_error("input '" + source_def.name + "': " + e.what());
    }
    if (!source) return internal_error("source '" + source_def.name + "' opened nothing");

    RunOptions run_options;
    run_options.max_inflight_roots = args.max_inflight_roots;
    run_options.commit_group = args.commit_group;
    // A UDF that brings the binary down is named, with its roots and a stack trace, and the
    // journal counts it (crash.h).
    run_options.crash_reports = true;
    detail::install_crash_handler(prog);
    // A process-isolated Call's workers are this binary, with these arguments.
    run_options.worker_argv.emplace_back("/proc/self/exe");
    for (int i = 1; i < argc; ++i) run_options.worker_argv.emplace_back(argv[i]);
    run_options.max_payload_bytes = args.max_payload_mb << 20;
    run_options.trace_path = args.trace_path;
    run_options.keep_batches = !args.report_html_path.empty();  // --report-html draws them
    if (args.estimate) {  // a sample and a virtual-time run; no sink is opened, nothing written
        run_options.executor = args.executor;
        // Under MPI the sample's actors are on the ranks, as the run's will be: its batches'
        // times then hold the trip to the rank and back, which can be most of a small one.
        if (mpi) run_options.placement = placement;
        const estimate::EstimateSettings settings{args.estimate_sample, 3, args.estimate_cores,
                                                  args.estimate_json};
        return estimate::run_estimate(plan, *source, run_options, settings, out, err);
    }
    for (const SinkDefinition& sink : def.sinks) {
        if (!sink.open) return internal_error("sink '" + sink.name + "' has no open");
        try {
            RootSinkBinding binding = sink.open(args.outputs.at(sink.name));
            binding.port = sink.port;
            if (binding.name.empty()) binding.name = sink.name;
            if (!binding.write_root) return internal_error("sink '" + sink.name + "' has no write");
            run_options.root_sinks.push_back(std::move(binding));
        } catch (const std::exception& e) {
            return usage_error("output '" + sink.name + "': " + e.what());
        }
    }
    // After the sinks are open (opening may create the output directory).
    if (std::string e = check_output_dir("--journal", journal_path); !e.empty()) {
        return usage_error(e);
    }
    if (args.cache_dir.empty() && (args.trust_mtime || args.cache_max_mb || args.explain_cache)) {
        return usage_error(std::string(args.trust_mtime    ? "--trust-mtime"
                                       : args.cache_max_mb ? "--cache-max-mb"
                                                           : "--explain-cache") +
                           " needs --cache DIR (the result store it applies to)");
    }
    run_options.journal_path = journal_path;
    run_options.resume = args.resume;
    run_options.retry_failed = args.retry_failed;
    run_options.pipeline_name = def.name;
    run_options.pipeline_hash = def.rop_hash;
    run_options.resume_rebuilt = args.resume_rebuilt;
    run_options.report_ok_roots = args.report_ok_roots;
    run_options.cache_dir = args.cache_dir;
    run_options.trust_mtime = args.trust_mtime;
    run_options.cache_max_bytes = args.cache_max_mb << 20;
    // Each root's result goes to --report as the run is done with it (or nowhere): the run keeps
    // nothing per root but the first few failures for the summary on stderr.
    std::unique_ptr<detail::ReportStream> report_stream;
    if (!args.report_path.empty()) {
        std::string error;
        report_stream = detail::ReportStream::open(args.report_path, args.report_ok_roots, error);
        if (!report_stream) return usage_error("--report: " + error);
    }
    // --report-html counts every root's failure by Call and reason (the report keeps a few).
    std::unique_ptr<detail::FailureTally> html_failures;
    if (!args.report_html_path.empty()) html_failures = std::make_unique<detail::FailureTally>();
    run_options.on_root_result = [stream = report_stream.get(),
                                  failures = html_failures.get()](const RootResult& r) {
        if (stream) stream->add(r);
        if (failures) failures->add(r);
    };
    const bool show_progress =
        args.progress == ProgressMode::On || (args.progress == ProgressMode::Auto && err_is_tty);
    // Progress and warnings name the Calls as --set and --help do (the plan's names may carry
    // a location suffix).
    std::vector<ProgressCall> calls = progress_calls(plan);
    for (std::size_t i = 0; i < calls.size(); ++i) calls[i].name = args.calls[i].name;
    auto printer = std::make_shared<ProgressPrinter>(
        err, show_progress && err_is_tty, calls,
        detail::Logger(args.log_level, args.log_format, prog), &err == &std::cerr);
    // Metrics: an HTTP server for the run's length (stopped when pipeline_main returns) and/or
    // a textfile, both fed from the Progress snapshots.
    std::unique_ptr<detail::MetricsServer> metrics_server;
    if (args.metrics_port) {
        try {
            metrics_server = std::make_unique<detail::MetricsServer>(*args.metrics_port);
        } catch (const std::exception& e) {
            return usage_error(std::string("--metrics-port: ") + e.what());
        }
    }
    std::shared_ptr<MetricsPublisher> metrics;
    if (metrics_server || !args.metrics_file.empty()) {
        metrics = std::make_shared<MetricsPublisher>(prog, calls, args.metrics_file,
                                                     metrics_server.get());
        // Every family and Call present, at zero, before the first snapshot.
        Progress zero;
        zero.calls.resize(calls.size());
        metrics->publish(zero, false);
    }
    // --with-estimate: read before the run (a wrong file stops it here), for this run's roots.
    std::unique_ptr<const RunPrediction> prediction;
    if (!args.with_estimate.empty()) {
        try {
            prediction = std::make_unique<const RunPrediction>(
                estimate::read_prediction(args.with_estimate, plan, source->size_hint()));
        } catch (const std::exception& e) {
            return usage_error(std::string("--with-estimate: ") + e.what());
        }
        printer->follow(prediction.get());
    }
    // The reports keep what the ETA said along the way.
    std::shared_ptr<EtaLog> eta_log;
    if (report_stream || html_failures || prediction) {
        eta_log = std::make_shared<EtaLog>(prediction.get());
    }
    if (show_progress || metrics || eta_log) {
        run_options.on_progress = [printer, metrics, show_progress, eta_log](const Progress& p) {
            if (eta_log) (*eta_log)(p);
            if (show_progress) (*printer)(p);
            if (metrics) {
                if (std::string e = metrics->publish(p, false); !e.empty()) {
                    printer->log(LogLevel::Warn, "--metrics-file: " + e);
                }
            }
        };
        run_options.progress_interval = show_progress && err_is_tty ? std::chrono::milliseconds(250)
                                        : show_progress ? std::chrono::milliseconds(5000)
                                                        : std::chrono::milliseconds(1000);
    }
    // Each root this run finishes: a failed one is logged at once, with its reason.
    run_options.on_root_finished = [printer, metrics, prog](const RootResult& r) {
        if (metrics) metrics->root_finished(r);
        if (r.status == RootStatus::Failed) {
            printer->root_failed();
            std::string message = prog + ": root " + r.name + " failed: ";
            if (!r.failed_call.empty()) message += "call '" + r.failed_call + "': ";
            printer->log(LogLevel::Error, message + r.reason,
                         {{"event", "root_failed"},
                          {"root", r.name},
                          {"call", r.failed_call},
                          {"reason", r.reason},
                          {"attempts", r.attempts}});
        } else if (printer->enabled(LogLevel::Debug)) {  // not built per root otherwise
            printer->log(LogLevel::Debug,
                         prog + ": root " + r.name + " " + to_string(r.status) + " in " +
                             std::to_string(r.latency_s) + "s",
                         {{"event", "root_done"},
                          {"root", r.name},
                          {"status", to_string(r.status)},
                          {"latency_s", r.latency_s}});
        }
    };
    // A stuck batch is reported whether or not progress is shown.
    if (args.stuck_after.count() > 0) {
        run_options.stuck_min = args.stuck_after;
    } else {
        run_options.stuck_factor = 0;  // --stuck-after none
    }
    run_options.on_stuck = [printer, calls, prog](const StuckBatch& stuck) {
        const std::string& name =
            stuck.call < calls.size() ? calls[stuck.call].name : stuck.call_name;
        printer->log(LogLevel::Warn, prog + ": warning: " + stuck_warning(stuck, name),
                     {{"event", "stuck_batch"},
                      {"call", name},
                      {"grains", stuck.grains},
                      {"roots", stuck.roots},
                      {"running_s", stuck.running_s}});
    };

    run_options.stop_grace = args.stop_grace;
    run_options.executor = mpi ? "threads" : args.executor;  // mpi: threads of proxies
    if (mpi) mpi->deliver(run_options);  // items other ranks keep are fetched for the sinks
    StopRequest stop;
    run_options.stop = &stop;

    // Installed until pipeline_main returns: a signal that comes after the run, while the
    // report is written, is recorded and ignored (the run is over) instead of killing the
    // process with nothing said.
    StopSignals signals(stop);
    const std::string started_at = detail::iso8601_utc(std::chrono::system_clock::now());
    {
        nlohmann::json inputs = args.inputs;
        std::string listed;
        for (const auto& [name, input] : args.inputs) {
            listed += (listed.empty() ? "" : ", ") + name + "=" + input;
        }
        if (metrics_server) {
            printer->log(LogLevel::Info,
                         prog + ": serving metrics at http://127.0.0.1:" +
                             std::to_string(metrics_server->port()) + "/metrics",
                         {{"event", "metrics"}, {"metrics_port", metrics_server->port()}});
        }
        printer->log(LogLevel::Info,
                     prog + ": run started (version " +
                         (def.version.empty() ? "unknown" : def.version) + "), input " + listed,
                     {{"event", "run_started"}, {"version", def.version}, {"inputs", inputs}});
    }
    // One machine: the Calls with gpus get this node's devices (placement.h), each actor's
    // thread pinned before its actor is built; none here: they run on CPU actors, said once.
    if (pin_gpus) {
        detail::GpuCount gpus;
        detail::Placement placed;
        std::vector<detail::RankInfo> self(1);
        try {
            gpus = detail::count_gpus();
            self[0] = {0, host_name(), std::max(1u, std::thread::hardware_concurrency()),
                       gpus.devices, gpus.how};
            placed = detail::place(plan, self);
        } catch (const std::exception& e) {
            return usage_error(e.what());
        }
        if (args.explain_placement) err << detail::explain(plan, placed, self);
        if (!placed.gpus_found) {
            printer->log(LogLevel::Info,
                         prog + ": no GPU (" + gpus.how + "): Calls with gpus run on CPU actors",
                         {{"event", "no_gpu"}, {"reason", gpus.how}});
        }
        // Each actor's thread is pinned to its devices before the actor (or its worker
        // process: CUDA_VISIBLE_DEVICES) is made.
        placement->devices = std::make_shared<const detail::Placement>(std::move(placed));
    }
    run_options.placement = placement;
    RunReport report;
    try {
        report = run(plan, *source, run_options);
    } catch (const ForeignJournal& e) {  // nothing ran: the user named the wrong journal
        return usage_error(e.what());
    } catch (const std::exception& e) {
        printer->log(LogLevel::Error, prog + ": error: " + e.what(), {{"event", "run_error"}});
        return kExitAborted;
    }
    if (mpi) {
        mpi->end_run();  // the other ranks stop and tell what they kept, fetched and stored
        mpi->add_cache_counts(report);
        printer->log(LogLevel::Info, prog + ": mpi: " + mpi->summary(),
                     {{"event", "mpi"}, {"ranks", mpi->size()}});
    }
    if (prediction) report.prediction = *prediction;
    if (eta_log) report.eta = eta_log->readings();
    report.pipeline = prog;
    report.rop_version = def.version;
    report.rop_hash = def.rop_hash;
    report.host = host_name();
    report.peak_rss_bytes = detail::process_peak_rss_bytes();
    report.started_at = started_at;
    report.ended_at = detail::iso8601_utc(std::chrono::system_clock::now());

    int code = kExitOk;
    if (report.aborted) {
        printer->log(LogLevel::Error, prog + ": aborted: " + report.abort_reason,
                     {{"event", "run_aborted"}, {"reason", report.abort_reason}});
        code = kExitAborted;
    } else if (report.interrupted) {
        const std::size_t left = report.unfinished_roots;
        printer->log(LogLevel::Warn,
                     prog + ": interrupted (" + report.interrupt_reason +
                         "): " + std::to_string(report.total_roots() - left) + " roots finished, " +
                         std::to_string(left) +
                         " in flight left unfinished; --resume continues from the journal",
                     {{"event", "run_interrupted"},
                      {"reason", report.interrupt_reason},
                      {"unfinished", left}});
        code = stop.signal() == SIGTERM ? kExitTerminated : kExitInterrupted;
    } else if (std::string summary = failure_summary(report); !summary.empty()) {
        summary.pop_back();  // the log line's own newline
        printer->log(LogLevel::Error, prog + ": " + summary, {{"event", "failed_roots"}});
        code = kExitFailedRoots;
    }
    {
        std::size_t counts[3] = {report.omitted.ok, report.omitted.dropped, report.omitted.failed};
        for (const RootResult& r : report.roots) ++counts[static_cast<int>(r.status)];
        char wall[32];
        std::snprintf(wall, sizeof wall, "%.1f", report.wall_s);
        printer->log(LogLevel::Info,
                     prog + ": run ended: " + std::to_string(report.total_roots()) + " roots (" +
                         std::to_string(counts[0]) + " ok, " + std::to_string(counts[1]) +
                         " dropped, " + std::to_string(counts[2]) + " failed) in " + wall + "s",
                     {{"event", "run_ended"},
                      {"roots", report.total_roots()},
                      {"ok", counts[0]},
                      {"dropped", counts[1]},
                      {"failed", counts[2]},
                      {"wall_s", report.wall_s},
                      {"exit_code", code}});
    }
    if (!args.cache_dir.empty()) {
        std::uint64_t hits = 0, grains = 0;
        for (const CallCounters& c : report.calls) {
            hits += c.cache_hits;
            grains += c.cache_hits + c.cache_misses;
        }
        const std::uint64_t whole = report.cache_roots_answered;
        printer->log(
            LogLevel::Info,
            prog + ": cache: " + std::to_string(hits) + " of " + std::to_string(grains) +
                " Grains from the store" +
                (whole ? ", " + std::to_string(whole) + " of " +
                             std::to_string(report.total_roots()) + " roots from the store"
                       : std::string()) +
                " (" + args.cache_dir + ")",
            {{"event", "cache"}, {"hits", hits}, {"grains", grains}, {"roots_from_store", whole}});
        for (const std::string& note : report.cache_notes)
            printer->log(LogLevel::Warn, prog + ": cache: " + note, {{"event", "cache_note"}});
        if (args.explain_cache) err << cli::explain_cache(report.calls);
    }
    if (report_stream) {
        if (std::string e = report_stream->finish(report); !e.empty()) {
            printer->log(LogLevel::Error, prog + ": error: --report: " + e);
            if (code == kExitOk) code = kExitAborted;
        }
    }
    if (html_failures) {
        std::vector<std::string> names;
        for (const CallDefinition& call : args.calls) names.push_back(call.name);
        detail::RunEstimate predicted;
        if (prediction) {  // what the page sets beside the run: its names are the page's
            predicted.makespan_s = prediction->makespan_s;
            predicted.p50_commit_s = prediction->p50_commit_s;
            predicted.p99_commit_s = prediction->p99_commit_s;
            predicted.peak_memory_bytes = prediction->peak_rss_bytes;
            for (std::size_t c = 0; c < prediction->calls.size() && c < names.size(); ++c) {
                predicted.calls.push_back(
                    {names[c], prediction->calls[c].busy_s, prediction->calls[c].utilization});
            }
        }
        detail::RunPicture picture{&report, detail::picture_calls(plan, names), html_failures.get(),
                                   std::move(predicted), report.peak_rss_bytes};
        const std::string page = detail::render_report_html(picture);
        if (std::string e = write_atomically(args.report_html_path, page); !e.empty()) {
            printer->log(LogLevel::Error, prog + ": error: --report-html: " + e);
            if (code == kExitOk) code = kExitAborted;
        }
    }
    if (metrics) {
        // run() published its last snapshot already; this one is written whatever the time.
        Progress last;
        last.calls = report.calls;
        last.roots_done = report.total_roots();
        last.roots_admitted = last.roots_done;
        last.roots_total = source->size_hint();  // as run()'s snapshots have it
        last.elapsed_s = report.wall_s;
        if (std::string e = metrics->publish(last, true); !e.empty()) {
            printer->log(LogLevel::Error, prog + ": error: --metrics-file: " + e);
            if (code == kExitOk) code = kExitAborted;
        }
    }
    return code;
}

std::string default_journal_path(const PipelineDefinition& def, const ParsedArgs& args) {
    if (def.sinks.empty()) return {};
    auto it = args.outputs.find(def.sinks[0].name);
    std::string path = it == args.outputs.end() ? def.sinks[0].default_output : it->second;
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    if (path.empty()) return {};
    return path + ".journal";
}

int pipeline_main(int argc, char** argv, PipelineDefinition def) {
    return pipeline_main(argc, argv, std::move(def), std::cout, std::cerr,
                         ::isatty(STDERR_FILENO) != 0);
}

}  // namespace rop::runtime
