// The lineage store alone, without run() (issue 33 item 1): the one way a Grain moves
// (advance, checked against every phase x event pair), what a sealed Grain counts as, and the
// one rule "doomed or barred means suppressed" with the barrier's scope, each as a table. The
// other parts cannot write the store but through its operations: its views are const.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_exception.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <map>
#include <optional>
#include <type_traits>
#include <vector>

#include "core/lineage_store.h"
#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::detail;
using namespace rop::runtime::test;
using Catch::Matchers::ContainsSubstring;

namespace {

// Records what the store tells the driver.
struct Listener final : StoreListener {
    void root_item(const std::vector<std::uint32_t>&, EntityId, const Value&) override {}
    void root_complete(const RootState& root) override { done.push_back(root.result.name); }
    std::vector<std::string> done;
};

// Doc -> expand "split" (Page) -> map "m" -> map "n"; "m" has two outputs.
struct Pages {
    Plan plan;
    PortId pages = 0, a = 0, b = 0, last = 0;
    CallId split = 0, m = 0, n = 0;
    Pages() {
        PlanBuilder builder;
        const DomainId doc = builder.add_domain("Doc");
        const DomainId page = builder.add_domain("Page", doc);
        const PortId src = builder.source("src");
        pages = builder.add_port("pages", page);
        a = builder.add_port("a", page);
        b = builder.add_port("b", page);
        last = builder.add_port("last", page);
        split = builder.add_call(
            {"split",
             CallKind::Expand,
             doc,
             {{src}},
             {pages},
             opts(8, 1),
             expand_int([](long x) { return x; }, [](long, long i) { return i; })});
        m = builder.add_call(
            {"m", CallKind::Map, page, {{pages}}, {a, b}, opts(8, 1), map_int([](long x) {
                 return x;
             })});
        n = builder.add_call(
            {"n", CallKind::Map, page, {{a}}, {last}, opts(8, 1), map_int([](long x) {
                 return x;
             })});
        plan = builder.build();
    }
};

struct Store {
    Pages p;
    RunOptions options;
    Listener listener;
    LineageStore store{p.plan, options, listener};
    // A root with `children` pages, its expansion succeeded: returns the pages' local indexes.
    std::vector<std::uint32_t> root(long children, const std::string& name = "r") {
        const std::uint32_t ordinal = store.admit_root(name, Value::of<long>(children));
        const EntityId doc = store.root(ordinal).entity;
        const std::uint32_t local = store.local(doc);
        store.advance(p.split, local, GrainEvent::InputsRunnable);
        store.advance(p.split, local, GrainEvent::Reserve);
        std::vector<std::uint32_t> out;
        for (long i = 0; i < children; ++i) {
            store.add_child(p.split, local, static_cast<std::uint32_t>(i), Value::of<long>(i));
        }
        const auto& kids = store.expansion_of(p.split).children[local];
        for (EntityId kid : kids) out.push_back(store.local(kid));
        store.drain_tasks([](const Task&) {});
        return out;
    }
    std::uint32_t split_local(std::uint32_t page) const {
        return store.local(store.parent(store.entity_of(1, page)));
    }
};

// Puts `call`'s Grain `local` (WAITING) into `phase` by legal events.
void reach(LineageStore& store, CallId call, std::uint32_t local, GrainPhase phase) {
    if (phase == GrainPhase::Waiting) return;
    store.advance(call, local, GrainEvent::InputsRunnable);
    if (phase == GrainPhase::Ready) return;
    store.advance(call, local, GrainEvent::Reserve);
    if (phase == GrainPhase::InFlight) return;
    store.advance(call, local, GrainEvent::Commit, Outcome::Present);
}

}  // namespace

TEST_CASE("store: the other parts get const views of Grains and roots", "[runtime][store]") {
    Store s;
    static_assert(std::is_const_v<std::remove_reference_t<decltype(s.store.grain(0, 0))>>);
    static_assert(std::is_const_v<std::remove_reference_t<decltype(s.store.root(0))>>);
    static_assert(std::is_const_v<std::remove_reference_t<decltype(s.store.root_of(0))>>);
    static_assert(std::is_const_v<std::remove_reference_t<decltype(s.store.group(0, 0))>>);
    SUCCEED();
}

TEST_CASE("store: advance moves a Grain only by a listed transition, every pair",
          "[runtime][store]") {
    using P = GrainPhase;
    using E = GrainEvent;
    // SEMANTICS.md "Grain phases": the listed pairs; every other pair is rejected.
    const std::map<std::pair<P, E>, P> listed = {
        {{P::Waiting, E::InputsRunnable}, P::Ready}, {{P::Waiting, E::Resolve}, P::Sealed},
        {{P::Ready, E::Reserve}, P::InFlight},       {{P::Ready, E::SuppressQueued}, P::Sealed},
        {{P::InFlight, E::Commit}, P::Sealed},       {{P::InFlight, E::Recover}, P::Ready},
    };
    for (const P phase : {P::Waiting, P::Ready, P::InFlight, P::Sealed}) {
        for (const E event : {E::InputsRunnable, E::Resolve, E::Reserve, E::SuppressQueued,
                              E::Commit, E::Recover}) {
            CAPTURE(to_string(phase), to_string(event));
            Store s;
            const std::uint32_t page = s.root(2)[0];
            reach(s.store, s.p.m, page, phase);
            const GrainCell before = s.store.grain(s.p.m, page);
            const auto it = listed.find({phase, event});
            if (it == listed.end()) {
                CHECK_THROWS_MATCHES(
                    s.store.advance(s.p.m, page, event, Outcome::Suppressed), ContractError,
                    Catch::Matchers::MessageMatches(ContainsSubstring("bug: call 'm' grain") &&
                                                    ContainsSubstring(to_string(event))));
                CHECK(s.store.grain(s.p.m, page).phase == phase);  // unchanged
                continue;
            }
            const GrainCell& after = s.store.advance(s.p.m, page, event, Outcome::Suppressed);
            CHECK(after.phase == it->second);
            // Only a replay starts a new attempt: older reports are stale from then on.
            CHECK(after.generation == before.generation + (event == E::Recover ? 1 : 0));
            CHECK(s.store.is_live(s.p.m, page, before.generation) == (it->second == P::InFlight));
        }
    }
}

TEST_CASE("store: a sealing event needs the Grain's outcome", "[runtime][store]") {
    Store s;
    const std::uint32_t page = s.root(1)[0];
    reach(s.store, s.p.m, page, GrainPhase::InFlight);
    CHECK_THROWS_MATCHES(s.store.advance(s.p.m, page, GrainEvent::Commit), ContractError,
                         Catch::Matchers::MessageMatches(ContainsSubstring("without an outcome")));
}

TEST_CASE("store: what a sealed Grain counts as", "[runtime][store]") {
    struct Case {
        GrainEvent event;
        Outcome sealed;
        OutcomeCounts want;  // grains, suppressed, dropped
    };
    const std::vector<Case> cases = {
        {GrainEvent::Commit, Outcome::Present, {1, 0, 0}},     // it ran
        {GrainEvent::Commit, Outcome::Dropped, {1, 0, 1}},     // it ran: a filter said no
        {GrainEvent::Commit, Outcome::Failed, {1, 0, 0}},      // it ran and failed
        {GrainEvent::Commit, Outcome::Suppressed, {0, 1, 0}},  // discarded at commit (barrier)
        {GrainEvent::Resolve, Outcome::Present, {0, 0, 0}},    // inline: broadcast, reduce
        {GrainEvent::Resolve, Outcome::Failed, {0, 1, 0}},     // passes a FAILED input on
        {GrainEvent::Resolve, Outcome::Suppressed, {0, 1, 0}},
        {GrainEvent::Resolve, Outcome::Dropped, {0, 0, 1}},  // a required input DROPPED
        {GrainEvent::SuppressQueued, Outcome::Suppressed, {0, 1, 0}},
    };
    for (const Case& c : cases) {
        CAPTURE(to_string(c.event), to_string(c.sealed));
        Store s;
        const std::uint32_t page = s.root(1)[0];
        const GrainPhase from = c.event == GrainEvent::Commit           ? GrainPhase::InFlight
                                : c.event == GrainEvent::SuppressQueued ? GrainPhase::Ready
                                                                        : GrainPhase::Waiting;
        reach(s.store, s.p.m, page, from);
        s.store.advance(s.p.m, page, c.event, c.sealed);
        const OutcomeCounts& got = s.store.counts(s.p.m);
        CHECK(got.grains == c.want.grains);
        CHECK(got.suppressed == c.want.suppressed);
        CHECK(got.dropped == c.want.dropped);
    }
}

TEST_CASE("store: sealing without running sets every output, or the Expansion",
          "[runtime][store]") {
    for (const Outcome outcome : {Outcome::Failed, Outcome::Suppressed, Outcome::Dropped}) {
        CAPTURE(to_string(outcome));
        Store s;
        const std::uint32_t page = s.root(1)[0];
        s.store.seal_without_running(s.p.m, page, outcome, GrainEvent::Resolve);
        CHECK(s.store.outcome(s.p.a, page) == outcome);  // both outputs: all or nothing
        CHECK(s.store.outcome(s.p.b, page) == outcome);
        CHECK(s.store.grain(s.p.m, page).phase == GrainPhase::Sealed);
        // An expand's Expansion: DROPPED for a drop, FAILED otherwise.
        Store t;
        const std::uint32_t doc =
            t.store.local(t.store.root(t.store.admit_root("r", Value::of<long>(0))).entity);
        t.store.seal_without_running(t.p.split, doc, outcome, GrainEvent::Resolve);
        CHECK(t.store.expansion_of(t.p.split).state[doc] ==
              (outcome == Outcome::Dropped ? ExpansionState::Dropped : ExpansionState::Failed));
    }
}

TEST_CASE("store: doomed or barred means suppressed, and a barrier's scope is (Call, parent)",
          "[runtime][store]") {
    Store s;
    const std::vector<std::uint32_t> a = s.root(3, "a");
    const std::vector<std::uint32_t> b = s.root(3, "b");
    const EntityId a0 = s.store.entity_of(1, a[0]), a2 = s.store.entity_of(1, a[2]);
    const EntityId b0 = s.store.entity_of(1, b[0]);
    const EntityId doc_a = s.store.parent(a0);
    CHECK_FALSE(s.store.suppressed(s.p.m, a2));
    const std::uint64_t before = s.store.suppressions();
    s.store.install_barrier(s.p.m, a0);  // m's GroupFailure on a's page 0
    CHECK(s.store.suppressions() == before + 1);
    struct Case {
        const char* what;
        CallId call;
        EntityId entity;
        bool suppressed;
    };
    for (const Case& c : std::vector<Case>{
             {"a sibling, same Call", s.p.m, a2, true},
             {"the failed Grain's own entity, same Call", s.p.m, a0, true},
             {"another parent's child, same Call", s.p.m, b0, false},
             {"a sibling, another Call", s.p.n, a2, false},
             {"a root (no siblings)", s.p.split, doc_a, false},
         }) {
        CAPTURE(c.what);
        CHECK(s.store.barred(c.call, c.entity) == c.suppressed);
        CHECK(s.store.suppressed(c.call, c.entity) == c.suppressed);
    }
    // A barrier on a root-Domain Grain installs nothing: a root has no siblings.
    s.store.install_barrier(s.p.split, doc_a);
    CHECK(s.store.suppressions() == before + 1);
    // A streaming expansion that fails after emitting dooms its children, for every Call.
    Store t;
    const std::uint32_t ordinal = t.store.admit_root("c", Value::of<long>(2));
    const std::uint32_t doc = t.store.local(t.store.root(ordinal).entity);
    t.store.advance(t.p.split, doc, GrainEvent::InputsRunnable);
    t.store.advance(t.p.split, doc, GrainEvent::Reserve);
    t.store.add_child(t.p.split, doc, 0, Value::of<long>(0));
    const EntityId child = t.store.expansion_of(t.p.split).children[doc][0];
    CHECK_FALSE(t.store.suppressed(t.p.n, child));
    t.store.set_expansion(t.p.split, doc, ExpansionState::Failed);
    CHECK(t.store.doomed(child));
    CHECK(t.store.suppressed(t.p.m, child));
    CHECK(t.store.suppressed(t.p.n, child));
}

TEST_CASE("store: a root completes once its last Grain seals, and a sink may fail it",
          "[runtime][store]") {
    Store s;
    const std::vector<std::uint32_t> pages = s.root(1, "r");
    const std::uint32_t doc = s.split_local(pages[0]);
    s.store.set_expansion(s.p.split, doc, ExpansionState::Succeeded);
    s.store.advance(s.p.split, doc, GrainEvent::Commit, Outcome::Present);
    reach(s.store, s.p.m, pages[0], GrainPhase::InFlight);
    s.store.publish(s.p.a, pages[0], Outcome::Present, Value::of<long>(1));
    s.store.publish(s.p.b, pages[0], Outcome::Present, Value::of<long>(1));
    s.store.advance(s.p.m, pages[0], GrainEvent::Commit, Outcome::Present);
    CHECK(s.listener.done.empty());
    reach(s.store, s.p.n, pages[0], GrainPhase::InFlight);
    s.store.publish(s.p.last, pages[0], Outcome::Present, Value::of<long>(1));
    s.store.advance(s.p.n, pages[0], GrainEvent::Commit, Outcome::Present);
    REQUIRE(s.listener.done == std::vector<std::string>{"r"});
    CHECK(s.store.root(0).result.status == RootStatus::Ok);
    s.store.fail_root_at_sink(0, "sink out: disk full");
    CHECK(s.store.root(0).result.status == RootStatus::Failed);
    CHECK(s.store.root(0).result.reason == "sink out: disk full");
    s.store.fail_root_at_sink(0, "sink other: later");  // the first reason stays
    CHECK(s.store.root(0).result.reason == "sink out: disk full");
}
