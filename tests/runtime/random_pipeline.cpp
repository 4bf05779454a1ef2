// The random pipeline generator (reference/random_pipeline.h). Calls are emitted in generation
// order, which is topological and puts each expand before every Call of the Domain it opens.
#include "reference/random_pipeline.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "reference/tok.h"

namespace rop::runtime::reference {
namespace {

constexpr int kMaxDepth = 3;           // Domains D0..D3: four levels
constexpr double kEntityBudget = 900;  // expected entities in one Domain
constexpr std::uint32_t kFanouts[] = {0, 1, 2, 3, 5, 8, 13, 20, 30, 50};

bool first_attempt_faults = true;  // set_first_attempt_faults

// prefix + number, without operator+(const char*, string&&) (GCC 12 -Wrestrict false positive).
std::string named(const char* prefix, std::uint64_t n) {
    std::string out = prefix;
    out += std::to_string(n);
    return out;
}

const char* kind_name(CallKind k) { return to_string(k); }

const char* recovery_name(Recovery r) {
    switch (r) {
        case Recovery::Abort: return "abort";
        case Recovery::RetryBatch: return "retry_batch";
        case Recovery::RetryTail: return "retry_tail";
        case Recovery::IsolateTail: return "isolate_tail";
    }
    return "?";
}

class Generator {
  public:
    Generator(std::uint64_t seed, bool random_schedule)
        : rng_(mix(seed, 0x6E4)), sched_(mix(seed, 0x5C4ED)), random_schedule_(random_schedule) {
        out_.env = std::make_shared<UdfEnv>();
        std::size_t roots = 1 + below(rng_() % 4 ? 6 : 24);
        builder_.add_domain("D0");
        doms_.push_back({0, kNoDomain, 0, double(roots), {builder_.source("src")}});
        for (std::size_t r = 0; r < roots; ++r)
            out_.roots.push_back(Value::of(Tok{mix(seed, r), kNoEntity, std::uint32_t(r)}));
        // Shared pools (docs/runtime.md "Shared pools"): in a third of the random schedules, one
        // or two pools that some of the Calls with a UDF run on; drawn from the schedule's
        // generator, so the reference (which runs each Call alone) sees the same pipeline.
        if (random_schedule_ && sched_() % 3 == 0) {
            const std::size_t pools = 1 + sched_() % 2;
            for (std::size_t p = 0; p < pools; ++p) {
                PoolSpec pool{named("pool", p)};
                pool.options.actors = std::uint32_t(1 + sched_() % 3);
                pool.instance = [] { return std::make_shared<int>(0); };
                pool_actors_.push_back(pool.options.actors);
                builder_.add_pool(std::move(pool));
            }
        }
    }

    RandomPipeline run() {
        int ops = 3 + int(below(13));
        for (int i = 0; i < ops; ++i) step();
        // Close Domains deepest first, so reduces nest (D3 -> D2 -> D1 -> D0).
        for (std::size_t d = doms_.size(); d-- > 1;)
            if (below(10) < 7) add_reduce(d);
        if (random_schedule_) {
            out_.env->max_sleep_us = sched_() % 3 == 0 ? std::uint32_t(1 + sched_() % 40) : 0;
            const std::size_t inflight[] = {1, 2, 3, 8, 64};
            out_.max_inflight_roots = inflight[sched_() % 5];
        }
        for (std::size_t p = 0; p < pool_actors_.size(); ++p) {
            out_.description +=
                named("pool", p) + " actors " + std::to_string(pool_actors_[p]) + "\n";
        }
        out_.description += "roots " + std::to_string(out_.roots.size()) + ", jitter " +
                            std::to_string(out_.env->max_sleep_us) + "us, max_inflight_roots " +
                            std::to_string(out_.max_inflight_roots) + "\n";
        out_.plan = builder_.build();
        return std::move(out_);
    }

  private:
    struct Dom {
        DomainId id;
        DomainId parent;
        int depth;
        double expected;  // expected entity count
        std::vector<PortId> ports;
    };

    std::vector<std::uint32_t> pool_actors_;  // per shared pool of the plan: its actors

    std::uint64_t below(std::uint64_t n) { return n ? rng_() % n : 0; }

    void step() {
        std::uint64_t r = below(100);
        if (r < 30) return add_map(pick_dom());
        if (r < 45) return add_filter(pick_dom());
        if (r < 62) return add_expand(pick_dom());
        std::size_t d = pick_dom();
        if (d == 0) return add_map(d);
        if (r < 78) return add_broadcast(d);
        return add_reduce(d);
    }

    std::size_t pick_dom() { return below(doms_.size()); }

    // Recent ports are likelier, so chains grow long.
    PortId pick_port(const std::vector<PortId>& ports) {
        std::size_t back = 0;
        while (back + 1 < ports.size() && below(3) == 0) ++back;
        return ports[ports.size() - 1 - back];
    }

    PortId new_port(std::size_t d) {
        PortId p = builder_.add_port(named("p", port_count_++), doms_[d].id);
        doms_[d].ports.push_back(p);
        return p;
    }

    Faults pick_faults() {
        Faults f;
        if (below(2)) return f;
        auto rate = [&](std::uint32_t max) {
            return below(5) < 2 ? std::uint32_t(1 + below(max)) : 0;
        };
        f.record = rate(40);
        f.group = rate(30);  // in the root Domain: fails only that root
        f.poison = rate(30);
        f.transient = rate(150);
        f.infra = rate(150);
        f.throw_typed = below(3) == 0;
        if (!first_attempt_faults) f.transient = f.infra = 0;  // drawn all the same
        return f;
    }

    void finish_call(CallSpec spec, UdfParams params, bool with_udf) {
        params.salt = mix(rng_(), spec.outputs.empty() ? 0 : spec.outputs[0]);
        CallOptions& o = spec.options;
        if (random_schedule_) {
            const std::uint32_t caps[] = {1, 2, 3, 4, 7, 8, 16, 32, 64};
            o.batch = caps[sched_() % 9];
            o.actors = std::uint32_t(1 + sched_() % 3);
            o.batching = sched_() % 4 == 0 ? Batching::SingleParent : Batching::AnyParent;
            params.batch_cap = o.batch;
            params.single_parent = o.batching == Batching::SingleParent;
        }
        if (with_udf) {
            params.kind = spec.kind;
            params.faults = pick_faults();
            const Faults& f = params.faults;
            if (f.poison)
                o.recovery = Recovery::IsolateTail;
            else if (f.transient)
                o.recovery = Recovery(1 + below(3));
            else
                o.recovery = Recovery(below(4));
            o.retries = std::uint32_t(f.any_opaque() ? 1 + below(3) : below(3));
            o.infra_retries = std::uint32_t(f.infra ? 2 + below(3) : 2);
            spec.factory = make_random_udf(params, out_.env);
            if (!pool_actors_.empty() && sched_() % 2 == 0) {
                spec.pool = PoolId(sched_() % pool_actors_.size());
                o.actors = pool_actors_[spec.pool];
                spec.view = [udf = std::move(spec.factory)](const PoolInstance&) { return udf(); };
                spec.factory = nullptr;
            }
        }
        std::string line = named("c", call_count_) + " " + kind_name(spec.kind) + " D" +
                           std::to_string(spec.domain) + " in [";
        for (const CallInput& in : spec.inputs)
            line += " p" + std::to_string(in.port) + (in.mode == InputMode::Optional ? "?" : "");
        line += " ] out [";
        for (PortId p : spec.outputs) line += " p" + std::to_string(p);
        line += " ]";
        if (spec.kind == CallKind::Expand) line += " fanout<=" + std::to_string(params.max_fanout);
        if (spec.kind == CallKind::Filter) line += " drop " + std::to_string(params.drop_pct) + "%";
        if (with_udf)
            line += std::string(" | ") + describe(params.faults) + ", " +
                    recovery_name(o.recovery) + " retries " + std::to_string(o.retries) +
                    " infra " + std::to_string(o.infra_retries);
        else if (spec.kind == CallKind::Reduce)
            line += " | no UDF";
        line += " | batch " + std::to_string(o.batch) + " actors " + std::to_string(o.actors) +
                (o.batching == Batching::SingleParent ? " single_parent" : "") +
                (spec.pool != kNoPool ? " on pool" + std::to_string(spec.pool) : "") + "\n";
        out_.description += line;
        spec.name = named("c", call_count_++) + "." + kind_name(spec.kind);
        builder_.add_call(std::move(spec));
    }

    void add_map(std::size_t d) {
        CallSpec spec{"", CallKind::Map, doms_[d].id, {}, {}, {}, {}};
        std::vector<PortId> pool = doms_[d].ports;
        std::size_t n = std::min<std::size_t>(1 + below(3), pool.size());
        bool all_optional_ok = below(10) == 0;
        for (std::size_t i = 0; i < n; ++i) {
            PortId p = pick_port(pool);
            pool.erase(std::find(pool.begin(), pool.end(), p));
            bool optional = below(10) < 3 && (all_optional_ok || i + 1 < n || !spec.inputs.empty());
            spec.inputs.push_back({p, optional ? InputMode::Optional : InputMode::Required});
        }
        if (!all_optional_ok &&
            std::all_of(spec.inputs.begin(), spec.inputs.end(),
                        [](const CallInput& in) { return in.mode == InputMode::Optional; }))
            spec.inputs[0].mode = InputMode::Required;
        UdfParams params;
        params.inputs = std::uint32_t(n);
        params.outputs = below(4) == 0 ? std::uint32_t(2 + below(2)) : 1;
        for (std::uint32_t o = 0; o < params.outputs; ++o) spec.outputs.push_back(new_port(d));
        finish_call(std::move(spec), params, true);
    }

    void add_filter(std::size_t d) {
        CallSpec spec{"", CallKind::Filter, doms_[d].id, {{pick_port(doms_[d].ports)}}, {}, {}, {}};
        spec.outputs.push_back(new_port(d));
        UdfParams params;
        params.drop_pct = std::uint32_t(below(4) == 0 ? 100 : below(60));
        finish_call(std::move(spec), params, true);
    }

    void add_expand(std::size_t d) {
        if (doms_[d].depth >= kMaxDepth || doms_.size() >= 7) return add_filter(d);
        std::vector<std::uint32_t> allowed;
        for (std::uint32_t f : kFanouts)
            if (doms_[d].expected * (0.85 * f / 2 + 0.1) <= kEntityBudget) allowed.push_back(f);
        UdfParams params;
        params.max_fanout = allowed[below(allowed.size())];
        if (below(3) == 0) params.max_fanout = allowed.back();  // favour wide expansions
        CallSpec spec{"", CallKind::Expand, doms_[d].id, {{pick_port(doms_[d].ports)}}, {}, {}, {}};
        DomainId child = builder_.add_domain(named("D", doms_.size()), doms_[d].id);
        doms_.push_back({child,
                         doms_[d].id,
                         doms_[d].depth + 1,
                         doms_[d].expected * (0.85 * params.max_fanout / 2 + 0.1),
                         {}});
        spec.outputs.push_back(new_port(doms_.size() - 1));
        finish_call(std::move(spec), params, true);
    }

    std::size_t index_of(DomainId id) const {
        for (std::size_t i = 0; i < doms_.size(); ++i)
            if (doms_[i].id == id) return i;
        return 0;
    }

    void add_broadcast(std::size_t d) {
        std::size_t a = index_of(doms_[d].parent);
        while (a != 0 && below(2)) a = index_of(doms_[a].parent);
        if (doms_[a].ports.empty()) return;
        CallSpec spec{"", CallKind::Broadcast, doms_[d].id, {{pick_port(doms_[a].ports)}}, {}, {},
                      {}};
        spec.outputs.push_back(new_port(d));
        finish_call(std::move(spec), UdfParams{}, false);
    }

    void add_reduce(std::size_t d) {
        if (doms_[d].ports.empty()) return;
        std::size_t p = index_of(doms_[d].parent);
        CallSpec spec{"", CallKind::Reduce, doms_[p].id, {{pick_port(doms_[d].ports)}}, {}, {}, {}};
        spec.outputs.push_back(new_port(p));
        UdfParams params;
        finish_call(std::move(spec), params, below(10) < 6);
    }

    std::mt19937_64 rng_;    // structure, UDFs, failures
    std::mt19937_64 sched_;  // physical knobs only
    bool random_schedule_;
    PlanBuilder builder_;
    std::vector<Dom> doms_;
    RandomPipeline out_;
    int port_count_ = 1;  // port 0 is the source: names match ids
    int call_count_ = 0;
};

}  // namespace

RandomPipeline make_random_pipeline(std::uint64_t seed, bool random_schedule) {
    return Generator(seed, random_schedule).run();
}

void set_first_attempt_faults(bool on) { first_attempt_faults = on; }

}  // namespace rop::runtime::reference
