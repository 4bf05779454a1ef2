// --help and --version of a generated pipeline binary.
#include <algorithm>
#include <sstream>

#include "cli_text.h"
#include "rop/runtime/pipeline_main.h"

namespace rop::runtime {

namespace {

// Rows of cells, each column padded to its widest cell (the last column is not padded).
std::string table(const std::vector<std::vector<std::string>>& rows) {
    std::vector<std::size_t> width;
    for (const auto& row : rows) {
        width.resize(std::max(width.size(), row.size()));
        for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
    }
    std::string out;
    for (const auto& row : rows) {
        std::string line = " ";
        for (std::size_t c = 0; c < row.size(); ++c) {
            line += " " + std::string(c ? 1 : 0, ' ') + row[c];
            if (c + 1 < row.size()) line += std::string(width[c] - row[c].size(), ' ');
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line + "\n";
    }
    return out;
}

constexpr const char* kFlagsBeforeSet =
    "Flags:\n"
    "  --input [NAME=]PATH         read source NAME from PATH (NAME may be left out with one "
    "source)\n"
    "  --output [NAME=]PATH        write sink NAME to PATH (NAME may be left out with one sink)\n";

constexpr const char* kFlagsAfterSet =
    "  --progress, --no-progress   per-Call progress on stderr (default: on on a terminal)\n"
    "  --trace FILE                write a Chrome/Perfetto trace of every batch\n"
    "  --report FILE               write the run report (JSON)\n"
    "  --report-html FILE          write the run as one self-contained HTML page: each\n"
    "                              Call's timeline, batch fill, time to commit, failures\n"
    "  --estimate                  predict the run instead of doing it: run a sample of the\n"
    "                              roots (nothing written), replay the whole input through\n"
    "                              the scheduler in virtual time, print makespan, each\n"
    "                              Call's busy time, the bottleneck and a --set to try\n"
    "  --sample PCT                the share of roots --estimate runs (default 2%, at least 3)\n"
    "  --cores N                   the machine --estimate predicts for (default: this one's)\n"
    "  --estimate-json FILE        --estimate's numbers as JSON too\n"
    "  --with-estimate FILE        run with an --estimate-json prediction: the progress ETA\n"
    "                              follows it, the reports put it beside what happened\n"
    "  --max-inflight-roots N      roots in flight at once (default 64)\n"
    "  --max-payload-mb N          live payload budget before new roots wait (default 1024)\n"
    "  --commit-group N            finished roots made durable together, with one fsync per\n"
    "                              sink and journal (default 1024, or every 50 ms; 1: each)\n"
    "  --stuck-after DURATION      warn about a batch running longer than DURATION and 10x\n"
    "                              its Call's median batch time (default 10s; none: never)\n"
    "  --stop-grace DURATION       after SIGINT/SIGTERM (or an abort), how long roots in\n"
    "                              flight may still finish (default 2s; none: stop at once)\n"
    "  --executor NAME             what runs the UDFs' batches: threads (default; actor\n"
    "                              threads per Call) or inline (every batch on one thread,\n"
    "                              for debugging)\n"
    "  --placement WHERE           where the actors run: local (this process; its worker\n"
    "                              processes for isolation process) or mpi (the other ranks\n"
    "                              of an mpirun/srun job; the default there; needs ropc build\n"
    "                              --mpi). --executor mpi is an older spelling of it\n"
    "  --explain-placement         print which rank and GPUs each Call's actors get\n"
    "  --resume                    continue an interrupted run: skip the roots its journal\n"
    "                              lists, undo sink writes after the last one\n"
    "  --retry-failed              --resume, and run the roots the journal lists as failed\n"
    "                              again (a failed root wrote nothing)\n"
    "  --resume-rebuilt            --resume with a journal this pipeline wrote when it was\n"
    "                              built from another .rop text (refused otherwise)\n"
    "  --report-roots WHICH        all (default) or failed: list only failed and partial\n"
    "                              roots in --report (the others are counted)\n"
    "  --journal FILE              the journal of finished roots (default: the first sink's\n"
    "                              output + .journal)\n"
    "  --cache DIR                 keep each Grain's results in DIR and answer a Grain whose\n"
    "                              code, arguments and inputs are unchanged from it\n"
    "  --trust-mtime               with --cache: an input file is its path, size and mtime\n"
    "                              (not its bytes)\n"
    "  --cache-max-mb N            with --cache: the store's size limit (least recently used\n"
    "                              entries go first)\n"
    "  --explain-cache             with --cache: each Call's hits and misses by reason\n"
    "  --cache-info                with --cache: the store's entries, bytes and limit; no run\n"
    "  --cache-prune SIZE          with --cache: remove the least recently used entries down\n"
    "                              to SIZE (500M, 10G); no run\n"
    "  --cache-clear               with --cache: remove every entry; no run\n"
    "  --log-level LEVEL           error, warn, info (default) or debug: which log lines\n"
    "                              go to stderr (each with a UTC timestamp and its level)\n"
    "  --log-format FORMAT         text (default) or json (one JSON object per line)\n"
    "  --metrics-file FILE         keep Prometheus metrics in FILE (node-exporter textfile\n"
    "                              style), rewritten atomically as the run goes and at the end\n"
    "  --metrics-port PORT         serve Prometheus metrics at http://127.0.0.1:PORT/metrics\n"
    "                              while the run lasts (0: any free port, logged)\n"
    "  -h, --help                  this text\n"
    "  --version                   the version\n"
    "\n"
    "Exit status: 0 every root ok or dropped, 3 some roots failed, 1 run aborted, 2 usage "
    "error,\n"
    "130 / 143 stopped by SIGINT / SIGTERM (a second signal stops at once; the journal is\n"
    "intact either way: --resume continues).\n";

// The --set entry: every option the table marks settable at run time, with what it accepts,
// wrapped under the description column.
std::string set_flag_help() {
    constexpr std::size_t kWidth = 96;
    const std::string indent(30, ' ');
    std::string out =
        "  --set CALL.OPTION=VALUE     override a Call option (or an argument, above):";
    std::size_t column = out.size();
    for (const vocab::CallOptionSpec& spec : vocab::call_options()) {
        if (!spec.run_time) continue;
        std::string item = std::string(spec.name) + " (" + cli::accepted_values(spec);
        if (!vocab::allowed_at(spec, vocab::OptionSite::Call)) item += "; a reduce only";
        item += "),";
        if (column + 1 + item.size() > kWidth) {
            out += "\n" + indent;
            column = indent.size();
        } else {
            out += " ";
            ++column;
        }
        out += item;
        column += item.size();
    }
    out.back() = '\n';  // the last item's comma
    return out;
}

// An argument's effective value as --help shows it: a string quoted, a secret hidden, the C++
// default's source text when nothing set it.
std::string argument_value(const CallArgument& argument) {
    if (is_secret_argument(argument.name)) return "(hidden)";
    if (!argument.value) return argument.default_text + " (default)";
    if (argument.type != ArgumentType::String) return *argument.value;
    std::string quoted = "\"";
    for (char c : *argument.value) {
        if (c == '"' || c == '\\') quoted += '\\';
        quoted += c == '\n' ? ' ' : c;
    }
    return quoted + "\"";
}

// "Arguments (...)": one row per settable Call argument, with what set it.
std::string arguments_help(const std::vector<CallDefinition>& calls) {
    std::vector<std::vector<std::string>> rows;
    for (const CallDefinition& c : calls) {
        const std::string name = call_names(c).front();
        for (const CallArgument& a : c.arguments) {
            std::string from = a.set_by.empty() ? std::string() : "(" + a.set_by + ")";
            rows.push_back({name + "." + a.name, argument_value(a), from});
        }
    }
    if (rows.empty()) return {};
    return "Arguments (--set CALL.ARG=VALUE, or the environment: ROP_SET_<CALL>_<ARG>):\n" +
           table(rows) + "\n";
}

}  // namespace

std::string pipeline_help(const PipelineDefinition& def, const ParsedArgs& args) {
    std::ostringstream out;
    out << "Usage: " << def.name << " [FLAGS]\n\n";
    out << def.name << ": a rop pipeline";
    if (!def.rop_path.empty()) out << " compiled from " << def.rop_path;
    out << ".\n\n";

    std::vector<std::vector<std::string>> rows;
    for (const SourceDefinition& s : def.sources) {
        auto it = args.inputs.find(s.name);
        rows.push_back(
            {s.name, it == args.inputs.end() ? "(no default)" : it->second, s.description});
    }
    out << "Sources (--input NAME=PATH):\n" << table(rows) << "\n";
    rows.clear();
    if (!def.sinks.empty()) {
        for (const SinkDefinition& s : def.sinks) {
            auto it = args.outputs.find(s.name);
            std::string path = it == args.outputs.end() ? std::string() : it->second;
            rows.push_back({s.name, path.empty() ? "(no default)" : path, s.description});
        }
        out << "Sinks (--output NAME=PATH):\n" << table(rows) << "\n";
        rows.clear();
    }
    std::string several;  // a Call with several outputs, for the note below the table
    for (std::size_t i = 0; i < args.calls.size(); ++i) {
        const CallDefinition& c = args.calls[i];
        const std::vector<std::string> names = call_names(c);
        std::string listed;
        for (const std::string& n : names) listed += (listed.empty() ? "" : ", ") + n;
        if (names.size() > 1 && several.empty()) several = names[0];
        // The options --set left in the plan (a malformed definition: the defaults).
        const CallOptions options =
            i < args.plan.calls.size() ? args.plan.calls[i].options : CallOptions{};
        rows.push_back({listed, to_string(c.kind), c.udf.empty() ? "-" : c.udf,
                        cli::format_options(options, c.kind)});
    }
    out << "Calls (--set CALL.OPTION=VALUE):\n" << table(rows);
    if (!several.empty()) {
        out << "  A Call with several outputs answers to each of their names (--set " << several
            << ".batch=8).\n";
    }
    rows.clear();
    for (const PoolSpec& pool : args.plan.pools) {
        std::string calls;
        for (const CallId c : pool.calls) {
            const std::string& name = args.plan.calls[c].name;
            calls += (calls.empty() ? "" : ", ") + bare_name(name);
        }
        const std::uint32_t actors = pool.options.actors;
        std::string placed = std::to_string(actors) + (actors == 1 ? " actor" : " actors");
        if (pool.options.gpus > 0) {
            placed += ", gpus " + cli::format_option(pool.options, vocab::call_option("gpus"));
        }
        if (pool.options.isolation == Isolation::Process) placed += ", isolation process";
        rows.push_back(
            {bare_name(pool.name), placed, calls.empty() ? "(no Call)" : "serves " + calls});
    }
    if (!rows.empty()) {
        out << "\nShared pools (--set POOL.actors=N: the actors every Call it serves shares):\n"
            << table(rows);
    }
    out << "\n"
        << arguments_help(args.calls) << kFlagsBeforeSet << set_flag_help() << kFlagsAfterSet;
    return out.str();
}

std::string pipeline_version(const PipelineDefinition& def) {
    std::string s = def.name + " " + (def.version.empty() ? "(no version)" : def.version);
    if (!def.rop_path.empty()) s += " (" + def.rop_path + ")";
    return s + "\n";
}

}  // namespace rop::runtime
