// A fail-open reduce (`on_failure skip`): FAILED and SUPPRESSED members are left out like
// DROPPED ones and listed with their ordinal and reason; the root is Ok and partial unless a
// failure outside every absorbed child subtree fails it. The rule table parallels
// "reduce: expansion state x member outcomes" in test_transitions.cpp.
#include <array>
#include <catch2/catch_test_macros.hpp>
#include <mutex>

#include "rop/runtime/pipeline_main.h"
#include "rop/runtime/transitions.h"
#include "runtime_test_util.h"
#include "test_pipeline_main_demo.h"

using namespace rop::runtime;
using namespace rop::runtime::test;

namespace {

constexpr std::array<Outcome, 5> kAll = {Outcome::Unresolved, Outcome::Present, Outcome::Dropped,
                                         Outcome::Failed, Outcome::Suppressed};

const std::vector<std::pair<std::uint32_t, std::uint32_t>> kShapes = {{1, 1}, {3, 1}, {8, 1},
                                                                      {1, 4}, {3, 4}, {8, 4}};

CallOptions skip_opts(std::uint32_t batch, std::uint32_t actors) {
    CallOptions o = opts(batch, actors);
    o.on_failure = OnFailure::Skip;
    return o;
}

// "v=500,501 o=0,1 s=2:reason" for a group.
std::string describe(const ReduceGroup& group) {
    std::string s = "v=";
    for (std::size_t i = 0; i < group.values.size(); ++i) {
        s += (i ? "," : "") + std::to_string(group.values[i].get<long>());
    }
    s += " o=";
    for (std::size_t i = 0; i < group.ordinals.size(); ++i) {
        s += (i ? "," : "") + std::to_string(group.ordinals[i]);
    }
    s += " s=";
    for (std::size_t i = 0; i < group.skipped.size(); ++i) {
        s += (i ? "," : "") + std::to_string(group.skipped[i].ordinal) + ":" +
             group.skipped[i].reason;
    }
    return s;
}

// What the reduce UDF saw, by root ordinal (Doc is the root Domain).
struct Seen {
    std::mutex mutex;
    std::map<std::uint32_t, std::string> groups;
};

// Doc(x) -> x % 10 pages valued 100x+i -> "read" (page 100x+2 fails when x >= 50: "unreadable
// page"; a GroupFailure when x >= 80) -> "assemble" (reduce with on_failure skip: the sum).
// "title" (a root-Domain map) fails when x % 10 == 7, outside the reduce's subtree.
struct Document {
    Plan plan;
    PortId total = 0;
    PortId title = 0;
    Document(std::uint32_t cap, std::uint32_t actors, Seen& seen) {
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        const PortId src = b.source("src");
        const PortId pages = b.add_port("pages", page);
        const PortId read = b.add_port("read", page);
        total = b.add_port("total", doc);
        title = b.add_port("title", doc);
        const CallOptions o = opts(cap, actors);
        b.add_call({"split",
                    CallKind::Expand,
                    doc,
                    {{src}},
                    {pages},
                    o,
                    expand_int([](long x) { return x % 10; },
                               [](long x, long i) { return 100 * x + i; })});
        b.add_call({"read", CallKind::Map, page, {{pages}}, {read}, o, actor([](Batch& batch) {
                        for (std::size_t g = 0; g < batch.size(); ++g) {
                            const long v = batch.input(g, 0).get<long>();
                            const long x = v / 100;
                            if (x >= 50 && v % 100 == 2) {
                                if (x >= 80) {
                                    batch.fail_group(g, "torn binding");
                                } else {
                                    batch.fail_record(g, "unreadable page");
                                }
                            } else {
                                batch.set_output(g, 0, Value::of<long>(v));
                            }
                        }
                    })});
        b.add_call({"assemble",
                    CallKind::Reduce,
                    doc,
                    {{read}},
                    {total},
                    skip_opts(cap, actors),
                    actor([&seen](Batch& batch) {
                        for (std::size_t g = 0; g < batch.size(); ++g) {
                            const auto& group = batch.input(g, 0).get<ReduceGroup>();
                            long s = 0;
                            for (const Value& v : group.values) s += v.get<long>();
                            {
                                std::lock_guard lock(seen.mutex);
                                seen.groups[batch.info(g).ordinal] = describe(group);
                            }
                            batch.set_output(g, 0, Value::of<long>(s));
                        }
                    })});
        b.add_call({"title", CallKind::Map, doc, {{src}}, {title}, o, actor([](Batch& batch) {
                        for (std::size_t g = 0; g < batch.size(); ++g) {
                            const long x = batch.input(g, 0).get<long>();
                            if (x % 10 == 7) {
                                batch.fail_record(g, "no title");
                            } else {
                                batch.set_output(g, 0, Value::of<long>(x));
                            }
                        }
                    })});
        plan = b.build();
    }
};

}  // namespace

TEST_CASE("reduce on_failure skip: expansion state x member outcomes", "[runtime][transitions]") {
    using RV = ReduceVerdict;
    const std::array<ExpansionState, 4> states = {ExpansionState::Pending,
                                                  ExpansionState::Succeeded,
                                                  ExpansionState::Dropped, ExpansionState::Failed};
    std::vector<std::vector<Outcome>> lists = {{}};
    for (Outcome a : kAll) {
        lists.push_back({a});
        for (Outcome b : kAll) lists.push_back({a, b});
    }
    int rows = 0;
    for (ExpansionState st : states) {
        for (const auto& members : lists) {
            // Skip is about members only: the Expansion rules are those of suppress.
            RV expected;
            if (st == ExpansionState::Pending) {
                expected = RV::Wait;
            } else if (st == ExpansionState::Dropped) {
                expected = RV::Drop;
            } else if (st == ExpansionState::Failed) {
                expected = RV::Suppress;
            } else {
                bool wait = false;
                for (Outcome m : members) wait = wait || m == Outcome::Unresolved;
                expected = wait ? RV::Wait : RV::Run;  // FAILED/SUPPRESSED members: skipped
            }
            CAPTURE(to_string(st), members.size());
            CHECK(reduce_verdict(st, members, OnFailure::Skip) == expected);
            CHECK(reduce_verdict(st, members, OnFailure::Suppress) == reduce_verdict(st, members));
            ++rows;
        }
    }
    CHECK(rows == 4 * 31);
    for (Outcome m : kAll) {
        CAPTURE(to_string(m));
        CHECK(reduce_skips(m, OnFailure::Skip) ==
              (m == Outcome::Failed || m == Outcome::Suppressed));
        CHECK_FALSE(reduce_skips(m, OnFailure::Suppress));
    }
    const std::vector<Outcome> all_failed = {Outcome::Failed, Outcome::Suppressed};
    CHECK(reduce_verdict(ExpansionState::Succeeded, all_failed, OnFailure::Skip) == RV::Run);
    CHECK(reduce_verdict(ExpansionState::Succeeded, all_failed, OnFailure::Suppress) ==
          RV::Suppress);
}

TEST_CASE("reduce on_failure skip: a document with one unreadable page", "[runtime][reduce]") {
    for (auto [batch, actors] : kShapes) {
        CAPTURE(batch, actors);
        Seen seen;
        Document d(batch, actors, seen);
        // root0: 5 pages, page 2 unreadable; root1: fine; root2: page 2 unreadable and no
        // title; root3: a GroupFailure on page 2.
        VecSource source({55, 5, 57, 84});
        Recorder rec;
        RunOptions options;
        options.observer = &rec;
        const RunReport report = run(d.plan, source, options);
        CHECK_FALSE(rec.duplicate);
        CHECK(seen.groups[0] == "v=5500,5501,5503,5504 o=0,1,3,4 s=2:unreadable page");
        CHECK(seen.groups[1] == "v=500,501,502,503,504 o=0,1,2,3,4 s=");
        CHECK(seen.groups[2] ==
              "v=5700,5701,5703,5704,5705,5706 o=0,1,3,4,5,6 s=2:unreadable page");

        REQUIRE(report.roots.size() == 4);
        const RootResult& partial = report.roots[0];
        CHECK(partial.status == RootStatus::Ok);
        CHECK(partial.partial);
        REQUIRE(partial.skipped.size() == 1);
        CHECK(partial.skipped[0].call == "assemble");
        CHECK(partial.skipped[0].ordinal == 2);
        CHECK(partial.skipped[0].reason == "unreadable page");
        CHECK(partial.reason.empty());

        CHECK(report.roots[1].status == RootStatus::Ok);
        CHECK_FALSE(report.roots[1].partial);
        CHECK(report.roots[1].skipped.empty());

        // A failure outside the reduce's subtree still fails the root, with its own reason.
        const RootResult& failed = report.roots[2];
        CHECK(failed.status == RootStatus::Failed);
        CHECK(failed.failed_call == "title");
        CHECK(failed.reason == "no title");
        CHECK_FALSE(failed.partial);
        CHECK(failed.skipped.size() == 1);

        // A GroupFailure fails the whole group even under skip: folding the siblings that
        // committed before the barrier would make the result depend on timing.
        const RootResult& group = report.roots[3];
        CHECK(group.status == RootStatus::Failed);
        CHECK(group.failed_call == "read");
        CHECK(group.reason == "torn binding");
        CHECK_FALSE(group.partial);
        CHECK(group.skipped.empty());
        CHECK(seen.groups.count(3) == 0);
        CHECK(rec.of(d.total) ==
              std::multiset<std::string>{"22008", "2510", "34219", "SUPPRESSED"});

        std::uint64_t skipped = 0;
        for (const CallCounters& c : report.calls) {
            if (c.name == "assemble") skipped = c.skipped_members;
        }
        CHECK(skipped == 2);
        const std::string json = report.to_json();
        CHECK(json.find("\"partial\": true") != std::string::npos);
        CHECK(json.find("\"reason\": \"unreadable page\"") != std::string::npos);
        CHECK(json.find("\"skipped_members\": " + std::to_string(skipped)) != std::string::npos);
    }
}

TEST_CASE("reduce on_failure skip: a member suppressed from above is skipped as 'suppressed'",
          "[runtime][reduce]") {
    // The title fails at the Doc; broadcast to every page, it suppresses each page's map. The
    // pages are skipped with no failure of their own ("suppressed"), and the Doc's failure is
    // outside every skipped child, so the root is Failed.
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const DomainId page = b.add_domain("Page", doc);
    const PortId src = b.source("src");
    const PortId pages = b.add_port("pages", page);
    const PortId title = b.add_port("title", doc);
    const PortId hint = b.add_port("hint", page);
    const PortId noted = b.add_port("noted", page);
    const PortId all = b.add_port("all", doc);
    b.add_call({"split",
                CallKind::Expand,
                doc,
                {{src}},
                {pages},
                opts(1, 1),
                expand_int([](long x) { return x; }, [](long, long i) { return i; })});
    b.add_call({"title", CallKind::Map, doc, {{src}}, {title}, opts(1, 1), actor([](Batch& bt) {
                    for (std::size_t g = 0; g < bt.size(); ++g) bt.fail_record(g, "no title");
                })});
    b.add_call({"hint", CallKind::Broadcast, page, {{title}}, {hint}, opts(1, 1), {}});
    b.add_call(
        {"note", CallKind::Map, page, {{pages}, {hint}}, {noted}, opts(1, 1), actor([](Batch& bt) {
             for (std::size_t g = 0; g < bt.size(); ++g) bt.set_output(g, 0, bt.input(g, 0));
         })});
    b.add_call({"collect", CallKind::Reduce, doc, {{noted}}, {all}, skip_opts(1, 1), {}});
    const Plan plan = b.build();
    VecSource source({2});
    const RunReport report = run(plan, source, {});
    REQUIRE(report.roots.size() == 1);
    const RootResult& root = report.roots[0];
    CHECK(root.status == RootStatus::Failed);
    CHECK(root.failed_call == "title");
    CHECK(root.reason == "no title");
    CHECK_FALSE(root.partial);
    REQUIRE(root.skipped.size() == 2);
    CHECK(root.skipped[0].ordinal == 0);
    CHECK(root.skipped[0].reason == "suppressed");
    CHECK(root.skipped[1].ordinal == 1);
    CHECK(root.skipped[1].reason == "suppressed");
}

TEST_CASE("reduce on_failure skip: a reduce without a UDF lists the skipped members",
          "[runtime][reduce]") {
    for (auto [cap, actors] : kShapes) {
        CAPTURE(cap, actors);
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        const PortId src = b.source("src");
        const PortId pages = b.add_port("pages", page);
        const PortId read = b.add_port("read", page);
        const PortId all = b.add_port("all", doc);
        b.add_call({"split",
                    CallKind::Expand,
                    doc,
                    {{src}},
                    {pages},
                    opts(cap, actors),
                    expand_int([](long x) { return x; }, [](long, long i) { return i; })});
        b.add_call({"read",
                    CallKind::Map,
                    page,
                    {{pages}},
                    {read},
                    opts(cap, actors),
                    actor([](Batch& batch) {
                        for (std::size_t g = 0; g < batch.size(); ++g) {
                            if (batch.input(g, 0).get<long>() == 1) {
                                batch.fail_record(g, "bad");
                            } else {
                                batch.set_output(g, 0, batch.input(g, 0));
                            }
                        }
                    })});
        b.add_call({"collect", CallKind::Reduce, doc, {{read}}, {all}, skip_opts(cap, actors), {}});
        const Plan plan = b.build();
        std::vector<std::string> groups;
        RunOptions options;
        options.sinks = {{all, [&](EntityId, const Value& v) {
                              groups.push_back(describe(v.get<ReduceGroup>()));
                          }}};
        VecSource source({3});
        const RunReport report = run(plan, source, options);
        CHECK(groups == std::vector<std::string>{"v=0,2 o=0,2 s=1:bad"});
        REQUIRE(report.roots.size() == 1);
        CHECK(report.roots[0].status == RootStatus::Ok);
        CHECK(report.roots[0].partial);
    }
}

TEST_CASE("reduce on_failure skip: a suppress-reduce over the same children keeps the failure",
          "[runtime][reduce]") {
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const DomainId page = b.add_domain("Page", doc);
    const PortId src = b.source("src");
    const PortId pages = b.add_port("pages", page);
    const PortId read = b.add_port("read", page);
    const PortId lenient = b.add_port("lenient", doc);
    const PortId strict = b.add_port("strict", doc);
    b.add_call({"split",
                CallKind::Expand,
                doc,
                {{src}},
                {pages},
                opts(1, 1),
                expand_int([](long x) { return x; }, [](long, long i) { return i; })});
    b.add_call({"read", CallKind::Map, page, {{pages}}, {read}, opts(1, 1), actor([](Batch& batch) {
                    for (std::size_t g = 0; g < batch.size(); ++g) {
                        if (batch.input(g, 0).get<long>() == 1) {
                            batch.fail_record(g, "bad");
                        } else {
                            batch.set_output(g, 0, batch.input(g, 0));
                        }
                    }
                })});
    b.add_call({"lenient", CallKind::Reduce, doc, {{read}}, {lenient}, skip_opts(1, 1), {}});
    b.add_call({"strict", CallKind::Reduce, doc, {{read}}, {strict}, opts(1, 1), {}});
    const Plan plan = b.build();
    VecSource source({3, 1});
    Recorder rec;
    RunOptions options;
    options.observer = &rec;
    const RunReport report = run(plan, source, options);
    CHECK(rec.of(lenient) == std::multiset<std::string>{"[0:0,2:2]", "[0:0]"});
    CHECK(rec.of(strict) == std::multiset<std::string>{"SUPPRESSED", "[0:0]"});
    REQUIRE(report.roots.size() == 2);
    CHECK(report.roots[0].status == RootStatus::Failed);  // "strict" lost its output
    CHECK(report.roots[0].reason == "bad");
    CHECK_FALSE(report.roots[0].partial);
    CHECK(report.roots[1].status == RootStatus::Ok);
}

TEST_CASE("reduce on_failure skip: a failure deeper down gives the skipped child its reason",
          "[runtime][reduce]") {
    // Doc -> Page -> Line; lines reduce to pages (suppress: a bad line suppresses its page),
    // pages reduce to the Doc with skip: the page is skipped with the line's reason.
    PlanBuilder b;
    const DomainId doc = b.add_domain("Doc");
    const DomainId page = b.add_domain("Page", doc);
    const DomainId line = b.add_domain("Line", page);
    const PortId src = b.source("src");
    const PortId pages = b.add_port("pages", page);
    const PortId lines = b.add_port("lines", line);
    const PortId read = b.add_port("read", line);
    const PortId page_text = b.add_port("page_text", page);
    const PortId doc_text = b.add_port("doc_text", doc);
    b.add_call({"split",
                CallKind::Expand,
                doc,
                {{src}},
                {pages},
                opts(1, 1),
                expand_int([](long x) { return x; }, [](long, long i) { return 10 * i; })});
    b.add_call({"lines",
                CallKind::Expand,
                page,
                {{pages}},
                {lines},
                opts(1, 1),
                expand_int([](long) { return 2; }, [](long p, long i) { return p + i; })});
    b.add_call({"read", CallKind::Map, line, {{lines}}, {read}, opts(1, 1), actor([](Batch& batch) {
                    for (std::size_t g = 0; g < batch.size(); ++g) {
                        if (batch.input(g, 0).get<long>() == 11) {
                            batch.fail_record(g, "smudged line");
                        } else {
                            batch.set_output(g, 0, batch.input(g, 0));
                        }
                    }
                })});
    b.add_call({"page", CallKind::Reduce, page, {{read}}, {page_text}, opts(1, 1), sum_group()});
    b.add_call({"doc", CallKind::Reduce, doc, {{page_text}}, {doc_text}, skip_opts(1, 1), {}});
    const Plan plan = b.build();
    VecSource source({3});
    Recorder rec;
    RunOptions options;
    options.observer = &rec;
    const RunReport report = run(plan, source, options);
    CHECK(rec.of(doc_text) == std::multiset<std::string>{"[0:1,2:41]"});
    REQUIRE(report.roots.size() == 1);
    CHECK(report.roots[0].status == RootStatus::Ok);
    CHECK(report.roots[0].partial);
    REQUIRE(report.roots[0].skipped.size() == 1);
    CHECK(report.roots[0].skipped[0].call == "doc");
    CHECK(report.roots[0].skipped[0].ordinal == 1);
    CHECK(report.roots[0].skipped[0].reason == "smudged line");
}

TEST_CASE("reduce on_failure skip: --set CALL.on_failure on a reduce only", "[runtime][cli]") {
    DemoSinks sinks;
    const PipelineDefinition def = demo_definition(sinks);
    auto parse = [&](std::vector<std::string> args) {
        Argv a(std::move(args));
        return parse_pipeline_args(a.argc(), a.argv(), def);
    };
    auto options_of = [](const ParsedArgs& args, const std::string& call) {
        for (const CallSpec& c : args.plan.calls) {
            if (c.name == call) return c.options;
        }
        FAIL("no call " << call);
        return CallOptions{};
    };
    const ParseOutcome plain = parse({});
    REQUIRE(plain.args);
    CHECK(options_of(*plain.args, "sum").on_failure == OnFailure::Suppress);
    const ParseOutcome skip = parse({"--set", "sum.on_failure=skip"});
    REQUIRE(skip.args);
    CHECK(options_of(*skip.args, "sum").on_failure == OnFailure::Skip);
    CHECK(options_of(*skip.args, "m").on_failure == OnFailure::Suppress);

    const ParseOutcome on_map = parse({"--set", "m.on_failure=skip"});
    CHECK_FALSE(on_map.args);
    CHECK(on_map.error == "--set m.on_failure: only a reduce takes on_failure");
    const ParseOutcome typo = parse({"--set", "sum.on_failure=skp"});
    CHECK_FALSE(typo.args);
    CHECK(typo.error == "--set sum.on_failure: unknown value 'skp'; did you mean 'skip'?");
}
