// Batch::parent for reduce Grains, per-root sinks (RunOptions::root_sinks), and the journal
// behind --resume (RunOptions::journal_path / resume), in-process.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "core/journal.h"
#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;
using Catch::Matchers::ContainsSubstring;

namespace {

// A root payload that counts its live instances (payload release accounting).
struct Tracked {
    static std::atomic<int>& live() {
        static std::atomic<int> n{0};
        return n;
    }
    explicit Tracked(long v) : value(v) { ++live(); }
    Tracked(const Tracked& o) : value(o.value) { ++live(); }
    ~Tracked() { --live(); }
    Tracked& operator=(const Tracked&) = delete;
    long value;
};

class TrackedSource final : public RootSource {
  public:
    explicit TrackedSource(std::vector<long> values) : values_(std::move(values)) {}
    std::optional<Root> next() override {
        if (i_ == values_.size()) return std::nullopt;
        ++i_;
        return Root{Value::make<Tracked>(values_[i_ - 1]), "root" + std::to_string(i_ - 1)};
    }

  private:
    std::vector<long> values_;
    std::size_t i_ = 0;
};

long root_long(const Value& v) {
    if (const Tracked* t = v.try_get<Tracked>()) return t->value;
    return v.get<long>();
}

// In an actor: a non-reduce Grain has no parent value. Thrown rather than asserted (Catch2's
// assertions are for the test's own thread); the failed root shows in the test's checks.
void expect_no_parent(const Batch& batch, std::size_t g) {
    if (batch.parent(g).has_value()) throw std::logic_error("a parent value outside a reduce");
}

// Doc(x) -> x pages (1000x + i) -> map "m" (identity, or `udf`) -> reduce "sum": parent*1e6 +
// sum of pages; the reduce checks Batch::parent.
struct ParentPlan {
    Plan plan;
    PortId pages = 0, mapped = 0, total = 0;
    ParentPlan(CallOptions o, std::function<void(Batch&)> reduce_udf, int max_children = 1000) {
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        const PortId src = b.source("src");
        pages = b.add_port("pages", page);
        mapped = b.add_port("mapped", page);
        total = b.add_port("total", doc);
        b.add_call({"split",
                    CallKind::Expand,
                    doc,
                    {{src}},
                    {pages},
                    o,
                    actor([max_children](Batch& batch) {
                        for (std::size_t g = 0; g < batch.size(); ++g) {
                            expect_no_parent(batch, g);  // not a reduce
                            const long x = root_long(batch.input(g, 0));
                            for (long i = 0; i < std::min<long>(x, max_children); ++i) {
                                batch.emit_child(g, Value::of<long>(1000 * x + i));
                            }
                        }
                    })});
        b.add_call({"m", CallKind::Map, page, {{pages}}, {mapped}, o, actor([](Batch& batch) {
                        for (std::size_t g = 0; g < batch.size(); ++g) {
                            expect_no_parent(batch, g);
                            batch.set_output(g, 0, batch.input(g, 0));
                        }
                    })});
        b.add_call({"sum", CallKind::Reduce, doc, {{mapped}}, {total}, o, actor(reduce_udf)});
        plan = b.build();
    }
};

void parent_sum(Batch& batch) {
    for (std::size_t g = 0; g < batch.size(); ++g) {
        long s = 0;
        for (const Value& v : batch.input(g, 0).get<ReduceGroup>().values) s += v.get<long>();
        // Not REQUIRE: Catch2's assertions are for the test's own thread (two actor threads
        // asserting at once abort it). A throw fails the root, which the tests check.
        if (!batch.parent(g).has_value()) throw std::logic_error("a reduce without its parent");
        batch.set_output(g, 0, Value::of<long>(root_long(batch.parent(g)) * 1000000 + s));
    }
}

long expected_total(long x) {
    long s = 0;
    for (long i = 0; i < x; ++i) s += 1000 * x + i;
    return x * 1000000 + s;
}

struct TempDir {
    TempDir() {
        static int counter = 0;
        path =
            std::filesystem::temp_directory_path() /
            ("rop_sinks_journal_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
        std::filesystem::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    std::filesystem::path path;
};

std::string read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream ss(text);
    for (std::string line; std::getline(ss, line);) out.push_back(line);
    return out;
}

// The header and the roots' lines, without the run lines (begin, admitted, running, ended).
std::vector<std::string> entry_lines(const std::string& text) {
    std::vector<std::string> out;
    for (std::string& line : lines_of(text)) {
        if (line.starts_with("{\"admitted\"") || line.starts_with("{\"begin\"") ||
            line.starts_with("{\"ended\"") || line.starts_with("{\"running\"")) {
            continue;
        }
        out.push_back(std::move(line));
    }
    return out;
}

// An in-memory append sink with checkpoint/restore (the JSONL pattern): "ordinal:name:v,v,..".
struct MemorySink {
    std::vector<std::string> lines;
    std::vector<std::string> restores;
    std::string fail_on;  // write_root throws for this root name
    RootSinkBinding binding(PortId port, std::string name = {}) {
        RootSinkBinding b;
        b.port = port;
        b.name = std::move(name);
        b.write_root = [this](const RootKey& key, std::span<const Value> items) {
            if (key.name == fail_on) throw std::runtime_error("disk full");
            std::string line = std::to_string(key.ordinal) + ":" + key.name + ":";
            for (std::size_t i = 0; i < items.size(); ++i) {
                line += (i ? "," : "") + std::to_string(items[i].get<long>());
            }
            lines.push_back(line);
        };
        b.checkpoint = [this] { return std::to_string(lines.size()); };
        b.restore = [this](const std::string& token) {
            restores.push_back(token);
            lines.resize(token.empty() ? 0 : std::stoul(token));
        };
        return b;
    }
};

}  // namespace

TEST_CASE("Batch::parent: a reduce sees its parent's value, other Calls an empty Value",
          "[runtime][parent]") {
    for (auto [batch, actors] :
         std::vector<std::pair<std::uint32_t, std::uint32_t>>{{1, 1}, {3, 2}, {64, 1}, {64, 3}}) {
        CAPTURE(batch, actors);
        ParentPlan p(opts(batch, actors), parent_sum);
        VecSource source({3, 0, 7, 1, 12});
        Recorder rec;
        RunOptions options;
        options.observer = &rec;
        const RunReport report = run(p.plan, source, options);
        CHECK_FALSE(report.aborted);
        CHECK(rec.of(p.total) == std::multiset<std::string>{std::to_string(expected_total(3)),
                                                            std::to_string(expected_total(0)),
                                                            std::to_string(expected_total(7)),
                                                            std::to_string(expected_total(1)),
                                                            std::to_string(expected_total(12))});
    }
}

TEST_CASE("Batch::parent: nested reduces see their own parents; replays see it again",
          "[runtime][parent]") {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const DomainId page = b.add_domain("Page", doc);
    const DomainId line = b.add_domain("Line", page);
    const PortId src = b.source("src");
    const PortId pages = b.add_port("pages", page);
    const PortId lines = b.add_port("lines", line);
    const PortId page_total = b.add_port("page_total", page);
    const PortId doc_total = b.add_port("doc_total", doc);
    CallOptions o = opts(4, 2);
    o.recovery = Recovery::RetryBatch;
    o.retries = 3;
    b.add_call({"pages",
                CallKind::Expand,
                doc,
                {{src}},
                {pages},
                o,
                expand_int([](long x) { return x; }, [](long x, long i) { return 10 * x + i; })});
    b.add_call({"lines",
                CallKind::Expand,
                page,
                {{pages}},
                {lines},
                o,
                expand_int([](long x) { return x % 3; }, [](long, long i) { return i; })});
    auto flaky = std::make_shared<std::atomic<int>>(0);
    // page_total = parent page value * 100 + lines; the first two batches throw (replayed).
    b.add_call({"page_sum",
                CallKind::Reduce,
                page,
                {{lines}},
                {page_total},
                o,
                actor([flaky](Batch& batch) {
                    if (flaky->fetch_add(1) < 2) throw std::runtime_error("transient");
                    for (std::size_t g = 0; g < batch.size(); ++g) {
                        const auto& group = batch.input(g, 0).get<ReduceGroup>();
                        batch.set_output(g, 0,
                                         Value::of<long>(batch.parent(g).get<long>() * 100 +
                                                         static_cast<long>(group.values.size())));
                    }
                })});
    b.add_call(
        {"doc_sum", CallKind::Reduce, doc, {{page_total}}, {doc_total}, o, actor([](Batch& batch) {
             for (std::size_t g = 0; g < batch.size(); ++g) {
                 long s = batch.parent(g).get<long>() * 1000000;
                 for (const Value& v : batch.input(g, 0).get<ReduceGroup>().values) {
                     s += v.get<long>();
                 }
                 batch.set_output(g, 0, Value::of<long>(s));
             }
         })});
    const Plan plan = b.build();
    VecSource source({2, 4, 0});
    Recorder rec;
    RunOptions options;
    options.observer = &rec;
    const RunReport report = run(plan, source, options);
    CHECK_FALSE(report.aborted);
    auto doc_expect = [](long x) {
        long s = x * 1000000;
        for (long i = 0; i < x; ++i) s += (10 * x + i) * 100 + (10 * x + i) % 3;
        return std::to_string(s);
    };
    CHECK(rec.of(doc_total) == std::multiset<std::string>{doc_expect(2), doc_expect(4), "0"});
    CHECK(flaky->load() > 2);
}

TEST_CASE("Batch::parent: the parent payload is released once its reduce has run",
          "[runtime][parent]") {
    REQUIRE(Tracked::live() == 0);
    std::atomic<int> max_live{0};
    auto note = [&max_live] {
        int seen = max_live.load();
        const int now = Tracked::live().load();
        while (now > seen && !max_live.compare_exchange_weak(seen, now)) {
        }
    };
    {
        ParentPlan p(opts(2, 1), [&note](Batch& batch) {
            note();
            parent_sum(batch);
        });
        TrackedSource source({5, 3, 0, 8, 2, 6});
        RunOptions options;
        options.max_inflight_roots = 1;  // one root's value alive at a time
        Recorder rec;
        options.observer = &rec;
        const RunReport report = run(p.plan, source, options);
        CHECK_FALSE(report.aborted);
        CHECK(rec.of(p.total).count(std::to_string(expected_total(8))) == 1);
        CHECK(report.peak_live_items <= 2 * 8 + 1);
    }
    CHECK(max_live.load() == 1);
    CHECK(Tracked::live() == 0);  // every slot and job reference returned
}

TEST_CASE("root sinks: each root once, its items in ordinal order, when it is done",
          "[runtime][sinks]") {
    for (auto [batch, actors] :
         std::vector<std::pair<std::uint32_t, std::uint32_t>>{{1, 1}, {3, 3}, {64, 2}}) {
        CAPTURE(batch, actors);
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        const DomainId line = b.add_domain("Line", page);
        const PortId src = b.source("src");
        const PortId pages = b.add_port("pages", page);
        const PortId lines = b.add_port("lines", line);
        const PortId kept = b.add_port("kept", line);
        const PortId count = b.add_port("count", doc);
        const auto o = opts(batch, actors);
        b.add_call(
            {"pages",
             CallKind::Expand,
             doc,
             {{src}},
             {pages},
             o,
             expand_int([](long x) { return x; }, [](long x, long i) { return 10 * x + i; })});
        b.add_call(
            {"lines",
             CallKind::Expand,
             page,
             {{pages}},
             {lines},
             o,
             expand_int([](long x) { return x % 4; }, [](long x, long i) { return 10 * x + i; })});
        // A shuffling filter: random sleeps scramble completion order; drops odd values.
        b.add_call({"keep", CallKind::Filter, line, {{lines}}, {kept}, o, actor([](Batch& bt) {
                        thread_local std::mt19937 rng(std::random_device{}());
                        std::this_thread::sleep_for(std::chrono::microseconds(rng() % 200));
                        for (std::size_t g = 0; g < bt.size(); ++g) {
                            bt.set_keep(g, bt.input(g, 0).get<long>() % 2 == 0);
                        }
                    })});
        b.add_call({"n", CallKind::Reduce, doc, {{pages}}, {count}, o, actor([](Batch& bt) {
                        for (std::size_t g = 0; g < bt.size(); ++g) {
                            bt.set_output(g, 0,
                                          Value::of<long>(static_cast<long>(
                                              bt.input(g, 0).get<ReduceGroup>().values.size())));
                        }
                    })});
        const Plan plan = b.build();
        const std::vector<long> docs = {5, 0, 7, 1, 6, 3};
        VecSource source(docs);
        MemorySink line_sink, count_sink;
        RunOptions options;
        options.root_sinks.push_back(line_sink.binding(kept, "lines"));
        options.root_sinks.push_back(count_sink.binding(count));
        Recorder rec;
        options.observer = &rec;
        const RunReport report = run(plan, source, options);
        CHECK_FALSE(report.aborted);
        CHECK(line_sink.restores == std::vector<std::string>{""});  // a fresh run
        CHECK(count_sink.restores == std::vector<std::string>{""});
        // Expected: per root, kept lines (even values) in (page, line) ordinal order.
        std::map<std::string, std::string> expect_lines, got_lines;
        for (std::size_t r = 0; r < docs.size(); ++r) {
            std::string items;
            for (long i = 0; i < docs[r]; ++i) {
                const long pv = 10 * docs[r] + i;
                for (long j = 0; j < pv % 4; ++j) {
                    const long lv = 10 * pv + j;
                    if (lv % 2 == 0) items += (items.empty() ? "" : ",") + std::to_string(lv);
                }
            }
            // Only roots with at least one PRESENT item at the port are written.
            if (!items.empty()) {
                expect_lines[std::to_string(r)] =
                    std::to_string(r) + ":root" + std::to_string(r) + ":" + items;
            }
        }
        for (const std::string& l : line_sink.lines) {
            CHECK(got_lines.emplace(l.substr(0, l.find(':')), l).second);  // once per root
        }
        CHECK(got_lines == expect_lines);
        std::multiset<std::string> counts(count_sink.lines.begin(), count_sink.lines.end());
        std::multiset<std::string> expect_counts;
        for (std::size_t r = 0; r < docs.size(); ++r) {
            expect_counts.insert(std::to_string(r) + ":root" + std::to_string(r) + ":" +
                                 std::to_string(docs[r]));
        }
        CHECK(counts == expect_counts);
        for (const RootResult& r : report.roots) CHECK(r.status == RootStatus::Ok);
    }
}

TEST_CASE(
    "root sinks: a throwing sink fails that root with 'sink NAME: message', no sink keeps a part "
    "of it, the run goes on",
    "[runtime][sinks]") {
    ParentPlan p(opts(4, 1), parent_sum);
    VecSource source({2, 3, 4});
    MemorySink totals, pages;
    totals.fail_on = "root1";
    RunOptions options;
    options.root_sinks.push_back(totals.binding(p.total, "totals"));
    options.root_sinks.push_back(pages.binding(p.mapped));  // named after its port
    pages.fail_on = "root2";
    const RunReport report = run(p.plan, source, options);
    CHECK_FALSE(report.aborted);
    REQUIRE(report.roots.size() == 3);
    CHECK(report.roots[0].status == RootStatus::Ok);
    CHECK(report.roots[1].status == RootStatus::Failed);
    CHECK(report.roots[1].reason == "sink totals: disk full");
    CHECK(report.roots[1].failed_call.empty());
    CHECK(report.roots[2].status == RootStatus::Failed);
    CHECK(report.roots[2].reason == "sink mapped: disk full");
    // All or nothing: root 1 failed in totals (pages never saw it); root 2 failed in pages, and
    // totals, written first, was put back to its checkpoint from before root 2.
    REQUIRE(totals.lines.size() == 1);
    CHECK(totals.lines[0].starts_with("0:root0:"));
    REQUIRE(pages.lines.size() == 1);
    CHECK(pages.lines[0].starts_with("0:root0:"));
    CHECK(std::count(totals.restores.begin(), totals.restores.end(), "") == 1);  // fresh run
    CHECK(totals.restores.size() == 3);  // and the undo of roots 1 (its own part) and 2
}

TEST_CASE("root sinks: a sink that cannot take a failed root back ends the run",
          "[runtime][sinks]") {
    ParentPlan p(opts(4, 1), parent_sum);
    VecSource source({2});
    MemorySink totals, pages;
    pages.fail_on = "root0";
    RunOptions options;
    RootSinkBinding first = totals.binding(p.total, "totals");
    int restores = 0;
    first.restore = [&restores](const std::string&) {
        if (restores++ > 0) throw std::runtime_error("read-only file system");
    };
    options.root_sinks.push_back(first);
    options.root_sinks.push_back(pages.binding(p.mapped));
    CHECK_THROWS_WITH(run(p.plan, source, options),
                      "sink totals: cannot take back a failed root's output: read-only file "
                      "system");
}

TEST_CASE("commit groups: one sync and one journal write per group, every root journaled",
          "[runtime][journal]") {
    struct Case {
        std::size_t group;
        std::chrono::milliseconds window;
        int min_syncs, max_syncs;
    };
    // 6 roots. A group of 1 syncs per root; a group of 2 at most 3 times (a window of an hour
    // never fires: only full groups and the end flush); one big group once, at the end.
    for (const Case c :
         {Case{1, std::chrono::milliseconds(0), 6, 6}, Case{2, std::chrono::hours(1), 3, 3},
          Case{1000, std::chrono::hours(1), 1, 1}}) {
        CAPTURE(c.group);
        TempDir dir;
        const auto journal = dir.path / "run.journal";
        ParentPlan p(opts(4, 2), parent_sum);
        VecSource source({2, 0, 3, 1, 4, 5});
        MemorySink totals;
        RunOptions options;
        RootSinkBinding binding = totals.binding(p.total, "totals");
        int syncs = 0;
        std::size_t lines_at_sync = 0;
        std::size_t journal_lines_at_sync = 0;
        binding.sync = [&] {
            ++syncs;
            lines_at_sync = totals.lines.size();
            journal_lines_at_sync = entry_lines(read_file(journal)).size();
        };
        options.root_sinks.push_back(binding);
        options.journal_path = journal.string();
        options.commit_group = c.group;
        options.commit_window = c.window;
        const RunReport report = run(p.plan, source, options);
        CHECK_FALSE(report.aborted);
        CHECK(syncs >= c.min_syncs);
        CHECK(syncs <= c.max_syncs);
        CHECK(lines_at_sync == totals.lines.size());  // the last sync saw every written root
        const std::vector<std::string> lines = entry_lines(read_file(journal));
        CHECK(lines.size() == 7);  // header + 6 roots
        // The sinks are synced before their group's journal lines are written: a line is never
        // durable before the output it vouches for.
        CHECK(journal_lines_at_sync < lines.size());
        if (c.group == 1000) CHECK(journal_lines_at_sync == 1);  // one group: only the header
    }
}

TEST_CASE("journal: one fsynced line per finished root, with every sink's token",
          "[runtime][journal]") {
    TempDir dir;
    const auto journal = dir.path / "run.journal";
    ParentPlan p(opts(4, 2), parent_sum);
    VecSource source({2, 0, 3});
    MemorySink totals;
    RunOptions options;
    options.root_sinks.push_back(totals.binding(p.total, "totals"));
    options.journal_path = journal.string();
    const RunReport report = run(p.plan, source, options);
    CHECK_FALSE(report.aborted);
    const auto lines = entry_lines(read_file(journal));
    REQUIRE(lines.size() == 4);
    // {"id":"<16 hex digits>","journal":"rop","sinks":["totals"],"version":2}: no pipeline was
    // named (run() called directly), so none is recorded or checked.
    CHECK(std::regex_match(
        lines[0],
        std::regex(R"(\{"id":"[0-9a-f]{16}","journal":"rop","sinks":\["totals"\],"version":2\})")));
    // The run's own lines: its watermark before the first batch, its end.
    const auto all = lines_of(read_file(journal));
    CHECK(all.back() == R"({"ended":true})");
    CHECK(std::count(all.begin(), all.end(), R"({"admitted":3})") == 1);
    std::set<std::string> roots;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        CHECK_THAT(lines[i], ContainsSubstring(R"("status":"ok")"));
        CHECK_THAT(lines[i], ContainsSubstring(R"("tokens":[")" + std::to_string(i) + R"("])"));
        roots.insert(lines[i].substr(0, lines[i].find(',')));
    }
    CHECK(roots ==
          std::set<std::string>{R"({"name":"root0")", R"({"name":"root1")", R"({"name":"root2")"});
}

TEST_CASE("journal: the writer thread appends handed-over lines in order; sync() waits for them",
          "[runtime][journal]") {
    TempDir dir;
    const auto path = dir.path / "w.journal";
    {
        detail::Journal journal(path.string(), {"totals"}, false);
        for (std::uint64_t r = 0; r < 300; ++r) {
            detail::JournalEntry e;
            e.ordinal = r;
            e.name = "root" + std::to_string(r);
            e.tokens = {std::to_string(r)};
            journal.add(e);
            if (r % 7 == 6) journal.flush();  // 42 hand-overs, some while the writer writes
        }
        journal.sync();  // the last 6 lines too, and every earlier one, before it returns
        const auto lines = lines_of(read_file(path));
        REQUIRE(lines.size() == 301);
        for (std::uint64_t r = 0; r < 300; ++r) {
            CAPTURE(r);
            REQUIRE_THAT(lines[r + 1], ContainsSubstring(R"({"name":"root)" + std::to_string(r) +
                                                         R"(","root":)" + std::to_string(r) + ","));
        }
        detail::JournalEntry last;
        last.ordinal = 300;
        last.name = "root300";
        last.tokens = {"300"};
        journal.add(last);
        journal.flush();
    }  // the destructor lets the writer append what it was handed
    CHECK(lines_of(read_file(path)).size() == 302);
}

TEST_CASE("journal: a write the writer thread fails surfaces at the next flush or sync",
          "[runtime][journal]") {
    TempDir dir;
    const auto path = dir.path / "full.journal";
    detail::Journal journal(path.string(), {"totals"}, false);
    // The journal's descriptor now writes to /dev/full: every write fails with ENOSPC.
    const int full = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
    REQUIRE(full >= 0);
    REQUIRE(::dup2(full, journal.fd()) == journal.fd());
    ::close(full);
    detail::JournalEntry e;
    e.ordinal = 0;
    e.name = "root0";
    e.tokens = {"0"};
    journal.add(e);
    journal.flush();  // handed over: the driver does not wait
    CHECK_THROWS_WITH(journal.sync(),
                      ContainsSubstring("full.journal': cannot write: No space left on device"));
    e.ordinal = 1;
    journal.add(e);
    // Nothing is written after a lost line; the next hand-over reports the failure again.
    CHECK_THROWS_WITH(journal.flush(), ContainsSubstring("cannot write: No space left on device"));
}

TEST_CASE("journal: resume skips journaled roots (earlier status) and restores the last token",
          "[runtime][journal]") {
    TempDir dir;
    const auto journal = dir.path / "run.journal";
    // Root 1 (value 13) fails its record in the map; value 0 has no pages (still written to
    // `totals`: its reduce result is PRESENT).
    auto make_plan = [] {
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        const PortId src = b.source("src");
        const PortId pages = b.add_port("pages", page);
        const PortId mapped = b.add_port("mapped", page);
        const PortId total = b.add_port("total", doc);
        b.add_call({"split",
                    CallKind::Expand,
                    doc,
                    {{src}},
                    {pages},
                    opts(2, 1),
                    expand_int([](long x) { return x % 10; },
                               [](long x, long i) { return 100 * x + i; })});
        b.add_call(
            {"m", CallKind::Map, page, {{pages}}, {mapped}, opts(2, 1), actor([](Batch& batch) {
                 for (std::size_t g = 0; g < batch.size(); ++g) {
                     const long x = batch.input(g, 0).get<long>();
                     if (x == 1301) {
                         batch.fail_record(g, "bad page");
                         continue;
                     }
                     batch.set_output(g, 0, Value::of<long>(x));
                 }
             })});
        b.add_call({"sum", CallKind::Reduce, doc, {{mapped}}, {total}, opts(2, 1), sum_group()});
        return std::pair{b.build(), total};
    };
    const auto [plan, total] = make_plan();
    MemorySink totals;
    {
        VecSource first({2, 13, 0});  // "interrupted" after three roots
        RunOptions options;
        options.root_sinks.push_back(totals.binding(total, "totals"));
        options.journal_path = journal.string();
        options.max_inflight_roots = 1;
        const RunReport report = run(plan, first, options);
        REQUIRE(report.roots.size() == 3);
        CHECK(report.roots[1].status == RootStatus::Failed);
    }
    REQUIRE(totals.lines.size() == 2);  // root 1 failed: its total is SUPPRESSED
    // A crash after the sink wrote root 3 but before the journal line, and a torn line.
    totals.lines.push_back("3:root3:garbage");
    {
        std::ofstream out(journal, std::ios::app);
        out << R"({"root":3,"name":"root3","sta)";
    }
    VecSource all({2, 13, 0, 4, 5});
    RunOptions options;
    options.root_sinks.push_back(totals.binding(total, "totals"));
    options.journal_path = journal.string();
    options.resume = true;
    Recorder rec;
    options.observer = &rec;
    // The progress ETA knows from the start that the journal's 3 roots will not run.
    std::vector<std::size_t> resumed_seen;
    options.on_progress = [&](const Progress& p) { resumed_seen.push_back(p.roots_resumed); };
    options.progress_interval = std::chrono::milliseconds(1);
    const RunReport report = run(plan, all, options);
    CHECK_FALSE(report.aborted);
    REQUIRE_FALSE(resumed_seen.empty());
    CHECK(std::all_of(resumed_seen.begin(), resumed_seen.end(),
                      [](std::size_t n) { return n == 3; }));
    CHECK(totals.restores == std::vector<std::string>{"", "2"});  // fresh, then the last token
    REQUIRE(report.roots.size() == 5);
    CHECK(report.roots[0].resumed);
    CHECK(report.roots[0].status == RootStatus::Ok);
    CHECK(report.roots[1].resumed);
    CHECK(report.roots[1].status == RootStatus::Failed);
    CHECK(report.roots[1].failed_call == "m");
    CHECK(report.roots[1].reason == "bad page");
    CHECK(report.roots[2].resumed);
    CHECK_FALSE(report.roots[3].resumed);
    CHECK_FALSE(report.roots[4].resumed);
    CHECK(report.roots[3].status == RootStatus::Ok);
    CHECK(rec.done.size() == 2);  // only roots 3 and 4 ran
    std::multiset<std::string> got(totals.lines.begin(), totals.lines.end());
    CHECK(got ==
          std::multiset<std::string>{"0:root0:401", "2:root2:0", "3:root3:1606", "4:root4:2510"});
    // The torn line is gone; every line parses.
    const auto lines = entry_lines(read_file(journal));
    CHECK(lines.size() == 1 + 5);
    for (const std::string& l : lines) CHECK(nlohmann::json::parse(l, nullptr, false).is_object());
    CHECK(read_file(journal).back() == '\n');

    SECTION("resuming a finished run runs nothing") {
        RunOptions again;
        MemorySink t2;
        again.root_sinks.push_back(t2.binding(total, "totals"));
        again.journal_path = journal.string();
        again.resume = true;
        VecSource same({2, 13, 0, 4, 5});
        const RunReport r2 = run(plan, same, again);
        REQUIRE(r2.roots.size() == 5);
        for (const RootResult& r : r2.roots) CHECK(r.resumed);
        CHECK(t2.restores == std::vector<std::string>{"4"});
        for (const std::string& l : t2.lines) CHECK(l.empty());  // nothing written
    }
    SECTION("a journal of other sinks, or another input, is refused") {
        RunOptions other;
        MemorySink t2;
        other.root_sinks.push_back(t2.binding(total, "out"));
        other.journal_path = journal.string();
        other.resume = true;
        VecSource same({2, 13, 0, 4, 5});
        CHECK_THROWS_WITH(run(plan, same, other),
                          ContainsSubstring("written for sinks [totals], this run has [out]"));
        RunOptions renamed;
        renamed.root_sinks.push_back(t2.binding(total, "totals"));
        renamed.journal_path = journal.string();
        renamed.resume = true;
        class Named final : public RootSource {
          public:
            std::optional<Root> next() override {
                if (i_ == 2) return std::nullopt;
                return Root{Value::of<long>(2), "other" + std::to_string(i_++)};
            }

          private:
            int i_ = 0;
        } named;
        CHECK_THROWS_WITH(run(plan, named, renamed),
                          ContainsSubstring("root 0 is 'root0' there but 'other0' in the source"));
    }
}

TEST_CASE("journal: resume without a journal file is a fresh run; without a path an error",
          "[runtime][journal]") {
    TempDir dir;
    ParentPlan p(opts(4, 1), parent_sum);
    MemorySink totals;
    RunOptions options;
    options.root_sinks.push_back(totals.binding(p.total, "totals"));
    options.journal_path = (dir.path / "missing.journal").string();
    options.resume = true;
    VecSource source({1, 2});
    const RunReport report = run(p.plan, source, options);
    CHECK(totals.restores == std::vector<std::string>{""});
    CHECK(totals.lines.size() == 2);
    CHECK(entry_lines(read_file(dir.path / "missing.journal")).size() == 3);

    RunOptions no_path;
    no_path.resume = true;
    VecSource again({1});
    CHECK_THROWS_WITH(run(p.plan, again, no_path),
                      ContainsSubstring("resume needs RunOptions::journal_path"));
}

TEST_CASE("retry_failed: a failed root wrote nothing and runs again, written once",
          "[runtime][journal][retry]") {
    TempDir dir;
    const auto journal = dir.path / "run.journal";
    // Doc(x) -> x pages (100x + i) -> map "m" -> a Page-Domain sink. Page 401 fails while the
    // environment is "broken".
    std::atomic<bool> broken{true};
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const DomainId page = b.add_domain("Page", doc);
    const PortId src = b.source("src");
    const PortId pages = b.add_port("pages", page);
    const PortId mapped = b.add_port("mapped", page);
    b.add_call({"split",
                CallKind::Expand,
                doc,
                {{src}},
                {pages},
                opts(2, 1),
                expand_int([](long x) { return x; }, [](long x, long i) { return 100 * x + i; })});
    b.add_call(
        {"m", CallKind::Map, page, {{pages}}, {mapped}, opts(4, 1), actor([&broken](Batch& batch) {
             for (std::size_t g = 0; g < batch.size(); ++g) {
                 const long x = batch.input(g, 0).get<long>();
                 if (x == 401 && broken) {
                     batch.fail_record(g, "model server down");
                 } else {
                     batch.set_output(g, 0, Value::of<long>(x));
                 }
             }
         })});
    const Plan plan = b.build();
    MemorySink sink;
    auto options_for = [&](bool resume, bool retry) {
        RunOptions o;
        o.root_sinks.push_back(sink.binding(mapped, "pages"));
        o.journal_path = journal.string();
        o.resume = resume;
        o.retry_failed = retry;
        return o;
    };
    {
        VecSource source({3, 4, 2});
        const RunReport report = run(plan, source, options_for(false, false));
        REQUIRE(report.roots.size() == 3);
        CHECK(report.roots[1].status == RootStatus::Failed);
        CHECK(report.roots[1].reason == "model server down");
    }
    // Root 1's pages 400, 402 and 403 succeeded, but a failed root writes none of them.
    std::multiset<std::string> got(sink.lines.begin(), sink.lines.end());
    CHECK(got == std::multiset<std::string>{"0:root0:300,301,302", "2:root2:200,201"});

    SECTION("a plain resume keeps the failure") {
        VecSource source({3, 4, 2});
        const RunReport report = run(plan, source, options_for(true, false));
        REQUIRE(report.roots.size() == 3);
        for (const RootResult& r : report.roots) CHECK(r.resumed);
        CHECK(report.roots[1].status == RootStatus::Failed);
        CHECK(sink.lines.size() == 2);
    }
    SECTION("retry_failed runs it again; its new line supersedes the old one") {
        broken = false;
        {
            VecSource source({3, 4, 2});
            const RunReport report = run(plan, source, options_for(true, true));
            REQUIRE(report.roots.size() == 3);
            CHECK(report.roots[0].resumed);
            CHECK(report.roots[2].resumed);
            CHECK_FALSE(report.roots[1].resumed);
            CHECK(report.roots[1].status == RootStatus::Ok);
        }
        std::multiset<std::string> all(sink.lines.begin(), sink.lines.end());
        CHECK(all == std::multiset<std::string>{"0:root0:300,301,302", "2:root2:200,201",
                                                "1:root1:400,401,402,403"});
        CHECK(entry_lines(read_file(journal)).size() == 1 + 3 + 1);
        // Resumed once more, every root is journaled, root 1 as ok (its last line).
        VecSource source({3, 4, 2});
        const RunReport report = run(plan, source, options_for(true, true));
        for (const RootResult& r : report.roots) CHECK(r.resumed);
        CHECK(report.roots[1].status == RootStatus::Ok);
        CHECK(sink.lines.size() == 3);
    }
    SECTION("retry_failed without resume is refused") {
        VecSource source({3});
        CHECK_THROWS_WITH(run(plan, source, options_for(false, true)),
                          ContainsSubstring("retry_failed needs RunOptions::resume"));
    }
}
