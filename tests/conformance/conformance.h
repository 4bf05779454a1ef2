// The conformance suite's harness: the schedules every behaviour runs under, an observer that
// keys root-Domain Items by their root's value, and a builder for a port whose outcome per
// entity is chosen by a code (PRESENT, DROPPED, FAILED, SUPPRESSED) so that a table can drive
// every input outcome through real Calls. Each test names the RayOrch test it mirrors
// (OpenDCAI/RayOrch, test/core/unit/ and test/experimental/multigrain/); docs/runtime.md
// "Conformance with RayOrch" lists them all.
#pragma once

#include <catch2/catch_test_macros.hpp>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "../runtime/runtime_test_util.h"
#include "shuffled_executor.h"

namespace rop::conformance {

using namespace rop::runtime;
using runtime::test::actor;
using runtime::test::BatchFn;
using runtime::test::expand_int;
using runtime::test::keep_int;
using runtime::test::map_int;
using runtime::test::Recorder;
using runtime::test::VecSource;

// One legal schedule: batch cap and actors for every Call with a UDF, and which executor.
struct Schedule {
    std::uint32_t batch = 1;
    std::uint32_t actors = 1;
    bool shuffled = false;
    unsigned seed = 0;
    std::string label() const {
        return "batch=" + std::to_string(batch) + " actors=" + std::to_string(actors) +
               (shuffled ? " shuffled seed=" + std::to_string(seed) : " threads");
    }
    CallOptions options(Recovery recovery) const {
        CallOptions o;
        o.batch = batch;
        o.actors = actors;
        o.recovery = recovery;  // always explicit: the default is itself a tested departure
        return o;
    }
};

// batch {1, 3, 48} x actors {1, 4} x {thread executor, shuffled executor}: 12 schedules.
inline std::vector<Schedule> schedules() {
    std::vector<Schedule> all;
    for (std::uint32_t batch : {1u, 3u, 48u}) {
        for (std::uint32_t actors : {1u, 4u}) {
            for (bool shuffled : {false, true}) {
                all.push_back({batch, actors, shuffled, 17u * batch + actors});
            }
        }
    }
    return all;
}

// A Recorder that also remembers which root each root-Domain entity is (the source port's
// value), so that root-Domain Items can be checked per root, schedule-independently.
class Outcomes final : public ItemObserver {
  public:
    explicit Outcomes(PortId source) : source_(source) {}
    void on_item(PortId port, EntityId entity, Outcome outcome, const Value& value) override {
        if (port == source_ && outcome == Outcome::Present) root_value[entity] = value.get<long>();
        rec.on_item(port, entity, outcome, value);
        if (on_item_hook) on_item_hook(port, outcome);
    }
    void on_root_done(EntityId root) override { rec.on_root_done(root); }

    // Root value -> "OUTCOME" or "PRESENT value" for a port in the root Domain.
    std::map<long, std::string> by_root(PortId port) const {
        std::map<long, std::string> out;
        for (const auto& [key, text] : rec.by_entity) {
            if (key.first != port) continue;
            auto it = root_value.find(key.second);
            REQUIRE(it != root_value.end());
            out[it->second] = text;
        }
        return out;
    }
    std::multiset<std::string> of(PortId port) const { return rec.of(port); }
    std::size_t count(PortId port, const std::string& text) const {
        return rec.of(port).count(text);
    }

    Recorder rec;
    std::map<EntityId, long> root_value;
    std::function<void(PortId, Outcome)> on_item_hook;  // driver thread, at commit

  private:
    PortId source_;
};

struct Run {
    RunReport report;
    std::unique_ptr<Outcomes> items;
    const RootResult& root(std::size_t i) const { return report.roots.at(i); }
    const CallCounters& call(CallId c) const { return report.calls.at(c); }
};

// Runs `plan` over `roots` under `s`; checks what holds for every run (one terminal outcome per
// Item, every root reported once). `hook` sees each Item as it commits.
inline Run run_under(const Schedule& s, const Plan& plan, const std::vector<long>& roots,
                     std::function<void(PortId, Outcome)> hook = {}) {
    Run r;
    r.items = std::make_unique<Outcomes>(plan.source_port);
    r.items->on_item_hook = std::move(hook);
    VecSource source(roots);
    RunOptions options;
    options.observer = r.items.get();
    options.stop_grace = std::chrono::milliseconds(5000);
    if (s.shuffled) {
        ShuffledExecutor executor(s.seed);
        r.report = run(plan, source, options, executor);
    } else {
        r.report = run(plan, source, options);
    }
    CHECK_FALSE(r.items->rec.duplicate);  // RayOrch: item_transition is monotonic
    CHECK(r.report.roots.size() == roots.size());
    return r;
}

// Outcome codes for table-driven tests.
enum Code : int { P = 0, D = 1, F = 2, S = 3 };
inline const char* code_outcome(int code) {
    static const char* names[] = {"PRESENT", "DROPPED", "FAILED", "SUPPRESSED"};
    return names[code];
}

// From `in` (long values), a port in the same Domain whose Item for an entity with value x is
// PRESENT x, DROPPED, FAILED or SUPPRESSED as code(x) says: map "<tag>.up" fails the Grain for
// S (so the next map is SUPPRESSED), map "<tag>.fail" fails it for F (reason "<tag>:x"), filter
// "<tag>.drop" drops it for D. All three run under the schedule's options.
inline PortId outcome_chain(PlanBuilder& b, DomainId domain, PortId in, const std::string& tag,
                            std::function<int(long)> code, const CallOptions& o) {
    const PortId up = b.add_port(tag + ".up", domain);
    const PortId failed = b.add_port(tag + ".failed", domain);
    const PortId out = b.add_port(tag, domain);
    auto fail_if = [code, tag](int which) {
        return actor([code, tag, which](Batch& bt) {
            for (std::size_t g = 0; g < bt.size(); ++g) {
                const long x = bt.input(g, 0).get<long>();
                if (code(x) == which) {
                    bt.fail_record(g, tag + (which == S ? ".up:" : ":") + std::to_string(x));
                } else {
                    bt.set_output(g, 0, Value::of<long>(x));
                }
            }
        });
    };
    b.add_call({tag + ".up", CallKind::Map, domain, {{in}}, {up}, o, fail_if(S)});
    b.add_call({tag + ".fail", CallKind::Map, domain, {{up}}, {failed}, o, fail_if(F)});
    b.add_call(
        {tag + ".drop", CallKind::Filter, domain, {{failed}}, {out}, o, actor([code](Batch& bt) {
             for (std::size_t g = 0; g < bt.size(); ++g) {
                 bt.set_keep(g, code(bt.input(g, 0).get<long>()) != D);
             }
         })});
    return out;
}

inline std::string present(long x) { return std::to_string(x); }

}  // namespace rop::conformance
