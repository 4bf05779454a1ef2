// The result store in a run (RunOptions::cache_dir; docs/runtime.md "Re-runs"): a second run of
// the same plan on the same input calls no UDF and publishes the same items; what changes runs
// again and nothing else does; failures are never stored; scheduling options are not in the key;
// a damaged entry is recomputed and reported. Every Call shape carries it: map, filter, expand,
// reduce with a UDF, a batch UDF under a recovery policy. Each case runs twice: with an observer
// of every item (Grain by Grain), and with root sinks, where the store answers a root whose
// source item and Calls are unchanged whole (ResultCache::RootAnswer) without a Grain.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "runtime_test_util.h"

namespace rop::runtime::test {
namespace {

namespace fs = std::filesystem;

struct Calls {
    std::atomic<int> split{0}, m{0}, keep{0}, sum{0};
    int total() const { return split + m + keep + sum; }
};

struct Shape {
    CallOptions options = opts(4, 2);
    std::string m_digest = "m-v1";
    long m_add = 0;              // what m adds to a page: a change of m's code
    bool m_same_output = false;  // m's code changes but its outputs do not (early cutoff)
    long fail_page = -1;         // m fails this page with a RecordFailure
    long fail_root = -1;         // split emits one page of this root, then fails it
    bool m_batch_throws = false;
    vocab::Cache m_cache = vocab::Cache::Auto;
    bool m_volatile = false;
    std::string m_arguments;
    std::string (*m_identity)() = nullptr;
    long kill_at_sum = -1;  // sum SIGKILLs its own process when a Doc's total is this
    std::string
        kill_after_journal;    // ... once this journal lists two roots (its writer is a thread)
    bool skip_failed = false;  // sum leaves out failed pages (on_failure skip): a partial root
    // The items go to two root sinks (kept pages and sums) instead of an observer: roots can
    // be answered whole.
    bool root_sinks = false;
};

// Waits (up to 10 s) until the journal at `path` has `roots` root lines.
void await_journaled(const std::string& path, int roots) {
    for (int tries = 0; tries < 1000; ++tries) {
        std::ifstream in(path);
        int lines = 0;
        for (std::string line; std::getline(in, line);) {
            lines += line.find("\"root\":") != std::string::npos &&
                     line.find("\"status\":") != std::string::npos;
        }
        if (lines >= roots) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

std::string tesseract_5_3() { return "tesseract 5.3.0 eng.traineddata:4113088"; }
std::string tesseract_5_4() { return "tesseract 5.4.1 eng.traineddata:4113088"; }

// Doc x -> x pages 100x+i (split) -> m: page+m_add -> keep: even ones -> sum: per Doc.
Plan plan_of(const Shape& s, Calls& calls, PortId& sum_port, PortId& kept_port) {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const DomainId page = b.add_domain("Page", doc);
    const PortId src = b.source("src");
    const PortId pages = b.add_port("pages", page);
    const PortId mapped = b.add_port("mapped", page);
    const PortId kept = b.add_port("kept", page);
    kept_port = kept;
    sum_port = b.add_port("sum", doc);
    CallSpec split{"split",
                   CallKind::Expand,
                   doc,
                   {{src}},
                   {pages},
                   s.options,
                   actor([&calls, s](Batch& batch) {
                       for (std::size_t g = 0; g < batch.size(); ++g) {
                           ++calls.split;
                           const long x = batch.input(g, 0).get<long>();
                           for (long i = 0; i < x; ++i) {
                               batch.emit_child(g, Value::of<long>(100 * x + i));
                               if (x == s.fail_root) {
                                   batch.fail_record(g, "truncated");
                                   break;
                               }
                           }
                       }
                   })};
    split.code.digest = "split-v1";
    b.add_call(split);
    CallSpec m{"m@test.rop:3",
               CallKind::Map,
               page,
               {{pages}},
               {mapped},
               s.options,
               actor([&calls, s](Batch& batch) {
                   if (s.m_batch_throws) {
                       for (std::size_t g = 0; g < batch.size(); ++g) {
                           if (batch.input(g, 0).get<long>() == s.fail_page)
                               throw std::runtime_error("batch UDF failed");
                       }
                   }
                   for (std::size_t g = 0; g < batch.size(); ++g) {
                       ++calls.m;
                       const long v = batch.input(g, 0).get<long>();
                       if (!s.m_batch_throws && v == s.fail_page) {
                           batch.fail_record(g, "bad page");
                           continue;
                       }
                       batch.set_output(g, 0, Value::of<long>(v + (s.m_same_output ? 0 : s.m_add)));
                   }
               })};
    m.options.cache = s.m_cache;
    m.code.digest = s.m_digest;
    m.code.functions = {{"demo::m", "udfs/demo.hpp:7", s.m_digest}};
    m.code.volatile_udf = s.m_volatile;
    m.arguments = s.m_arguments;
    m.identity = s.m_identity;
    b.add_call(m);
    CallSpec keep{"keep",
                  CallKind::Filter,
                  page,
                  {{mapped}},
                  {kept},
                  s.options,
                  actor([&calls](Batch& batch) {
                      for (std::size_t g = 0; g < batch.size(); ++g) {
                          ++calls.keep;
                          batch.set_keep(g, batch.input(g, 0).get<long>() % 2 == 0);
                      }
                  })};
    b.add_call(keep);
    CallSpec sum{"sum",
                 CallKind::Reduce,
                 doc,
                 {{kept}},
                 {sum_port},
                 s.options,
                 actor([&calls, s](Batch& batch) {
                     for (std::size_t g = 0; g < batch.size(); ++g) {
                         ++calls.sum;
                         long total = 0;
                         for (const Value& v : batch.input(g, 0).get<ReduceGroup>().values)
                             total += v.get<long>();
                         if (total == s.kill_at_sum) {
                             if (!s.kill_after_journal.empty())
                                 await_journaled(s.kill_after_journal, 2);
                             ::raise(SIGKILL);  // an OOM kill, say
                         }
                         batch.set_output(g, 0, Value::of<long>(total));
                     }
                 })};
    if (s.skip_failed) sum.options.on_failure = OnFailure::Skip;
    b.add_call(sum);
    return b.build();
}

struct Result {
    RunReport report;
    // Per port: each item (observer), or each root's items in order as "root: a b c" (sinks).
    std::map<PortId, std::multiset<std::string>> items;
    PortId sum_port = 0;
    PortId kept_port = 0;
    Calls calls;
    const CallCounters& call(const std::string& name) const {
        for (const CallCounters& c : report.calls) {
            if (c.name == name || c.name.rfind(name + "@", 0) == 0) return c;
        }
        FAIL("no Call " << name);
        return report.calls.front();
    }
};

std::unique_ptr<Result> run_with(const fs::path& store, const Shape& shape,
                                 std::vector<long> roots = {3, 4, 5},
                                 const std::string& executor = "threads",
                                 const std::function<void(RunOptions&)>& more = {}) {
    auto result = std::make_unique<Result>();
    const Plan plan = plan_of(shape, result->calls, result->sum_port, result->kept_port);
    VecSource source(std::move(roots));
    Recorder recorder;
    RunOptions options;
    options.executor = executor;
    options.cache_dir = store.string();
    options.pipeline_name = "cache_test";
    if (shape.root_sinks) {
        for (const PortId port : {result->kept_port, result->sum_port}) {
            RootSinkBinding sink;
            sink.port = port;
            sink.write_root = [&items = result->items[port]](const RootKey& key,
                                                             std::span<const Value> values) {
                std::string line = key.name + ":";
                for (const Value& v : values) line += " " + std::to_string(v.get<long>());
                items.insert(line);
            };
            options.root_sinks.push_back(sink);
        }
    } else {
        options.observer = &recorder;
    }
    if (more) more(options);
    result->report = run(plan, source, options);
    REQUIRE_FALSE(recorder.duplicate);
    if (!shape.root_sinks) result->items = recorder.items;
    return result;
}

struct TempStore {
    fs::path dir = fs::temp_directory_path() / ("rop_cache_test_" + std::to_string(::getpid()) +
                                                "_" + std::to_string(std::rand()));
    ~TempStore() { fs::remove_all(dir); }
};

}  // namespace

// Both ways a run's items leave it: an observer of every item, and root sinks.
constexpr std::array<bool, 2> kModes{false, true};
const char* mode_name(bool root_sinks) {
    return root_sinks ? "root sinks: roots answered whole" : "an observer: Grain by Grain";
}
Shape in_mode(bool root_sinks, Shape shape = {}) {
    shape.root_sinks = root_sinks;
    return shape;
}

TEST_CASE("an unchanged re-run calls no UDF and publishes the same items", "[cache]") {
    for (const bool whole : kModes) {
        DYNAMIC_SECTION(mode_name(whole)) {
            TempStore store;
            const auto cold = run_with(store.dir, in_mode(whole));
            CHECK(cold->calls.total() == 3 + 12 + 12 + 3);
            CHECK(cold->call("m").cache_misses == 12);
            CHECK(cold->call("m").cache_miss_reasons.count(
                "not in the store (first run of this Call)"));
            CHECK(cold->report.cache_roots_answered == 0);
            const auto warm = run_with(store.dir, in_mode(whole));
            CHECK(warm->calls.total() == 0);
            CHECK(warm->items == cold->items);
            CHECK(warm->call("split").cache_hits == 3);
            CHECK(warm->call("m").cache_hits == 12);
            CHECK(warm->call("keep").cache_hits == 12);
            CHECK(warm->call("sum").cache_hits == 3);
            CHECK(warm->call("m").cache_misses == 0);
            CHECK(warm->report.failed_roots() == 0);
            CHECK(warm->report.total_roots() == 3);
            // Whole: no Grain was made (the Calls' counts of Grains that ran stay 0 as well).
            CHECK(warm->report.cache_roots_answered == (whole ? 3u : 0u));
            CHECK(warm->call("m").grains == (whole ? 0u : 12u));
            if (whole) {
                CHECK(cold->items.at(cold->kept_port) ==
                      std::multiset<std::string>{"root0: 300 302", "root1: 400 402",
                                                 "root2: 500 502 504"});
            }
        }
    }
}

TEST_CASE("scheduling options and the executor are not in the key", "[cache]") {
    for (const bool whole : kModes) {
        DYNAMIC_SECTION(mode_name(whole)) {
            TempStore store;
            const auto cold = run_with(store.dir, in_mode(whole));
            Shape other = in_mode(whole);
            other.options = opts(1, 3);
            other.options.recovery = vocab::Recovery::RetryBatch;
            other.options.retries = 2;
            const auto warm = run_with(store.dir, other, {3, 4, 5}, "inline");
            CHECK(warm->calls.total() == 0);
            CHECK(warm->items == cold->items);
            CHECK(warm->report.cache_roots_answered == (whole ? 3u : 0u));
        }
    }
}

TEST_CASE("what changed runs again and only that", "[cache]") {
    // Each row: an edit, and how many Grains of each Call run again on the second run, and
    // with root sinks how many roots the store answers whole (those whose source item and
    // Calls are as before).
    struct Row {
        const char* edit;
        Shape shape;
        std::vector<long> roots;
        int split, m, keep, sum;
        const char* m_reason;  // the reason m's misses carry ("" when m has none)
        std::uint64_t whole;
    };
    Shape code;
    code.m_digest = "m-v2";
    code.m_add = 2;  // odd pages stay odd: keep's verdicts are the same, its inputs are not
    Shape cutoff;
    cutoff.m_digest = "m-v2";
    cutoff.m_add = 2;
    cutoff.m_same_output = true;
    Shape arguments;
    arguments.m_arguments = "dpi=200";
    Shape upgraded;
    upgraded.m_identity = tesseract_5_4;
    const std::vector<Row> rows = {
        {"nothing", {}, {3, 4, 5}, 0, 0, 0, 0, "", 3},
        {"one root changed", {}, {3, 6, 5}, 1, 6, 6, 1, "new or changed input", 2},
        {"one root added", {}, {3, 4, 5, 2}, 1, 2, 2, 1, "new or changed input", 3},
        {"one root removed", {}, {3, 5}, 0, 0, 0, 0, "", 2},
        {"m's code changed",
         code,
         {3, 4, 5},
         0,
         12,
         12,
         3,
         "code changed in demo::m at udfs/demo.hpp:7",
         0},
        {"m's code changed, its outputs did not",
         cutoff,
         {3, 4, 5},
         0,
         12,
         0,
         0,
         "code changed in demo::m at udfs/demo.hpp:7",
         0},
        {"m's arguments changed",
         arguments,
         {3, 4, 5},
         0,
         12,
         0,
         0,
         "arguments changed ( -> dpi=200)",
         0},
        {"m's operator version changed",
         upgraded,
         {3, 4, 5},
         0,
         12,
         0,
         0,
         "operator version changed (tesseract 5.3.0 eng.traineddata:4113088 -> tesseract 5.4.1",
         0},
    };
    for (const bool whole : kModes) {
        for (const Row& row : rows) {
            DYNAMIC_SECTION(mode_name(whole) << ": " << row.edit) {
                TempStore store;
                Shape before = in_mode(whole);
                before.m_identity = row.shape.m_identity ? tesseract_5_3 : nullptr;
                run_with(store.dir, before);
                const Shape after = in_mode(whole, row.shape);
                const auto again = run_with(store.dir, after, row.roots);
                CHECK(again->calls.split == row.split);
                CHECK(again->calls.m == row.m);
                CHECK(again->calls.keep == row.keep);
                CHECK(again->calls.sum == row.sum);
                CHECK(again->report.cache_roots_answered == (whole ? row.whole : 0));
                const CallCounters& m = again->call("m");
                if (std::string(row.m_reason).empty()) {
                    CHECK(m.cache_misses == 0);
                } else {
                    REQUIRE(m.cache_miss_reasons.size() == 1);
                    CHECK(m.cache_miss_reasons.begin()->first.rfind(row.m_reason, 0) == 0);
                }
                // And what the second run published is what a clean run publishes.
                TempStore clean;
                const auto fresh = run_with(clean.dir, after, row.roots);
                CHECK(again->items == fresh->items);
            }
        }
    }
}

TEST_CASE("a failed Grain is not stored: the next run tries it again", "[cache]") {
    // A root that failed, or that a skip-reduce finished without a failed page, is not stored
    // whole either: the next run makes its Grains, and the page that failed runs.
    struct Row {
        const char* name;
        bool batch_udf;
        bool skip_failed;
    };
    const std::vector<Row> rows = {{"an element that fails", false, false},
                                   {"a batch UDF that throws", true, false},
                                   {"an element that fails under a skip-reduce", false, true}};
    for (const bool whole : kModes) {
        for (const Row& row : rows) {
            DYNAMIC_SECTION(mode_name(whole) << ": " << row.name) {
                TempStore store;
                Shape failing = in_mode(whole);
                failing.fail_page = 401;  // root 4's second page
                failing.m_batch_throws = row.batch_udf;
                failing.skip_failed = row.skip_failed;
                failing.options.recovery = vocab::Recovery::IsolateTail;
                const auto first = run_with(store.dir, failing);
                CHECK(first->report.failed_roots() == (row.skip_failed ? 0u : 1u));
                Shape healthy = in_mode(whole);
                healthy.skip_failed = row.skip_failed;
                const auto second = run_with(store.dir, healthy);
                CHECK(second->report.failed_roots() == 0);
                CHECK(second->calls.m == 1);  // the page that failed, alone
                CHECK(second->calls.sum == 1);
                CHECK(second->report.cache_roots_answered == (whole ? 2u : 0u));
                TempStore clean;
                CHECK(second->items == run_with(clean.dir, healthy)->items);
            }
        }
    }
}

TEST_CASE("an expand that failed after emitting children is not stored", "[cache]") {
    for (const bool whole : kModes) {
        DYNAMIC_SECTION(mode_name(whole)) {
            TempStore store;
            Shape failing = in_mode(whole);
            failing.fail_root = 4;
            const auto first = run_with(store.dir, failing);
            CHECK(first->report.failed_roots() == 1);
            const auto second = run_with(store.dir, in_mode(whole));
            CHECK(second->report.failed_roots() == 0);
            CHECK(second->calls.split == 1);
            CHECK(second->call("split").cache_hits == 2);
            TempStore clean;
            CHECK(second->items == run_with(clean.dir, in_mode(whole))->items);
        }
    }
}

TEST_CASE("cache off and a volatile UDF unless cache on run again", "[cache]") {
    struct Row {
        vocab::Cache cache;
        bool is_volatile;
        int m_second_run;
        const char* reason;
    };
    const std::vector<Row> rows = {
        {vocab::Cache::Off, false, 12, "cache off"},
        {vocab::Cache::Auto, true, 12, "volatile UDF (W0500; `cache on` to store it)"},
        {vocab::Cache::On, true, 0, ""},
        {vocab::Cache::Auto, false, 0, ""},
    };
    for (const bool whole : kModes) {
        for (const Row& row : rows) {
            DYNAMIC_SECTION(mode_name(whole) << ": " << vocab::word(row.cache)
                                             << (row.is_volatile ? " volatile" : "")) {
                TempStore store;
                Shape s = in_mode(whole);
                s.m_cache = row.cache;
                s.m_volatile = row.is_volatile;
                run_with(store.dir, s);
                const auto again = run_with(store.dir, s);
                CHECK(again->calls.m == row.m_second_run);
                CHECK(again->calls.keep == 0);  // m's outputs were the same: keep hits
                if (row.m_second_run) {
                    CHECK(again->call("m").cache_miss_reasons.at(row.reason) == 12);
                }
                // A Call that runs again by choice runs in every root: none is answered whole.
                CHECK(again->report.cache_roots_answered ==
                      (whole && row.m_second_run == 0 ? 3u : 0u));
            }
        }
    }
}

TEST_CASE("a damaged entry is recomputed and reported, never used", "[cache]") {
    for (const bool whole : kModes) {
        DYNAMIC_SECTION(mode_name(whole)) {
            TempStore store;
            const auto cold = run_with(store.dir, in_mode(whole));
            // Flip a byte of every record's payload hash (header bytes 40-55), in entry files and
            // in packs alike: none matches its payload any more.
            std::size_t damaged = 0;
            for (const auto& f : fs::recursive_directory_iterator(store.dir)) {
                const bool packed = f.path().extension() == ".pack";
                if (!f.is_regular_file() ||
                    !(packed || f.path().parent_path().parent_path().filename() == "entries")) {
                    continue;
                }
                std::fstream io(f.path(), std::ios::in | std::ios::out | std::ios::binary);
                const auto size = static_cast<std::size_t>(fs::file_size(f.path()));
                for (std::size_t at = 0; at + 56 <= size;) {
                    char header[56];
                    io.seekg(static_cast<std::streamoff>(at));
                    io.read(header, sizeof header);
                    std::uint64_t length = 0;
                    for (int i = 0; i < 8; ++i) {
                        length |= std::uint64_t{static_cast<unsigned char>(header[16 + i])}
                                  << (8 * i);
                    }
                    io.seekp(static_cast<std::streamoff>(at + 40));
                    io.put(static_cast<char>(header[40] ^ 0x5a));
                    ++damaged;
                    at += 56 + length;
                }
            }
            // Every Grain's entry, and with root sinks each root's whole answer.
            REQUIRE(damaged == 3 + 12 + 12 + 3 + (whole ? 3 : 0));
            const auto again = run_with(store.dir, in_mode(whole));
            CHECK(again->calls.total() == cold->calls.total());
            CHECK(again->items == cold->items);
            CHECK(again->report.cache_notes.size() == damaged);
            CHECK(again->report.cache_roots_answered == 0);
            const auto third = run_with(store.dir, in_mode(whole));
            CHECK(third->calls.total() == 0);
            CHECK(third->report.cache_roots_answered == (whole ? 3u : 0u));
        }
    }
}

TEST_CASE("a run killed mid-way and resumed on its store: what finished comes from the store",
          "[cache][resume]") {
    for (const bool whole : kModes) {
        DYNAMIC_SECTION(mode_name(whole)) {
            TempStore store;
            fs::create_directories(store.dir);
            const std::string journal = (store.dir / "run.journal").string();
            const auto clean = run_with(store.dir / "clean", in_mode(whole));
            // Roots 3, 4, 5 one at a time; the process dies in root 5's reduce (pages 500-504, the
            // even ones kept: 1506), after its split, m and keep batches came back and were stored.
            const pid_t child = ::fork();
            REQUIRE(child >= 0);
            if (child == 0) {
                Shape dying = in_mode(whole);
                dying.kill_at_sum = 1506;
                dying.kill_after_journal =
                    journal;  // roots 3 and 4 written, as a slower root 5 sees
                run_with(store.dir / "s", dying, {3, 4, 5}, "threads", [&](RunOptions& o) {
                    o.journal_path = journal;
                    o.max_inflight_roots = 1;
                    o.commit_group = 1;  // roots 3 and 4 journaled before root 5 runs
                });
                ::_exit(0);  // not killed: the test fails below
            }
            int status = 0;
            REQUIRE(::waitpid(child, &status, 0) == child);
            REQUIRE(WIFSIGNALED(status));
            CHECK(WTERMSIG(status) == SIGKILL);

            SECTION("--resume") {
                const auto resumed = run_with(store.dir / "s", in_mode(whole), {3, 4, 5}, "threads",
                                              [&](RunOptions& o) {
                                                  o.journal_path = journal;
                                                  o.resume = true;
                                              });
                REQUIRE(resumed->report.roots.size() == 3);
                CHECK(resumed->report.roots[0].resumed);
                CHECK(resumed->report.roots[1].resumed);
                CHECK_FALSE(resumed->report.roots[2].resumed);
                CHECK(resumed->report.roots[2].status == RootStatus::Ok);
                // Root 5 again: its split, its five pages' m and keep from the store; its sum runs.
                CHECK(resumed->calls.split == 0);
                CHECK(resumed->calls.m == 0);
                CHECK(resumed->calls.keep == 0);
                CHECK(resumed->calls.sum == 1);
                CHECK(resumed->call("m").cache_hits == 5);
                CHECK(resumed->call("sum").cache_misses == 1);
                // It publishes root 5's items alone: roots 3 and 4 were committed by the first run.
                const std::string sum = whole ? "root2: 1506" : "1506";
                CHECK(resumed->items[resumed->sum_port] == std::multiset<std::string>{sum});
                CHECK(clean->items[clean->sum_port].count(sum) == 1);
                CHECK(resumed->report.cache_roots_answered == 0);
            }
            SECTION("a fresh run on the same store: every Grain of roots 3 and 4 from it, too") {
                const auto again = run_with(store.dir / "s", in_mode(whole));
                CHECK(again->calls.total() == 1);  // root 5's sum alone never finished before
                CHECK(again->items == clean->items);
                // Roots 3 and 4 finished in the killed run and were stored whole with their sinks.
                CHECK(again->report.cache_roots_answered == (whole ? 2u : 0u));
            }
        }
    }
}

TEST_CASE("a store that cannot be written: the run's results stand, reported as not stored",
          "[cache]") {
    for (const bool whole : kModes) {
        DYNAMIC_SECTION(mode_name(whole)) {
            TempStore store;
            const auto clean = run_with(store.dir / "clean", in_mode(whole));
            // Where the store keeps its packs (every result here is small), a plain file: every put
            // fails, as on a full disk (root ignores permissions, so a read-only folder would not
            // do). A store that cannot be opened at all is an error before the run
            // (test_result_store.cpp).
            fs::create_directories(store.dir / "s");
            std::ofstream(store.dir / "s" / "packs") << "x";
            for (int run = 0; run < 2; ++run) {
                INFO("run " << run);
                const auto full = run_with(store.dir / "s", in_mode(whole));
                CHECK_FALSE(full->report.aborted);
                CHECK(full->items == clean->items);
                CHECK(full->calls.total() == clean->calls.total());  // nothing was stored to hit
                bool reported = false;
                for (const std::string& note : full->report.cache_notes) {
                    if (note.find("were not stored") != std::string::npos &&
                        note.find("cannot write") != std::string::npos) {
                        reported = true;
                    }
                }
                CHECK(reported);
                CHECK(full->report.cache_roots_answered == 0);
            }
        }
    }
}

}  // namespace rop::runtime::test
