// The oracle checked by hand: small plans whose every Item was worked out from SEMANTICS.md.
#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <memory>
#include <stdexcept>

#include "reference/hand_plans.h"
#include "reference/interpreter.h"

using namespace rop::runtime;
using namespace rop::runtime::reference;
using namespace rop::runtime::reference::hand;

TEST_CASE("reference: expand -> map -> filter -> reduce in ordinal order", "[runtime][random]") {
    PlanBuilder b;
    DomainId doc = b.add_domain("Doc");
    PortId src = b.source("src");
    DomainId page = b.add_domain("Page", doc);
    PortId pages = b.add_port("pages", page), doubled = b.add_port("doubled", page);
    PortId kept = b.add_port("kept", page), grouped = b.add_port("grouped", doc);
    b.add_call(call("split", CallKind::Expand, doc, {{src}}, {pages},
                    expand([](auto x) { return x / 10; }, [](auto x, auto i) { return x + i; })));
    b.add_call(call("double", CallKind::Map, page, {{pages}}, {doubled},
                    map1([](auto x) { return 2 * x; })));
    b.add_call(call("keep", CallKind::Filter, page, {{doubled}}, {kept},
                    keep_where([](auto x) { return x % 4 == 0; })));
    b.add_call(call("collect", CallKind::Reduce, doc, {{kept}}, {grouped}));
    Plan plan = b.build();
    RefRun run = interpret(plan, roots({10, 20, 5}));

    CHECK(at(run, pages, {1, 1}) == present("21"));
    CHECK(at(run, doubled, {1, 1}) == present("42"));
    CHECK(at(run, kept, {1, 0}) == present("40"));
    CHECK(at(run, kept, {1, 1}) == kDropped);
    CHECK(at(run, grouped, {0}) == present("[0:20]"));
    CHECK(at(run, grouped, {1}) == present("[0:40]"));  // the DROPPED child is left out
    CHECK(at(run, grouped, {2}) == present("[]"));      // empty expansion: PRESENT empty group
    CHECK(at(run, pages, {2, 0}) == kAbsent);
    CHECK(run.items.size() == 3 + 3 * 3 + 3);
    CHECK(run.roots == std::vector<RootStatus>{RootStatus::Ok, RootStatus::Ok, RootStatus::Ok});
    CHECK(run.barriers.empty());
}

namespace {

// Ports whose Items over children 0..15 take the outcomes PRESENT, DROPPED, FAILED, SUPPRESSED
// by `pick(child)` = 0, 1, 2, 3: fail where 3 (then suppressed downstream), fail where 2, drop 1.
PortId four_outcomes(PlanBuilder& b, DomainId page, PortId children, const std::string& name,
                     std::int64_t (*pick)(std::int64_t)) {
    PortId pre = b.add_port(name + "_pre", page), mid = b.add_port(name + "_mid", page);
    PortId out = b.add_port(name, page);
    b.add_call(call(name + "_pre", CallKind::Map, page, {{children}}, {pre},
                    fail_where([pick](auto x) { return pick(x) == 3; })));
    b.add_call(call(name + "_mid", CallKind::Map, page, {{pre}}, {mid},
                    fail_where([pick](auto x) { return pick(x) == 2; })));
    b.add_call(call(name, CallKind::Filter, page, {{mid}}, {out},
                    keep_where([pick](auto x) { return pick(x) != 1; })));
    return out;
}

const Outcome kFour[] = {Outcome::Present, Outcome::Dropped, Outcome::Failed, Outcome::Suppressed};

// SEMANTICS.md input algebra, written as a table lookup independent of the interpreter.
ItemFact combine(std::int64_t x, std::int64_t y, InputMode xm, InputMode ym) {
    Outcome ox = kFour[x % 4], oy = kFour[y / 4];
    auto bad = [](Outcome o) { return o == Outcome::Failed || o == Outcome::Suppressed; };
    if (bad(ox) || bad(oy)) return kSuppressed;
    if ((ox == Outcome::Dropped && xm == InputMode::Required) ||
        (oy == Outcome::Dropped && ym == InputMode::Required))
        return kDropped;
    std::int64_t xv = ox == Outcome::Dropped ? 99 : x, yv = oy == Outcome::Dropped ? 99 : y;
    return present(std::to_string(xv * 100 + yv));
}

}  // namespace

TEST_CASE("reference: input algebra, required/optional x four outcomes", "[runtime][random]") {
    PlanBuilder b;
    DomainId doc = b.add_domain("Doc");
    PortId src = b.source("src");
    DomainId page = b.add_domain("Page", doc);
    PortId kids = b.add_port("kids", page);
    b.add_call(call("split", CallKind::Expand, doc, {{src}}, {kids},
                    expand([](auto) { return 16; }, [](auto, auto i) { return i; })));
    PortId x = four_outcomes(b, page, kids, "x", [](std::int64_t v) { return v % 4; });
    PortId y = four_outcomes(b, page, kids, "y", [](std::int64_t v) { return v / 4; });
    const InputMode R = InputMode::Required, O = InputMode::Optional;
    const InputMode modes[][2] = {{R, R}, {R, O}, {O, R}, {O, O}};
    std::vector<PortId> outs;
    for (const auto& m : modes) {
        outs.push_back(b.add_port("z", page));
        b.add_call(call("z", CallKind::Map, page, {{x, m[0]}, {y, m[1]}}, {outs.back()},
                        per_grain([](Batch& bt, std::size_t g) {
                            const Value &a = bt.input(g, 0), &c = bt.input(g, 1);
                            std::int64_t av = a ? a.get<std::int64_t>() : 99;
                            std::int64_t cv = c ? c.get<std::int64_t>() : 99;
                            bt.set_output(g, 0, I(av * 100 + cv));
                        })));
    }
    PortId grouped = b.add_port("grouped", doc);
    b.add_call(call("collect", CallKind::Reduce, doc, {{outs[0]}}, {grouped}));
    Plan plan = b.build();
    RefRun run = interpret(plan, roots({0}));

    for (std::size_t m = 0; m < 4; ++m)
        for (std::int64_t child = 0; child < 16; ++child) {
            INFO("modes " << m << " child " << child);
            CHECK(at(run, outs[m], {0, std::uint32_t(child)}) ==
                  combine(child, child, modes[m][0], modes[m][1]));
        }
    CHECK(at(run, x, {0, 1}) == kDropped);     // filter: predicate false
    CHECK(at(run, x, {0, 2}) == kFailed);      // filter: propagates FAILED
    CHECK(at(run, x, {0, 3}) == kSuppressed);  // filter: propagates SUPPRESSED
    CHECK(at(run, grouped, {0}) == kSuppressed);
    CHECK(run.roots == std::vector<RootStatus>{RootStatus::Failed});
}

TEST_CASE("reference: broadcast and expand over four upstream outcomes", "[runtime][random]") {
    PlanBuilder b;
    DomainId doc = b.add_domain("Doc");
    PortId src = b.source("src");
    DomainId page = b.add_domain("Page", doc), part = b.add_domain("Part", doc);
    DomainId none = b.add_domain("None", doc);
    PortId pre = b.add_port("pre", doc), mid = b.add_port("mid", doc), r = b.add_port("r", doc);
    b.add_call(
        call("pre", CallKind::Map, doc, {{src}}, {pre}, fail_where([](auto v) { return v == 3; })));
    b.add_call(
        call("mid", CallKind::Map, doc, {{pre}}, {mid}, fail_where([](auto v) { return v == 2; })));
    b.add_call(
        call("r", CallKind::Filter, doc, {{mid}}, {r}, keep_where([](auto v) { return v != 1; })));
    PortId pages = b.add_port("pages", page), bc = b.add_port("bc", page);
    b.add_call(call("pages", CallKind::Expand, doc, {{src}}, {pages},
                    expand([](auto) { return 2; }, [](auto x, auto i) { return 10 * x + i; })));
    b.add_call(call("bc", CallKind::Broadcast, page, {{r}}, {bc}));
    PortId parts = b.add_port("parts", part), partg = b.add_port("partg", doc);
    b.add_call(call("parts", CallKind::Expand, doc, {{r}}, {parts},
                    expand([](auto x) { return x + 1; }, [](auto x, auto i) { return x + i; })));
    b.add_call(call("partg", CallKind::Reduce, doc, {{parts}}, {partg}));
    PortId nothing = b.add_port("nothing", none), noneg = b.add_port("noneg", doc);
    b.add_call(call("none", CallKind::Expand, doc, {{src}}, {nothing},
                    expand([](auto) { return 0; }, [](auto, auto i) { return i; })));
    b.add_call(call("noneg", CallKind::Reduce, doc, {{nothing}}, {noneg}));
    Plan plan = b.build();
    RefRun run = interpret(plan, roots({0, 1, 2, 3}));

    CHECK(at(run, bc, {0, 1}) == present("0"));  // the ancestor's value, to every child
    CHECK(at(run, bc, {1, 0}) == kDropped);
    CHECK(at(run, bc, {2, 1}) == kFailed);
    CHECK(at(run, bc, {3, 0}) == kSuppressed);
    CHECK(at(run, partg, {0}) == present("[0:0]"));
    CHECK(at(run, partg, {1}) == kDropped);     // source DROPPED -> Expansion DROPPED
    CHECK(at(run, partg, {2}) == kSuppressed);  // source FAILED -> Expansion FAILED
    CHECK(at(run, partg, {3}) == kSuppressed);
    CHECK(at(run, parts, {1, 0}) == kAbsent);  // children only from success
    CHECK(at(run, noneg, {2}) == present("[]"));
    CHECK(run.roots == std::vector<RootStatus>{RootStatus::Ok, RootStatus::Ok, RootStatus::Failed,
                                               RootStatus::Failed});
}

TEST_CASE("reference: a root with no PRESENT result is Dropped", "[runtime][random]") {
    PlanBuilder b;
    DomainId doc = b.add_domain("Doc");
    PortId src = b.source("src"), kept = b.add_port("kept", doc);
    b.add_call(call("keep", CallKind::Filter, doc, {{src}}, {kept},
                    keep_where([](auto v) { return v > 0; })));
    Plan plan = b.build();
    RefRun run = interpret(plan, roots({0, 1}));
    CHECK(run.roots == std::vector<RootStatus>{RootStatus::Dropped, RootStatus::Ok});
}

TEST_CASE("reference: GroupFailure barrier per (Call, direct parent)", "[runtime][random]") {
    PlanBuilder b;
    DomainId doc = b.add_domain("Doc");
    PortId src = b.source("src");
    DomainId page = b.add_domain("Page", doc);
    PortId pages = b.add_port("pages", page), g = b.add_port("g", page);
    PortId grouped = b.add_port("grouped", doc);
    b.add_call(call("split", CallKind::Expand, doc, {{src}}, {pages},
                    expand([](auto x) { return x; }, [](auto, auto i) { return i; })));
    CallId gcall = b.add_call(call("g", CallKind::Map, page, {{pages}}, {g},
                                   fail_where([](auto v) { return v == 2; }, true)));
    b.add_call(call("collect", CallKind::Reduce, doc, {{g}}, {grouped}));
    Plan plan = b.build();

    SECTION("sequential schedule: lower ordinals commit, later siblings are suppressed") {
        RefRun run = interpret(plan, roots({5, 2}));
        CHECK(at(run, g, {0, 1}) == present("1"));
        CHECK(at(run, g, {0, 2}) == kFailed);
        CHECK(at(run, g, {0, 3}) == kSuppressed);
        CHECK(at(run, g, {0, 4}) == kSuppressed);
        CHECK(at(run, grouped, {0}) == kSuppressed);
        CHECK(at(run, grouped, {1}) == present("[0:0 1:1]"));  // another parent: untouched
        REQUIRE(run.barriers.size() == 1);
        CHECK(run.barriers[0] == BarrierGroup{gcall, {0}, {3, 4}});
        CHECK(run.roots == std::vector<RootStatus>{RootStatus::Failed, RootStatus::Ok});
        CHECK(run.illegal_choices.empty());
    }
    SECTION("a chooser where every sibling committed before the barrier") {
        RefRun run = interpret(plan, roots({5}), [](CallId, const EntityPath&, std::size_t) {
            return Choice::committed();
        });
        CHECK(at(run, g, {0, 4}) == present("4"));
        CHECK(at(run, grouped, {0}) == kSuppressed);
        CHECK(run.illegal_choices.empty());
    }
    SECTION("suppressing the only GroupFailure is a schedule no runtime can produce") {
        RefRun run = interpret(plan, roots({5}), [](CallId, const EntityPath&, std::size_t) {
            return Choice::suppressed();
        });
        CHECK(run.illegal_choices.size() == 1);
    }
}

TEST_CASE("reference: an expand fenced after streaming dooms its subtree", "[runtime][random]") {
    PlanBuilder b;
    DomainId doc = b.add_domain("Doc");
    PortId src = b.source("src");
    DomainId page = b.add_domain("Page", doc), line = b.add_domain("Line", page);
    PortId pages = b.add_port("pages", page), lines = b.add_port("lines", line);
    PortId mapped = b.add_port("mapped", line), bc = b.add_port("bc", line);
    PortId per_page = b.add_port("per_page", page), per_doc = b.add_port("per_doc", doc);
    b.add_call(call("split", CallKind::Expand, doc, {{src}}, {pages},
                    expand([](auto) { return 3; }, [](auto, auto i) { return i; })));
    // Page 1 raises a GroupFailure; pages 0 and 2 each emit 3 lines.
    CallId lines_call = b.add_call(call("lines", CallKind::Expand, page, {{pages}}, {lines},
                                        per_grain([](Batch& bt, std::size_t g) {
                                            if (in(bt, g) == 1) return bt.fail_group(g, "bad page");
                                            for (int i = 0; i < 3; ++i)
                                                bt.emit_child(g, I(10 * in(bt, g) + i));
                                        })));
    CallId map_call = b.add_call(
        call("inc", CallKind::Map, line, {{lines}}, {mapped}, map1([](auto x) { return x + 1; })));
    b.add_call(call("bc", CallKind::Broadcast, line, {{pages}}, {bc}));
    b.add_call(call("per_page", CallKind::Reduce, page, {{mapped}}, {per_page}));
    b.add_call(call("per_doc", CallKind::Reduce, doc, {{per_page}}, {per_doc}));
    Plan plan = b.build();
    // Page 2 streamed 2 of its 3 lines before its commit was fenced; of its doomed subtree,
    // line 2.0's map committed before the doom and line 2.1's was suppressed.
    std::size_t asked_for_map = 0;
    RefRun run = interpret(
        plan, roots({0}), [&](CallId c, const EntityPath& p, std::size_t natural) -> Choice {
            if (c == map_call) {
                ++asked_for_map;
                return p.back() == 0 ? Choice::committed() : Choice::suppressed();
            }
            CHECK(c == lines_call);
            CHECK(natural == (p.back() == 1 ? 0u : 3u));
            return p.back() == 2 ? Choice::streamed_then_fenced(2) : Choice::committed();
        });
    CHECK(run.illegal_choices.empty());
    CHECK(run.fenced_streams == 1);
    CHECK(asked_for_map == 2);  // only the doomed lines 2.0 and 2.1 depend on the schedule
    CHECK(at(run, lines, {0, 2, 1}) == present("21"));
    CHECK(at(run, lines, {0, 2, 2}) == kAbsent);
    CHECK(at(run, mapped, {0, 2, 0}) == present("21"));
    CHECK(at(run, mapped, {0, 2, 1}) == kSuppressed);
    CHECK(at(run, bc, {0, 2, 1}) == present("2"));  // no UDF: not work, not doomed
    CHECK(at(run, per_page, {0, 0}) == present("[0:1 1:2 2:3]"));
    CHECK(at(run, per_page, {0, 1}) == kSuppressed);  // Expansion FAILED
    CHECK(at(run, per_page, {0, 2}) == kSuppressed);  // Expansion FAILED after streaming
    CHECK(at(run, per_doc, {0}) == kSuppressed);
}

namespace {

// Throws `Error` on the first `failures` calls, then passes its input through.
template <class Error>
ActorFactory flaky(std::shared_ptr<std::atomic<int>> failures) {
    return per_grain([failures](Batch& b, std::size_t g) {
        if (failures->fetch_sub(1) > 0) throw Error("injected");
        b.set_output(g, 0, I(in(b, g)));
    });
}

RefRun one_call(ActorFactory factory, CallOptions options) {
    PlanBuilder b;
    DomainId doc = b.add_domain("Doc");
    PortId src = b.source("src"), out = b.add_port("out", doc);
    b.add_call(call("f", CallKind::Map, doc, {{src}}, {out}, std::move(factory), options));
    Plan plan = b.build();
    return interpret(plan, roots({7}));
}

}  // namespace

TEST_CASE("reference: recovery policies on one-Grain batches", "[runtime][random]") {
    auto count = [](int n) { return std::make_shared<std::atomic<int>>(n); };
    CallOptions retry{.recovery = Recovery::RetryBatch, .retries = 1};
    CallOptions isolate{.recovery = Recovery::IsolateTail, .retries = 2};
    CHECK(one_call(flaky<std::runtime_error>(count(1)), retry).items.at({1, {0}}) == present("7"));
    RefRun poisoned = one_call(flaky<std::runtime_error>(count(1000)), isolate);
    CHECK(poisoned.items.at({1, {0}}) == kFailed);
    CHECK(poisoned.roots == std::vector<RootStatus>{RootStatus::Failed});
    CHECK(one_call(flaky<std::runtime_error>(count(1)), CallOptions{.recovery = Recovery::Abort})
              .aborted);
    // The default isolates (SEMANTICS.md): the failing Grain fails alone, nothing aborts.
    RefRun by_default = one_call(flaky<std::runtime_error>(count(1000)), CallOptions{});
    CHECK_FALSE(by_default.aborted);
    CHECK(by_default.roots == std::vector<RootStatus>{RootStatus::Failed});
    CallOptions infra{.infra_retries = 2};
    CHECK(one_call(flaky<InfraFailure>(count(2)), infra).items.at({1, {0}}) == present("7"));
    CHECK(one_call(flaky<InfraFailure>(count(3)), infra).aborted);
    CHECK(one_call(flaky<RecordFailure>(count(1)), infra).items.at({1, {0}}) == kFailed);
}

TEST_CASE("reference: multi-output all or nothing; reduce UDF sees ordinals", "[runtime][random]") {
    PlanBuilder b;
    DomainId doc = b.add_domain("Doc");
    PortId src = b.source("src");
    DomainId page = b.add_domain("Page", doc);
    PortId pages = b.add_port("pages", page), kept = b.add_port("kept", page);
    PortId o1 = b.add_port("o1", page), o2 = b.add_port("o2", page), sum = b.add_port("sum", doc);
    b.add_call(call("split", CallKind::Expand, doc, {{src}}, {pages},
                    expand([](auto x) { return x; }, [](auto, auto i) { return i; })));
    b.add_call(call("keep", CallKind::Filter, page, {{pages}}, {kept},
                    keep_where([](auto v) { return v != 1; })));
    b.add_call(call("two", CallKind::Map, page, {{kept}}, {o1, o2},
                    per_grain([](Batch& bt, std::size_t g) {
                        bt.set_output(g, 0, I(in(bt, g)));
                        if (in(bt, g) == 3) return bt.fail_record(g, "after one output");
                        bt.set_output(g, 1, I(10 * in(bt, g)));
                    })));
    b.add_call(
        call("sum", CallKind::Reduce, doc, {{kept}}, {sum}, per_grain([](Batch& bt, std::size_t g) {
                 const auto& group = bt.input(g, 0).get<ReduceGroup>();
                 std::int64_t total = 0;
                 for (std::size_t i = 0; i < group.values.size(); ++i)
                     total += 1000 * group.ordinals[i] + group.values[i].get<std::int64_t>();
                 bt.set_output(g, 0, I(total));
             })));
    Plan plan = b.build();
    RefRun run = interpret(plan, roots({4}));
    CHECK(at(run, o1, {0, 3}) == kFailed);
    CHECK(at(run, o2, {0, 3}) == kFailed);
    CHECK(at(run, o2, {0, 2}) == present("20"));
    CHECK(at(run, o1, {0, 1}) == kDropped);
    CHECK(at(run, sum, {0}) == present("5005"));  // ordinals 0, 2, 3 with values 0, 2, 3
}

TEST_CASE("reference: a root-Domain GroupFailure fails only its root", "[runtime][random]") {
    PlanBuilder b;
    DomainId doc = b.add_domain("Doc");
    PortId src = b.source("src"), out = b.add_port("out", doc);
    b.add_call(call("g", CallKind::Map, doc, {{src}}, {out},
                    fail_where([](auto v) { return v == 1; }, true)));
    Plan plan = b.build();
    RefRun run = interpret(plan, roots({0, 1, 2}));
    CHECK(at(run, out, {0}) == present("0"));
    CHECK(at(run, out, {1}) == kFailed);
    CHECK(at(run, out, {2}) == present("2"));  // roots have no direct parent: no barrier
    CHECK(run.barriers.empty());
    CHECK(run.roots == std::vector<RootStatus>{RootStatus::Ok, RootStatus::Failed, RootStatus::Ok});
}
