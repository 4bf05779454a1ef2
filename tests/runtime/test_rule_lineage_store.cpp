// The LineageStore's boundary, the store alone, without run(): no schedule of the runtime
// publishes an Item twice or seals a Grain out of turn, so only a direct call reaches these
// checks (the pure tables behind them, publish_item and grain_transition, are
// test_transitions.cpp's).
//  - Item outcomes are set exactly once (SEMANTICS.md, "Item outcomes"): a duplicate identical
//    publication is a no-op (observers and consumers hear of the Item once), a conflicting one
//    is a bug that fails loudly;
//  - a Grain is sealed at most once, and only by a listed transition (SEMANTICS.md, "Grain
//    phases", invariant 1): anything else throws, and its root is not done early.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_exception.hpp>
#include <map>

#include "core/lineage_store.h"
#include "runtime_test_util.h"

using namespace rop::runtime;
using namespace rop::runtime::test;

namespace {

// Doc -> map "m" (src -> out) -> map "n" (out -> last): `out` has a consumer, so a PRESENT item
// on it holds a payload slot, and publishing it makes n's Grain runnable.
struct TwoMaps {
    Plan plan;
    PortId out = 0;
    TwoMaps() {
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const PortId src = b.source("src");
        out = b.add_port("out", doc);
        const PortId last = b.add_port("last", doc);
        b.add_call({"m", CallKind::Map, doc, {{src}}, {out}, opts(1, 1), map_int([](long x) {
                        return x;
                    })});
        b.add_call({"n", CallKind::Map, doc, {{out}}, {last}, opts(1, 1), map_int([](long x) {
                        return x;
                    })});
        plan = b.build();
    }
};

struct CountItems final : ItemObserver {
    void on_item(PortId port, EntityId entity, Outcome, const Value&) override {
        ++heard[{port, entity}];
    }
    std::map<std::pair<PortId, EntityId>, int> heard;
};

// What the store tells the driver: here, how many roots it completed.
struct CountDone final : detail::StoreListener {
    void root_item(const std::vector<std::uint32_t>&, EntityId, const Value&) override {}
    void root_complete(const detail::RootState&) override { ++done; }
    int done = 0;
};

}  // namespace

TEST_CASE("publication: an identical duplicate is a no-op, a conflicting one throws",
          "[runtime][rule][lineage-store]") {
    const TwoMaps p;
    CountItems items;
    RunOptions options;
    options.observer = &items;
    CountDone roots;
    detail::LineageStore store(p.plan, options, roots);
    const EntityId first = store.root(store.admit_root("root0", Value::of<long>(1))).entity;
    const EntityId second = store.root(store.admit_root("root1", Value::of<long>(2))).entity;
    const std::uint32_t a = store.local(first), b = store.local(second);
    // m's Grains became runnable: the Resolver's business, not this test's.
    store.drain_tasks([](const detail::Task&) {});

    SECTION("a non-PRESENT outcome twice") {
        store.publish(p.out, a, Outcome::Dropped, Value());
        REQUIRE(store.pending_tasks() == 1);  // n's Grain: its input is terminal
        store.publish(p.out, a, Outcome::Dropped, Value());
        CHECK(store.outcome(p.out, a) == Outcome::Dropped);
        CHECK(items.heard[{p.out, first}] == 1);
        CHECK(store.pending_tasks() == 1);  // n's Grain is not told twice
        CHECK(items.heard[{p.out, second}] == 0);
    }
    SECTION("the same PRESENT value twice") {
        const Value v = Value::of<long>(42);
        store.publish(p.out, b, Outcome::Present, v);
        REQUIRE(store.payload(p.out, b) != nullptr);
        const std::size_t bytes = store.live_bytes();
        store.publish(p.out, b, Outcome::Present, v);
        CHECK(store.outcome(p.out, b) == Outcome::Present);
        CHECK(store.payload(p.out, b)->same_object(v));
        CHECK(items.heard[{p.out, second}] == 1);
        CHECK(store.pending_tasks() == 1);
        CHECK(store.live_bytes() == bytes);  // one slot holds it, not two
    }
    SECTION("a conflicting outcome") {
        store.publish(p.out, a, Outcome::Dropped, Value());
        CHECK_THROWS_MATCHES(
            store.publish(p.out, a, Outcome::Failed, Value()), ContractError,
            Catch::Matchers::Message("bug: conflicting publication on port 'out' entity " +
                                     std::to_string(first) + ": DROPPED then FAILED"));
        CHECK(store.outcome(p.out, a) == Outcome::Dropped);  // the first fact stays
        CHECK(items.heard[{p.out, first}] == 1);
    }
    SECTION("another PRESENT value") {  // the same content, another object
        store.publish(p.out, b, Outcome::Present, Value::of<long>(42));
        CHECK_THROWS_MATCHES(
            store.publish(p.out, b, Outcome::Present, Value::of<long>(42)), ContractError,
            Catch::Matchers::Message("bug: conflicting publication on port 'out' entity " +
                                     std::to_string(second) + ": PRESENT then PRESENT"));
        CHECK(items.heard[{p.out, second}] == 1);
    }
}

TEST_CASE("sealing: only a listed transition seals a Grain, and only once",
          "[runtime][rule][lineage-store]") {
    const TwoMaps p;
    RunOptions options;
    CountDone roots;
    detail::LineageStore store(p.plan, options, roots);
    const CallId m = 0, n = 1;
    const EntityId root = store.root(store.admit_root("root0", Value::of<long>(1))).entity;
    const std::uint32_t local = store.local(root);
    REQUIRE(store.root(0).pending == 2);  // m's Grain and n's

    // A Grain still WAITING has no report to commit.
    CHECK_THROWS_MATCHES(store.advance(n, local, GrainEvent::Commit, Outcome::Present),
                         ContractError,
                         Catch::Matchers::Message("bug: call 'n' grain " + std::to_string(local) +
                                                  ": event commit in phase WAITING"));
    CHECK(store.grain(n, local).phase == GrainPhase::Waiting);
    // Resolved without running (its input DROPPED, say): sealed once; a second seal is a bug.
    store.advance(m, local, GrainEvent::Resolve, Outcome::Dropped);
    CHECK(store.grain(m, local).phase == GrainPhase::Sealed);
    CHECK(store.root(0).pending == 1);
    CHECK_THROWS_MATCHES(store.advance(m, local, GrainEvent::Resolve, Outcome::Dropped),
                         ContractError,
                         Catch::Matchers::Message("bug: call 'm' grain " + std::to_string(local) +
                                                  ": event resolve in phase SEALED"));
    CHECK(store.root(0).pending == 1);
    CHECK(roots.done == 0);  // n's Grain is not sealed: the root is not done
    CHECK(store.inflight_roots() == 1);
}
