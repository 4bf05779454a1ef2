// Helpers for the runtime owner's tests (test_*.cpp): lambda actors, a vector RootSource, and
// an observer that records every Item and checks that none is published twice.
#pragma once

#include <catch2/catch_test_macros.hpp>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "rop/runtime/run.h"

namespace rop::runtime::test {

using BatchFn = std::function<void(Batch&)>;

class FnActor final : public Actor {
  public:
    explicit FnActor(BatchFn fn) : fn_(std::move(fn)) {}
    void process(Batch& batch) override { fn_(batch); }

  private:
    BatchFn fn_;
};

inline ActorFactory actor(BatchFn fn) {
    return [fn] { return std::make_unique<FnActor>(fn); };
}

// Element-wise helpers over int payloads.
inline ActorFactory map_int(std::function<long(long)> f) {
    return actor([f](Batch& b) {
        for (std::size_t g = 0; g < b.size(); ++g) {
            b.set_output(g, 0, Value::of<long>(f(b.input(g, 0).get<long>())));
        }
    });
}
inline ActorFactory keep_int(std::function<bool(long)> f) {
    return actor([f](Batch& b) {
        for (std::size_t g = 0; g < b.size(); ++g) b.set_keep(g, f(b.input(g, 0).get<long>()));
    });
}
// Expands x into count(x) children with values child(x, i).
inline ActorFactory expand_int(std::function<long(long)> count,
                               std::function<long(long, long)> child) {
    return actor([count, child](Batch& b) {
        for (std::size_t g = 0; g < b.size(); ++g) {
            const long x = b.input(g, 0).get<long>();
            for (long i = 0; i < count(x); ++i) b.emit_child(g, Value::of<long>(child(x, i)));
        }
    });
}
// Sums a ReduceGroup of longs.
inline ActorFactory sum_group() {
    return actor([](Batch& b) {
        for (std::size_t g = 0; g < b.size(); ++g) {
            long s = 0;
            for (const Value& v : b.input(g, 0).get<ReduceGroup>().values) s += v.get<long>();
            b.set_output(g, 0, Value::of<long>(s));
        }
    });
}

class VecSource final : public RootSource {
  public:
    explicit VecSource(std::vector<long> values) : values_(std::move(values)) {}
    std::optional<Root> next() override {
        if (i_ == values_.size()) return std::nullopt;
        ++i_;
        return Root{Value::of<long>(values_[i_ - 1]), "root" + std::to_string(i_ - 1)};
    }
    std::optional<std::size_t> size_hint() const override { return values_.size(); }

  private:
    std::vector<long> values_;
    std::size_t i_ = 0;
};

// Records items as "OUTCOME" or "PRESENT:value" (long or ReduceGroup of longs), per port, in
// a multiset keyed by entity id; checks invariant 2 (one terminal outcome per Item).
class Recorder final : public ItemObserver {
  public:
    void on_item(PortId port, EntityId entity, Outcome outcome, const Value& value) override {
        const bool fresh = seen.insert({port, entity}).second;
        if (!fresh) duplicate = true;
        items[port].insert(render(outcome, value));
        by_entity[{port, entity}] = render(outcome, value);
        order.push_back({port, entity});
    }
    void on_root_done(EntityId root) override {
        if (!done.insert(root).second) duplicate = true;
    }
    static std::string render(Outcome outcome, const Value& value) {
        if (outcome != Outcome::Present) return to_string(outcome);
        if (const long* x = value.try_get<long>()) return std::to_string(*x);
        if (const ReduceGroup* g = value.try_get<ReduceGroup>()) {
            std::string s = "[";
            for (std::size_t i = 0; i < g->values.size(); ++i) {
                s += (i ? "," : "") + std::to_string(g->ordinals[i]) + ":" +
                     render(Outcome::Present, g->values[i]);
            }
            return s + "]";
        }
        return "PRESENT";
    }
    std::multiset<std::string> of(PortId port) const {
        auto it = items.find(port);
        return it == items.end() ? std::multiset<std::string>{} : it->second;
    }

    std::map<PortId, std::multiset<std::string>> items;
    std::map<std::pair<PortId, EntityId>, std::string> by_entity;
    std::set<std::pair<PortId, EntityId>> seen;
    std::vector<std::pair<PortId, EntityId>> order;
    std::set<EntityId> done;
    bool duplicate = false;
};

inline CallOptions opts(std::uint32_t batch, std::uint32_t actors) {
    CallOptions o;
    o.batch = batch;
    o.actors = actors;
    return o;
}

// Doc(x) -> x pages valued 100x+i -> one map Call "m" with the given options and UDF.
struct OneMap {
    Plan plan;
    PortId out = 0;
    OneMap(CallOptions o, BatchFn fn) {
        PlanBuilder b;
        const DomainId doc = b.add_domain("Doc");
        const DomainId page = b.add_domain("Page", doc);
        const PortId src = b.source("src");
        const PortId pages = b.add_port("pages", page);
        out = b.add_port("out", page);
        b.add_call(
            {"split",
             CallKind::Expand,
             doc,
             {{src}},
             {pages},
             opts(8, 1),
             expand_int([](long x) { return x; }, [](long x, long i) { return 100 * x + i; })});
        b.add_call({"m", CallKind::Map, page, {{pages}}, {out}, o, actor(std::move(fn))});
        plan = b.build();
    }
};

}  // namespace rop::runtime::test
