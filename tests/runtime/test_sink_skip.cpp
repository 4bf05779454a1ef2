// RootSinkBinding::skip_root: every finished root reaches each root sink exactly once, as a
// write_root or, when nothing was written to that sink (failed, dropped, no items there, undone
// because another sink failed it), as a skip_root; both before the root's journal line. A sink
// that writes in source order (std.io's ordered JsonlSink) relies on it to stop waiting.
#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;

namespace {

// Records "w<ordinal>" for a write and "s<ordinal>" for a skip, and the checkpoints taken.
struct EventSink {
    std::vector<std::string> events;
    std::string fail_on;  // write_root throws for this root name
    RootSinkBinding binding(PortId port, std::string name) {
        RootSinkBinding b;
        b.port = port;
        b.name = std::move(name);
        b.write_root = [this](const RootKey& key, std::span<const Value>) {
            if (key.name == fail_on) throw std::runtime_error("disk full");
            events.push_back("w" + std::to_string(key.ordinal));
        };
        b.skip_root = [this](const RootKey& key) {
            events.push_back("s" + std::to_string(key.ordinal));
        };
        b.checkpoint = [this] { return std::to_string(events.size()); };
        b.restore = [this](const std::string& token) {
            // Undo takes back a write (the events after the token), as a file truncates.
            events.resize(token.empty() ? 0 : std::stoul(token));
        };
        return b;
    }
};

}  // namespace

TEST_CASE("root sinks: skip_root for every root that writes nothing, write_root for the rest",
          "[runtime][sinks]") {
    for (auto [batch, actors] :
         std::vector<std::pair<std::uint32_t, std::uint32_t>>{{1, 1}, {4, 3}}) {
        CAPTURE(batch, actors);
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const PortId src = b.source("src");
        const PortId mapped = b.add_port("mapped", doc);
        const PortId kept = b.add_port("kept", doc);
        b.add_call(
            {"m", CallKind::Map, doc, {{src}}, {mapped}, opts(batch, actors), actor([](Batch& bt) {
                 for (std::size_t g = 0; g < bt.size(); ++g) {
                     const long x = bt.input(g, 0).get<long>();
                     if (x == 13) {
                         bt.fail_record(g, "unlucky");
                     } else {
                         bt.set_output(g, 0, Value::of<long>(x));
                     }
                 }
             })});
        b.add_call({"k",
                    CallKind::Filter,
                    doc,
                    {{mapped}},
                    {kept},
                    opts(batch, actors),
                    keep_int([](long x) { return x != 7; })});
        const Plan plan = b.build();
        // root0 ok, root1 fails in "m", root2 is dropped by "k", root3 fails in sink "b" (and
        // sink "a", which wrote it first, takes it back), root4 ok.
        VecSource source({1, 13, 7, 4, 5});
        EventSink a, bsink;
        bsink.fail_on = "root3";
        RunOptions options;
        options.root_sinks.push_back(a.binding(kept, "a"));
        options.root_sinks.push_back(bsink.binding(kept, "b"));
        const RunReport report = run(plan, source, options);
        CHECK_FALSE(report.aborted);
        REQUIRE(report.roots.size() == 5);
        CHECK(report.roots[1].status == RootStatus::Failed);
        CHECK(report.roots[2].status == RootStatus::Dropped);
        CHECK(report.roots[3].status == RootStatus::Failed);
        CHECK(report.roots[3].reason == "sink b: disk full");
        // Each root once per sink, whatever the order roots finished in.
        for (const EventSink* sink : {&a, &bsink}) {
            std::map<std::string, int> seen;
            for (const std::string& e : sink->events) ++seen[e.substr(1)];
            CHECK(seen ==
                  std::map<std::string, int>{{"0", 1}, {"1", 1}, {"2", 1}, {"3", 1}, {"4", 1}});
            std::vector<std::string> sorted = sink->events;
            std::sort(sorted.begin(), sorted.end(), [](const std::string& x, const std::string& y) {
                return x.substr(1) < y.substr(1);
            });
            CHECK(sorted == std::vector<std::string>{"w0", "s1", "s2", "s3", "w4"});
        }
    }
}
