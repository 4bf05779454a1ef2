// The run report and trace JSON parse back; Value codecs round-trip; malformed Plans are
// rejected with a clear message.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;
using Catch::Matchers::ContainsSubstring;

TEST_CASE("report and trace JSON parse back", "[runtime][report]") {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const DomainId page = b.add_domain("Page", doc);
    const PortId src = b.source("src");
    const PortId pages = b.add_port("pages", page);
    const PortId out = b.add_port("out", page);
    b.add_call({"split",
                CallKind::Expand,
                doc,
                {{src}},
                {pages},
                opts(4, 1),
                expand_int([](long x) { return x; }, [](long x, long i) { return 10 * x + i; })});
    b.add_call({"ocr", CallKind::Map, page, {{pages}}, {out}, opts(8, 2), actor([](Batch& bt) {
                    for (std::size_t g = 0; g < bt.size(); ++g) {
                        if (bt.input(g, 0).get<long>() == 31) {
                            bt.fail_record(g, "unreadable");
                        } else {
                            bt.set_output(g, 0, bt.input(g, 0));
                        }
                    }
                })});
    const Plan plan = b.build();
    VecSource source({2, 3, 4});
    RunOptions options;
    options.trace_path = "runtime_test_trace.json";
    const RunReport report = run(plan, source, options);

    const auto j = nlohmann::json::parse(report.to_json());
    REQUIRE(j["roots"].size() == 3);
    CHECK(j["roots"][0]["status"] == "ok");
    CHECK(j["roots"][1]["status"] == "failed");
    CHECK(j["roots"][1]["call"] == "ocr");
    CHECK(j["roots"][1]["reason"] == "unreadable");
    CHECK(j["roots"][1]["attempts"] == 1);
    CHECK(j["summary"]["failed"] == 1);
    CHECK(j["calls"][1]["name"] == "ocr");
    CHECK(j["calls"][1]["grains"] == 9);
    CHECK(j["calls"][1]["failed"] == 1);

    std::ifstream in("runtime_test_trace.json");
    REQUIRE(in);
    const auto trace = nlohmann::json::parse(in);
    REQUIRE(trace["traceEvents"].is_array());
    std::size_t grains = 0;
    for (const auto& e : trace["traceEvents"]) {
        CHECK(e["ph"] == "X");
        CHECK(e["dur"].get<double>() >= 0);
        CHECK(e["args"]["size"].get<int>() >= 1);
        CHECK(e["args"].contains("mixed"));
        if (e["args"]["call"] == "ocr") grains += e["args"]["size"].get<std::size_t>();
    }
    CHECK(grains == 9);
    std::remove("runtime_test_trace.json");
}

TEST_CASE("Value codecs round-trip builtin types", "[runtime][value]") {
    const Value s = Value::of<std::string>("hello");
    CHECK(Value::decode(*s.type(), s.encode()).get<std::string>() == "hello");
    const Value v = Value::of<std::vector<long>>({1, -2, 3});
    CHECK(Value::decode(*v.type(), v.encode()).get<std::vector<long>>() ==
          std::vector<long>{1, -2, 3});
    const Value d = Value::of<double>(2.5);
    CHECK(Value::decode(*d.type(), d.encode()).get<double>() == 2.5);
    const Value nested = Value::of<std::vector<std::string>>({"a", "", "ccc"});
    CHECK(Value::decode(*nested.type(), nested.encode()).get<std::vector<std::string>>() ==
          std::vector<std::string>{"a", "", "ccc"});
    CHECK(Value::of<bool>(true).encode().size() == sizeof(bool));
    CHECK(s.byte_size() >= sizeof(std::string));
    CHECK(has_codec<int>);
    CHECK_FALSE(has_codec<ReduceGroup>);
    CHECK_THROWS_WITH(Value::of<ReduceGroup>(ReduceGroup{}).encode(),
                      ContainsSubstring("has no Codec"));
    CHECK_THROWS_WITH(s.get<long>(), ContainsSubstring("Value::get<long") &&
                                         ContainsSubstring("std::__cxx11::basic_string"));
    CHECK_THROWS_WITH(Value().get<long>(), ContainsSubstring("empty"));
    CHECK_THROWS_AS(Value::decode(*s.type(), "\x05"), ContractError);
    const Value copy = s;
    CHECK(copy.same_object(s));
}

TEST_CASE("PlanBuilder rejects malformed plans with a clear message", "[runtime][plan]") {
    auto base = [] {
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        b.add_domain("Page", doc);
        b.source("src");
        b.add_port("pages", 1);
        b.add_port("x", 0);
        return b;
    };
    const ActorFactory f = actor([](Batch&) {});
    struct Case {
        CallSpec spec;
        std::string message;
    };
    const std::vector<Case> cases = {
        {{"m", CallKind::Map, 1, {{0}}, {1}, opts(1, 1), f}, "not in the call's domain"},
        {{"m", CallKind::Map, 0, {{2}}, {2}, opts(1, 1), f}, "not produced by an earlier call"},
        {{"m", CallKind::Map, 0, {{0}}, {2}, opts(1, 1), {}}, "needs an actor factory"},
        {{"r", CallKind::Reduce, 0, {{1}}, {2}, opts(1, 1), {}}, "not produced"},
        {{"e", CallKind::Expand, 0, {{0}}, {2}, opts(1, 1), f}, "direct child domain"},
        {{"b", CallKind::Broadcast, 0, {{0}}, {2}, opts(1, 1), {}}, "ancestor domain"},
        {{"m", CallKind::Map, 0, {{0}}, {2}, opts(0, 1), f}, "batch must be at least 1"},
        // The one Call-kind enumeration has the compiler's source and sink too; a plan does not.
        {{"s", CallKind::Source, 0, {{0}}, {2}, opts(1, 1), f},
         "plan: call 's' (source): a source or sink is not a plan Call (SourceDefinition, "
         "SinkDefinition)"},
        {{"k", CallKind::Sink, 0, {{0}}, {2}, opts(1, 1), {}},
         "plan: call 'k' (sink): a source or sink is not a plan Call"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.message);
        PlanBuilder b = base();
        b.add_call(c.spec);
        CHECK_THROWS_WITH(b.build(), ContainsSubstring(c.message));
    }
    PlanBuilder twice = base();
    twice.add_call({"e1", CallKind::Expand, 0, {{0}}, {1}, opts(1, 1), f});
    const PortId more = twice.add_port("more", 1);
    twice.add_call({"e2", CallKind::Expand, 0, {{0}}, {more}, opts(1, 1), f});
    CHECK_THROWS_WITH(twice.build(), ContainsSubstring("already opened by 'e1'"));
    PlanBuilder no_source;
    no_source.add_domain("Doc");
    CHECK_THROWS_WITH(no_source.build(), ContainsSubstring("no source port"));
}
