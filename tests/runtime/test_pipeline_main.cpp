// pipeline_main's pure parts: flag parsing (every flag, every error with its exact message),
// --set validation, --help/--version text and progress rendering (terminal and plain).
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "test_pipeline_main_demo.h"

using namespace rop::runtime;
using namespace rop::runtime::test;
using Catch::Matchers::ContainsSubstring;

namespace {

ParseOutcome parse(std::vector<std::string> args, const PipelineDefinition& def) {
    Argv a(std::move(args));
    return parse_pipeline_args(a.argc(), a.argv(), def);
}

std::string parse_error(std::vector<std::string> args, const PipelineDefinition& def) {
    ParseOutcome out = parse(std::move(args), def);
    CHECK_FALSE(out.args.has_value());
    return out.error;
}

}  // namespace

TEST_CASE("pipeline_main: defaults when no flag is given", "[runtime][cli]") {
    DemoSinks sinks;
    const PipelineDefinition def = demo_definition(sinks);
    ParseOutcome out = parse({}, def);
    REQUIRE(out.args);
    CHECK(out.error.empty());
    const ParsedArgs& a = *out.args;
    CHECK_FALSE(a.help);
    CHECK_FALSE(a.version);
    CHECK_FALSE(a.resume);
    CHECK(a.inputs == std::map<std::string, std::string>{{"docs", "1,2,3"}});
    CHECK(a.outputs ==
          std::map<std::string, std::string>{{"pages", "pages.txt"}, {"totals", "totals.txt"}});
    CHECK(a.progress == ProgressMode::Auto);
    CHECK(a.trace_path.empty());
    CHECK(a.report_path.empty());
    CHECK(a.max_inflight_roots == 64);
    CHECK(a.max_payload_mb == 1024);
    REQUIRE(a.calls.size() == 3);
    CHECK(a.calls[1].name == "m");
    CHECK(a.plan.calls[1].options.batch == 16);
    CHECK(a.plan.calls[1].options.actors == 2);
}

TEST_CASE("pipeline_main: every flag parses", "[runtime][cli]") {
    DemoSinks sinks;
    const PipelineDefinition def = demo_definition(sinks);
    auto args = [&](std::vector<std::string> v) {
        ParseOutcome out = parse(std::move(v), def);
        INFO(out.error);
        REQUIRE(out.args);
        return *out.args;
    };
    CHECK(args({"--help"}).help);
    CHECK(args({"-h"}).help);
    CHECK(args({"--version"}).version);
    CHECK(args({"--resume"}).resume);
    CHECK_FALSE(args({"--resume"}).retry_failed);
    CHECK(args({"--retry-failed"}).resume);
    CHECK(args({"--retry-failed"}).retry_failed);
    CHECK(args({}).report_ok_roots);
    CHECK(args({"--report-roots", "all"}).report_ok_roots);
    CHECK_FALSE(args({"--report-roots=failed"}).report_ok_roots);
    CHECK(args({"--journal", "a/j"}).journal_path == "a/j");
    CHECK(args({"--journal=b"}).journal_path == "b");
    CHECK(args({"--input", "5,6"}).inputs.at("docs") == "5,6");
    CHECK(args({"--input=5,6"}).inputs.at("docs") == "5,6");
    CHECK(args({"--input", "docs=@list.txt"}).inputs.at("docs") == "@list.txt");
    CHECK(args({"--input=docs=a=b"}).inputs.at("docs") == "a=b");
    // A prefix that is no name is part of the path (one source).
    CHECK(args({"--input", "./x=y.txt"}).inputs.at("docs") == "./x=y.txt");
    CHECK(args({"--input", "1", "--input", "2"}).inputs.at("docs") == "2");  // last wins
    CHECK(args({"--output", "totals=t.txt"}).outputs.at("totals") == "t.txt");
    CHECK(args({"--output=pages=p/"}).outputs.at("pages") == "p/");
    CHECK(args({"--progress"}).progress == ProgressMode::On);
    CHECK(args({"--no-progress"}).progress == ProgressMode::Off);
    CHECK(args({"--progress", "--no-progress"}).progress == ProgressMode::Off);
    CHECK(args({"--no-progress", "--progress"}).progress == ProgressMode::On);
    CHECK(args({"--trace", "t.json"}).trace_path == "t.json");
    CHECK(args({"--report=r.json"}).report_path == "r.json");
    CHECK(args({"--max-inflight-roots", "8"}).max_inflight_roots == 8);
    CHECK(args({"--max-payload-mb=16"}).max_payload_mb == 16);
    CHECK(args({"--commit-group", "1"}).commit_group == 1);
    CHECK(args({}).commit_group == 1024);
    CHECK(args({"--set", "m.batch=48"}).plan.calls[1].options.batch == 48);
    CHECK(args({"--set=split.actors=3"}).plan.calls[0].options.actors == 3);
    CHECK(args({}).stuck_after == std::chrono::seconds(10));
    CHECK(args({"--stuck-after", "2m"}).stuck_after == std::chrono::minutes(2));
    CHECK(args({"--stuck-after=none"}).stuck_after.count() == 0);
    CHECK(args({}).stop_grace == std::chrono::seconds(2));
    CHECK(args({"--stop-grace", "30s"}).stop_grace == std::chrono::seconds(30));
    CHECK(args({"--stop-grace=none"}).stop_grace.count() == 0);
    CHECK(args({}).executor == "threads");
    CHECK(args({"--executor", "inline"}).executor == "inline");
    CHECK(args({}).placement.empty());
    CHECK(args({"--placement", "local"}).placement == "local");
    CHECK(args({"--placement", "mpi"}).placement == "mpi");
    // --executor mpi, the older spelling: the placement, with the threads executor.
    CHECK(args({"--executor", "mpi"}).placement == "mpi");
    CHECK(args({"--executor", "mpi"}).executor == "threads");
}

TEST_CASE("pipeline_main: flag errors have one exact line", "[runtime][cli]") {
    DemoSinks sinks;
    const PipelineDefinition def = demo_definition(sinks);
    const std::vector<std::pair<std::vector<std::string>, std::string>> table = {
        {{"--bogus"}, "unknown flag '--bogus' (see --help)"},
        {{"--progres"}, "unknown flag '--progres'; did you mean '--progress'?"},
        {{"--traec", "t"}, "unknown flag '--traec'; did you mean '--trace'?"},
        {{"--max-inflight=3"},
         "unknown flag '--max-inflight'; did you mean '--max-inflight-roots'?"},
        {{"--Progress"}, "unknown flag '--Progress'; did you mean '--progress'?"},
        {{"--verison"}, "unknown flag '--verison'; did you mean '--version'?"},
        {{"foo"}, "unexpected argument 'foo' (see --help)"},
        {{"-x"}, "unexpected argument '-x' (see --help)"},
        {{"--"}, "unexpected argument '--' (see --help)"},
        {{"--trace"}, "'--trace' needs a value: --trace FILE"},
        {{"--trace", "--progress"}, "'--trace' needs a value: --trace FILE"},
        {{"--trace="}, "'--trace' needs a value: --trace FILE"},
        {{"--report"}, "'--report' needs a value: --report FILE"},
        {{"--input"}, "'--input' needs a value: --input [NAME=]PATH"},
        {{"--set"}, "'--set' needs a value: --set CALL.OPTION=VALUE"},
        {{"--max-payload-mb"}, "'--max-payload-mb' needs a value: --max-payload-mb N"},
        {{"--progress=yes"}, "'--progress' takes no value"},
        {{"--help=1"}, "'--help' takes no value"},
        {{"--resume=x"}, "'--resume' takes no value"},
        {{"--retry-failed=1"}, "'--retry-failed' takes no value"},
        {{"--report-roots", "fail"},
         "--report-roots: expected all or failed, got 'fail'; did you mean 'failed'?"},
        {{"--report-roots"}, "'--report-roots' needs a value: --report-roots WHICH"},
        {{"--input", "dcs=1,2"}, "--input: unknown source 'dcs'; did you mean 'docs'?"},
        {{"--input", "zzzzzz=1"}, "--input: unknown source 'zzzzzz' (sources: docs)"},
        {{"--input", "docs="}, "--input: empty path for source 'docs'"},
        {{"--input="}, "--input: empty path for source 'docs'"},
        {{"--output", "x.txt"}, "--output: expected NAME=PATH (sinks: totals, pages)"},
        {{"--output", "total=a"}, "--output: unknown sink 'total'; did you mean 'totals'?"},
        {{"--output", "pages="}, "--output: empty path for sink 'pages'"},
        {{"--max-inflight-roots", "0"}, "--max-inflight-roots: 0 is out of range 1..1048576"},
        {{"--max-inflight-roots", "1048577"},
         "--max-inflight-roots: 1048577 is out of range 1..1048576"},
        {{"--max-inflight-roots", "ten"}, "--max-inflight-roots: 'ten' is not a whole number"},
        {{"--max-inflight-roots", "8k"}, "--max-inflight-roots: '8k' is not a whole number"},
        {{"--max-payload-mb", "-5"}, "--max-payload-mb: -5 is out of range 1..16777216"},
        {{"--commit-group", "0"}, "--commit-group: 0 is out of range 1..1048576"},
        {{"--max-payload-mb", "99999999999999999999"},
         "--max-payload-mb: '99999999999999999999' is not a whole number"},
        {{"--stuck-after", "30"},
         "--stuck-after: '30' is not a duration (e.g. 500ms, 30s, 2m, 1h, or none)"},
        {{"--stuck-after", "0s"}, "--stuck-after: 0s is out of range 1ms..168h"},
        {{"--stuck-after"}, "'--stuck-after' needs a value: --stuck-after DURATION"},
        {{"--stop-grace", "2"},
         "--stop-grace: '2' is not a duration (e.g. 500ms, 30s, 2m, 1h, or none)"},
        {{"--executor", "thread"},
         "--executor: unknown executor 'thread' (available: threads, inline); did you mean "
         "'threads'?"},
        {{"--placement", "mp"},
         "--placement: unknown placement 'mp' (available: local, mpi); did you mean 'mpi'?"},
    };
    for (const auto& [args, message] : table) {
        INFO(args.front());
        CHECK(parse_error(args, def) == message);
    }
}

TEST_CASE("pipeline_main: --set validation table", "[runtime][cli]") {
    DemoSinks sinks;
    const PipelineDefinition def = demo_definition(sinks);
    const std::vector<std::pair<std::string, std::string>> errors = {
        {"m.batch=0", "--set m.batch: 0 is out of range 1..65536"},
        {"m.batch=65537", "--set m.batch: 65537 is out of range 1..65536"},
        {"m.batch=abc", "--set m.batch: 'abc' is not a whole number"},
        {"m.batch=1.5", "--set m.batch: '1.5' is not a whole number"},
        {"m.batch=", "--set m.batch: '' is not a whole number"},
        {"m.actors=0", "--set m.actors: 0 is out of range 1..4096"},
        {"m.actors=4097", "--set m.actors: 4097 is out of range 1..4096"},
        {"m.retries=101", "--set m.retries: 101 is out of range 0..100"},
        {"m.retries=-1", "--set m.retries: -1 is out of range 0..100"},
        {"m.infra_retries=101", "--set m.infra_retries: 101 is out of range 0..100"},
        {"m.recovery=isolate-tail",
         "--set m.recovery: unknown value 'isolate-tail'; did you mean 'isolate_tail'?"},
        {"m.recovery=never",
         "--set m.recovery: unknown value 'never' (one of abort, retry_batch, retry_tail, "
         "isolate_tail)"},
        {"m.batching=single",
         "--set m.batching: unknown value 'single'; did you mean 'single_parent'?"},
        {"m.batching=sideways",
         "--set m.batching: unknown value 'sideways' (one of any_parent, single_parent)"},
        {"m.batch_size=2", "--set: unknown option 'batch_size'; did you mean 'batch'?"},
        {"m.batchsize=2", "--set: unknown option 'batchsize'; did you mean 'batch'?"},
        {"m.retry=2", "--set: unknown option 'retry'; did you mean 'retries'?"},
        {"m.batching=single_parnet",
         "--set m.batching: unknown value 'single_parnet'; did you mean 'single_parent'?"},
        {"m.timeout=30",
         "--set m.timeout: '30' is not a duration (e.g. 500ms, 30s, 2m, 1h, or none)"},
        {"m.timeout=1.5s",
         "--set m.timeout: '1.5s' is not a duration (e.g. 500ms, 30s, 2m, 1h, or none)"},
        {"m.timeout=s",
         "--set m.timeout: 's' is not a duration (e.g. 500ms, 30s, 2m, 1h, or none)"},
        {"m.timeout=0s", "--set m.timeout: 0s is out of range 1ms..168h"},
        {"m.timeout=169h", "--set m.timeout: 169h is out of range 1ms..168h"},
        {"m.timeout=99999999999999999999ms",
         "--set m.timeout: 99999999999999999999ms is out of range 1ms..168h"},
        {"splt.batch=2", "--set: unknown Call 'splt'; did you mean 'split'?"},
        {"zzz.batch=1", "--set: unknown Call 'zzz' (Calls: split, m, sum)"},
        {"m.bach=2", "--set: unknown option 'bach'; did you mean 'batch'?"},
        {"m.colour=2",
         "--set: unknown option 'colour' (options: batch, actors, retries, infra_retries, "
         "recovery, timeout, batching, on_failure, memory_mb, cache)"},
        {"m.memory_mb=512",
         "--set m.memory_mb: only a Call with isolation process runs in a worker process whose "
         "memory can be limited; 'm' runs in threads"},
        {"m.gpus=1", "--set: option 'gpus' is fixed when the pipeline is built"},
        {"m.isolation=process", "--set: option 'isolation' is fixed when the pipeline is built"},
        {"mbatch=2", "--set: expected CALL.OPTION=VALUE, got 'mbatch=2'"},
        {"m.batch", "--set: expected CALL.OPTION=VALUE, got 'm.batch'"},
        {".batch=2", "--set: expected CALL.OPTION=VALUE, got '.batch=2'"},
        {"m.=2", "--set: expected CALL.OPTION=VALUE, got 'm.=2'"},
    };
    for (const auto& [set, message] : errors) {
        INFO(set);
        CHECK(parse_error({"--set", set}, def) == message);
    }

    struct Ok {
        std::string set;
        std::function<bool(const CallOptions&)> check;
    };
    const std::vector<Ok> oks = {
        {"m.batch=1", [](const CallOptions& o) { return o.batch == 1; }},
        {"m.batch=65536", [](const CallOptions& o) { return o.batch == 65536; }},
        {"m.actors=4096", [](const CallOptions& o) { return o.actors == 4096; }},
        {"m.retries=0", [](const CallOptions& o) { return o.retries == 0; }},
        {"m.retries=100", [](const CallOptions& o) { return o.retries == 100; }},
        {"m.infra_retries=0", [](const CallOptions& o) { return o.infra_retries == 0; }},
        {"m.recovery=isolate_tail",
         [](const CallOptions& o) { return o.recovery == Recovery::IsolateTail; }},
        {"m.recovery=retry_batch",
         [](const CallOptions& o) { return o.recovery == Recovery::RetryBatch; }},
        {"m.recovery=retry_tail",
         [](const CallOptions& o) { return o.recovery == Recovery::RetryTail; }},
        {"m.recovery=abort", [](const CallOptions& o) { return o.recovery == Recovery::Abort; }},
        {"m.batching=single_parent",
         [](const CallOptions& o) { return o.batching == Batching::SingleParent; }},
        {"m.timeout=500ms", [](const CallOptions& o) { return o.timeout.count() == 500; }},
        {"m.timeout=30s", [](const CallOptions& o) { return o.timeout.count() == 30'000; }},
        {"m.timeout=2m", [](const CallOptions& o) { return o.timeout.count() == 120'000; }},
        {"m.timeout=168h", [](const CallOptions& o) { return o.timeout.count() == 604'800'000; }},
        {"m.timeout=none", [](const CallOptions& o) { return o.timeout.count() == 0; }},
    };
    for (const Ok& ok : oks) {
        INFO(ok.set);
        ParseOutcome out = parse({"--set", ok.set}, def);
        INFO(out.error);
        REQUIRE(out.args);
        CHECK(ok.check(out.args->plan.calls[1].options));
        // Other Calls keep their compiled options.
        CHECK(out.args->plan.calls[0].options.batch == 8);
        CHECK(out.args->plan.calls[2].options.batch == 4);
    }
    // Several --set accumulate; a later one for the same option wins.
    ParseOutcome out =
        parse({"--set", "m.batch=2", "--set", "m.actors=3", "--set", "m.batch=5"}, def);
    REQUIRE(out.args);
    CHECK(out.args->plan.calls[1].options.batch == 5);
    CHECK(out.args->plan.calls[1].options.actors == 3);
}

TEST_CASE("pipeline_main: a source without default input needs --input", "[runtime][cli]") {
    DemoSinks sinks;
    const PipelineDefinition def = demo_definition(sinks, "");
    CHECK(parse_error({}, def) == "no input for source 'docs'; use --input docs=PATH");
    CHECK(parse({"--help"}, def).args);
    CHECK(parse({"--version"}, def).args);
    ParseOutcome out = parse({"--input", "4"}, def);
    REQUIRE(out.args);
    CHECK(out.args->inputs.at("docs") == "4");
}

TEST_CASE("pipeline_main: Calls come from the plan when the definition has none",
          "[runtime][cli]") {
    DemoSinks sinks;
    PipelineDefinition def = demo_definition(sinks);
    def.calls.clear();
    const std::vector<CallDefinition> calls = call_definitions(def);
    REQUIRE(calls.size() == 3);
    CHECK(calls[0].name == "split");
    CHECK(calls[0].kind == CallKind::Expand);
    CHECK(calls[2].kind == CallKind::Reduce);
    CHECK(calls[1].udf.empty());
    // Their options are the plan's, which --set edits in place.
    ParseOutcome out = parse({"--set", "m.batch=7"}, def);
    REQUIRE(out.args);
    CHECK(out.args->plan.calls[1].options.batch == 7);
    CHECK(def.plan.calls[1].options.batch == 16);  // the definition's plan is left as compiled
}

TEST_CASE("pipeline_main: --help lists sources, sinks, Calls and flags", "[runtime][cli]") {
    DemoSinks sinks;
    const PipelineDefinition def = demo_definition(sinks);
    ParseOutcome out = parse(
        {"--set", "m.batch=4", "--set", "m.timeout=30s", "--output", "totals=/tmp/t.txt", "--help"},
        def);
    REQUIRE(out.args);
    const std::string help = pipeline_help(def, *out.args);
    CHECK_THAT(help, ContainsSubstring("Usage: demo [FLAGS]\n"));
    CHECK_THAT(help, ContainsSubstring("demo: a rop pipeline compiled from demo.rop.\n"));
    CHECK_THAT(help,
               ContainsSubstring("Sources (--input NAME=PATH):\n  docs  1,2,3  Doc: numbers\n"));
    CHECK_THAT(help, ContainsSubstring("Sinks (--output NAME=PATH):\n"
                                       "  totals  /tmp/t.txt  Doc.total\n"
                                       "  pages   pages.txt   Page.doubled\n"));
    CHECK_THAT(help, ContainsSubstring(
                         "Calls (--set CALL.OPTION=VALUE):\n"
                         "  split  expand  split_pages  batch 8 actors 1 retries 0 "
                         "infra_retries 3 recovery isolate_tail timeout none batching any_parent "
                         "cache auto\n"
                         "  m      map     double_page  batch 4 actors 2 retries 0 "
                         "infra_retries 3 recovery isolate_tail timeout 30s batching any_parent "
                         "cache auto\n"
                         "  sum    reduce  sum_pages    batch 4 actors 1 retries 0 "
                         "infra_retries 3 recovery isolate_tail timeout none batching any_parent "
                         "on_failure suppress cache auto\n"));
    for (const char* flag :
         {"--input [NAME=]PATH",
          "--output [NAME=]PATH",
          "--set CALL.OPTION=VALUE",
          "--progress, --no-progress",
          "--trace FILE",
          "--report FILE",
          "--max-inflight-roots N",
          "--max-payload-mb N",
          "--stuck-after DURATION",
          "--stop-grace DURATION",
          "--executor NAME",
          "--placement WHERE",
          "--resume",
          "--retry-failed",
          "--report-roots WHICH",
          "--journal FILE",
          "-h, --help",
          "--version",
          "batch (1..65536)",
          "actors (1..4096)",
          "on_failure (suppress|skip; a reduce only)",
          "Exit status: 0 every root ok or dropped, 3 some roots failed, "
          "1 run aborted, 2 usage error,\n130 / 143 stopped by SIGINT / SIGTERM"}) {
        CHECK_THAT(help, ContainsSubstring(flag));
    }
    CHECK(pipeline_version(def) == "demo 0.1.0 (demo.rop)\n");
    CHECK_THAT(help, !ContainsSubstring("several outputs"));  // no such Call in the demo
}

TEST_CASE("pipeline_main: a multi-output Call answers to each output's name", "[runtime][cli]") {
    // A map with outputs a and b (named "a,b", as ropc names it) next to a Call named "ra".
    DemoSinks sinks;
    PipelineDefinition def = demo_definition(sinks);
    def.calls[1].name = "a,b";
    def.calls[2].name = "ra";
    auto set = [&](const std::string& text) {
        ParseOutcome out = parse({"--set", text}, def);
        INFO(text << ": " << out.error);
        REQUIRE(out.args);
        return *out.args;
    };
    CHECK(set("a.batch=8").plan.calls[1].options.batch == 8);
    CHECK(set("b.batch=9").plan.calls[1].options.batch == 9);
    CHECK(set("a,b.batch=5").plan.calls[1].options.batch == 5);  // the whole name still works
    CHECK(set("ra.batch=3").plan.calls[2].options.batch == 3);
    CHECK(set("a.batch=8").plan.calls[2].options.batch == 4);  // not ra's
    CHECK(set("b.timeout=30s").plan.calls[1].options.timeout.count() == 30'000);
    CHECK(parse_error({"--set", "c.batch=1"}, def) ==
          "--set: unknown Call 'c' (Calls: split, a, b, ra)");
    CHECK(parse_error({"--set", "a.bach=1"}, def) ==
          "--set: unknown option 'bach'; did you mean 'batch'?");
    CHECK(call_names(def.calls[1]) == std::vector<std::string>{"a", "b"});
    CHECK(call_names(def.calls[2]) == std::vector<std::string>{"ra"});

    ParseOutcome out = parse({"--help"}, def);
    REQUIRE(out.args);
    const std::string help = pipeline_help(def, *out.args);
    CHECK_THAT(help, ContainsSubstring("Calls (--set CALL.OPTION=VALUE):\n"
                                       "  split  expand  split_pages  batch 8"));
    CHECK_THAT(help, ContainsSubstring("\n  a, b   map     double_page  batch 16"));
    CHECK_THAT(help, ContainsSubstring("\n  ra     reduce  sum_pages    batch 4"));
    CHECK_THAT(help, ContainsSubstring("  A Call with several outputs answers to each of their "
                                       "names (--set a.batch=8).\n"));
}

// ---- progress rendering ----

namespace {

Progress synthetic_progress() {
    Progress p;
    p.calls.resize(3);
    p.calls[0].name = "split";
    p.calls[0].grains = 6;
    p.calls[1].name = "m";
    p.calls[1].grains = 28;
    p.calls[1].suppressed = 2;
    p.calls[2].name = "sum";
    p.calls[2].grains = 4;
    p.roots_total = 10;
    p.roots_admitted = 6;
    p.roots_done = 4;
    p.elapsed_s = 2.0;
    return p;
}

const std::vector<ProgressCall> kCalls = {{"split", true}, {"m", false}, {"sum", true}};

}  // namespace

TEST_CASE("pipeline_main: progress lines from a synthetic Progress", "[runtime][cli]") {
    // m: 30 Grains done over 4 done + 2 half-done roots -> ~60 for 10 roots.
    CHECK(render_progress(synthetic_progress(), kCalls) ==
          std::vector<std::string>{
              "roots 4/10 done, 2 in flight, 2.0s, ETA 3s", "  split    6/10  3.0/s  ETA 2s",
              "  m      30/~60   15/s  ETA 2s", "  sum      4/10  2.0/s  ETA 3s"});

    Progress finished = synthetic_progress();
    finished.roots_admitted = finished.roots_done = 10;
    finished.calls[0].grains = 10;
    finished.calls[1].grains = 61;
    finished.calls[2].grains = 9;  // one root's reduce never ran (its input was dropped)
    finished.elapsed_s = 5.0;
    CHECK(render_progress(finished, kCalls) ==
          std::vector<std::string>{"roots 10/10 done, 0 in flight, 5.0s, done",
                                   "  split  10/10  2.0/s  done", "  m      63/63   13/s  done",
                                   "  sum      9/9  1.8/s  done"});

    Progress unknown = synthetic_progress();
    unknown.roots_total.reset();
    CHECK(render_progress(unknown, kCalls) ==
          std::vector<std::string>{"roots 4/? done, 2 in flight, 2.0s, ETA ?",
                                   "  split   6/?  3.0/s  ETA ?", "  m      30/?   15/s  ETA ?",
                                   "  sum     4/?  2.0/s  ETA ?"});

    // An extrapolated total: 60 Grains over 5 of 10 roots; it never claims "done" before the
    // run has finished, even when the estimate has caught up with the count.
    Progress half = synthetic_progress();
    half.roots_admitted = half.roots_done = 5;
    half.calls[1].grains = 58;
    CHECK(render_progress(half, kCalls)[2] == "  m      60/~120   30/s  ETA 2s");
    Progress caught_up = synthetic_progress();
    caught_up.roots_total = 4;
    caught_up.roots_admitted = 4;
    caught_up.roots_done = 3;  // 3 Grains over 3.5 roots -> 3.4 for 4 roots, rounds to 3
    caught_up.calls[1].grains = 3;
    caught_up.calls[1].suppressed = 0;
    CHECK(render_progress(caught_up, kCalls)[2] == "  m      3/~3  1.5/s  ETA ?");

    Progress start = synthetic_progress();
    start.elapsed_s = 0;
    start.roots_admitted = start.roots_done = 0;
    for (CallCounters& c : start.calls) c.grains = c.suppressed = 0;
    CHECK(render_progress(start, kCalls) ==
          std::vector<std::string>{"roots 0/10 done, 0 in flight, 0.0s, ETA ?",
                                   "  split  0/10  0.0/s  ETA ?", "  m       0/?  0.0/s  ETA ?",
                                   "  sum    0/10  0.0/s  ETA ?"});
}

TEST_CASE("pipeline_main: progress rates and ETAs in large units", "[runtime][cli]") {
    Progress p;
    p.calls.resize(2);
    p.calls[0].grains = 12'345'000;  // over 1000 s: 12.3k/s
    p.calls[1].grains = 2'500'000'000;
    p.roots_total = 100'000;
    p.roots_admitted = 1000;
    p.roots_done = 1000;
    p.elapsed_s = 1000;
    const std::vector<ProgressCall> calls = {{"a", true}, {"b", false}};
    const std::vector<std::string> lines = render_progress(p, calls);
    REQUIRE(lines.size() == 3);
    // 99000 roots left at 1/s.
    CHECK(lines[0] == "roots 1000/100000 done, 0 in flight, 1000.0s, ETA 27h30m");
    CHECK_THAT(lines[1], ContainsSubstring("12.3k/s"));
    CHECK_THAT(lines[2], ContainsSubstring("2.5M/s"));
    p.roots_done = p.roots_admitted = 80'000;
    p.elapsed_s = 500;  // 160 roots/s, 20000 left: 125 s
    CHECK_THAT(render_progress(p, calls)[0], ContainsSubstring("ETA 2m05s"));
}

TEST_CASE("pipeline_main: terminal redraw and plain progress lines", "[runtime][cli]") {
    const std::vector<std::string> two = {"a", "b"};
    CHECK(redraw_progress(two, 0) == "\x1b[2Ka\n\x1b[2Kb\n");
    CHECK(redraw_progress(two, 2) == "\x1b[2F\x1b[2Ka\n\x1b[2Kb\n");
    const std::vector<std::string> one = {"a"};
    CHECK(redraw_progress(one, 2) == "\x1b[2F\x1b[2Ka\n\x1b[2K\n");

    const Progress p = synthetic_progress();
    const std::vector<std::string> lines = render_progress(p, kCalls);
    CHECK(plain_progress(p, lines) ==
          "[2.0s] roots 4/10 done, 2 in flight, 2.0s, ETA 3s\n"
          "[2.0s] split    6/10  3.0/s  ETA 2s\n"
          "[2.0s] m      30/~60   15/s  ETA 2s\n"
          "[2.0s] sum      4/10  2.0/s  ETA 3s\n");
}
