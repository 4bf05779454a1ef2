// Small helpers for hand-written plans over int64 payloads, used to check the reference
// interpreter itself against results worked out by hand.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <utility>

#include "interpreter.h"
#include "rop/runtime/plan.h"

namespace rop::runtime::reference {
inline std::ostream& operator<<(std::ostream& os, const ItemFact& fact) {
    return os << to_string(fact.outcome) << (fact.value.empty() ? "" : " ") << fact.value;
}
}  // namespace rop::runtime::reference

namespace rop::runtime::reference::hand {

inline Value I(std::int64_t x) { return Value::of<std::int64_t>(x); }

inline std::int64_t in(const Batch& batch, std::size_t g, std::size_t i = 0) {
    return batch.input(g, i).get<std::int64_t>();
}

// A UDF written per Grain.
inline ActorFactory per_grain(std::function<void(Batch&, std::size_t)> fn) {
    struct Fn final : Actor {
        std::function<void(Batch&, std::size_t)> fn;
        void process(Batch& batch) override {
            for (std::size_t g = 0; g < batch.size(); ++g) fn(batch, g);
        }
    };
    return [fn] {
        auto actor = std::make_unique<Fn>();
        actor->fn = fn;
        return actor;
    };
}

// map x -> f(x) on one input and one output.
inline ActorFactory map1(std::function<std::int64_t(std::int64_t)> f) {
    return per_grain([f](Batch& b, std::size_t g) { b.set_output(g, 0, I(f(in(b, g)))); });
}

// map x -> x, but RecordFailure (or GroupFailure) where `fails(x)`.
inline ActorFactory fail_where(std::function<bool(std::int64_t)> fails, bool group = false) {
    return per_grain([fails, group](Batch& b, std::size_t g) {
        if (!fails(in(b, g))) return b.set_output(g, 0, I(in(b, g)));
        if (group)
            b.fail_group(g, "group");
        else
            b.fail_record(g, "record");
    });
}

inline ActorFactory keep_where(std::function<bool(std::int64_t)> keep) {
    return per_grain([keep](Batch& b, std::size_t g) { b.set_keep(g, keep(in(b, g))); });
}

// expand x -> children f(x, 0..n(x)-1).
inline ActorFactory expand(std::function<std::int64_t(std::int64_t)> n,
                           std::function<std::int64_t(std::int64_t, std::int64_t)> f) {
    return per_grain([n, f](Batch& b, std::size_t g) {
        std::int64_t x = in(b, g);
        for (std::int64_t i = 0; i < n(x); ++i) b.emit_child(g, I(f(x, i)));
    });
}

inline CallSpec call(std::string name, CallKind kind, DomainId domain,
                     std::vector<CallInput> inputs, std::vector<PortId> outputs,
                     ActorFactory factory = {}, CallOptions options = {}) {
    return CallSpec{std::move(name),   kind, domain, std::move(inputs), std::move(outputs), options,
                    std::move(factory)};
}

inline std::vector<Value> roots(std::initializer_list<std::int64_t> xs) {
    std::vector<Value> out;
    for (std::int64_t x : xs) out.push_back(I(x));
    return out;
}

inline ItemFact present(std::string value) { return {Outcome::Present, std::move(value)}; }
inline const ItemFact kDropped{Outcome::Dropped, ""};
inline const ItemFact kFailed{Outcome::Failed, ""};
inline const ItemFact kSuppressed{Outcome::Suppressed, ""};
inline const ItemFact kAbsent{Outcome::Unresolved, ""};

inline ItemFact at(const RefRun& run, PortId port, EntityPath path) {
    auto it = run.items.find({port, std::move(path)});
    return it == run.items.end() ? kAbsent : it->second;
}

}  // namespace rop::runtime::reference::hand
