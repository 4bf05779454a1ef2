// One randomized runtime-vs-reference check (reference/compare.h).
#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>

#include "reference/compare.h"
#include "reference/interpreter.h"
#include "reference/random_pipeline.h"
#include "reference/tok.h"
#include "rop/runtime/run.h"

namespace rop::runtime::reference {
namespace {

class VectorSource final : public RootSource {
  public:
    explicit VectorSource(const std::vector<Value>& roots) : roots_(roots) {}
    std::optional<Root> next() override {
        if (next_ == roots_.size()) return std::nullopt;
        std::size_t r = next_++;
        return Root{roots_[r], "root" + std::to_string(r)};
    }
    std::optional<std::size_t> size_hint() const override { return roots_.size(); }

  private:
    const std::vector<Value>& roots_;
    std::size_t next_ = 0;
};

// Collects every terminal Item the runtime reports, and the lineage tags (tok.h) that map its
// EntityIds to EntityPaths: the public observer API names an entity but not its parent.
class Recorder final : public ItemObserver {
  public:
    struct Seen {
        PortId port;
        EntityId entity;
        ItemFact fact;
    };
    Recorder(const Plan& plan) {
        tagged_.insert(plan.source_port);
        for (const CallSpec& call : plan.calls)
            if (call.kind == CallKind::Expand) tagged_.insert(call.outputs.at(0));
    }
    void on_item(PortId port, EntityId entity, Outcome outcome, const Value& value) override {
        seen.push_back(
            {port, entity, {outcome, outcome == Outcome::Present ? canonical(value) : ""}});
        const Tok* tok = value.try_get<Tok>();
        if (tok && outcome == Outcome::Present && tagged_.count(port))
            links[entity] = {tok->parent, tok->ordinal};
    }
    void on_root_done(EntityId root) override {
        done.push_back(root);
        done_after.push_back(seen.size());  // Items reported before this root was done
    }

    std::vector<Seen> seen;
    std::map<EntityId, std::pair<EntityId, std::uint32_t>> links;  // entity -> (parent, ordinal)
    std::vector<EntityId> done;
    std::vector<std::size_t> done_after;

  private:
    std::set<PortId> tagged_;
};

class Comparison {
  public:
    Comparison(std::uint64_t seed, bool verbose, const LiveRun& where)
        : seed_(seed), verbose_(verbose), where_(where) {}

    SeedCheck run() {
        RandomPipeline live = make_random_pipeline(seed_, true);
        RandomPipeline ref = make_random_pipeline(seed_, false);
        Recorder recorder(live.plan);
        VectorSource source(live.roots);
        RunOptions options;
        options.observer = &recorder;
        options.max_inflight_roots = live.max_inflight_roots;
        RunReport report;
        try {
            if (where_.place) options.placement = where_.place(live.plan);
            report = rop::runtime::run(live.plan, source, options);
        } catch (const std::exception& ex) {
            if (where_.after) where_.after();
            problem(std::string("run() threw: ") + ex.what());
            return finish(live, 0, 0, 0);
        }
        if (where_.after) where_.after();
        for (const auto& [entity, ordinal] : live.env->roots())
            recorder.links.emplace(entity, std::make_pair(kNoEntity, ordinal));
        index(recorder);

        RefRun expected = interpret(
            ref.plan, ref.roots,
            [&](CallId c, const EntityPath& p, std::size_t) { return fate(ref.plan, c, p); });
        compare(report, expected, recorder, live.roots.size());
        for (const std::string& v : live.env->violations()) problem("batch shape: " + v);
        if (verbose_) counters(report);
        return finish(live, expected.items.size(), expected.barriers.size(),
                      expected.fenced_streams);
    }

  private:
    SeedCheck finish(const RandomPipeline& live, std::size_t items, std::size_t barriers,
                     std::size_t streams) {
        SeedCheck check{"", items, barriers, streams};
        if (problems_ > 0 || verbose_)
            check.diff = "seed " + std::to_string(seed_) + ": " +
                         (problems_ == 0 ? "ok\n" : "runtime differs from the reference\n") +
                         out_.str() + "pipeline:\n" + live.description +
                         "replay: " + replay_command(seed_) + "\n";
        return check;
    }

    // The runtime's own per-Call counters, for a replayed seed.
    void counters(const RunReport& report) {
        out_ << "runtime counters:\n";
        for (const CallCounters& c : report.calls)
            out_ << "  " << c.name << ": grains " << c.grains << " batches " << c.batches
                 << " retries " << c.retries << " infra_retries " << c.infra_retries
                 << " suppressed " << c.suppressed << " stale " << c.stale_reports << " failed "
                 << c.failed << "\n";
    }

    // At most ROP_MAX_PROBLEMS lines (default 25) per seed.
    void problem(const std::string& line) {
        static const long limit = [] {
            const char* text = std::getenv("ROP_MAX_PROBLEMS");
            return text && *text ? std::atol(text) : 25L;
        }();
        if (++problems_ <= limit)
            out_ << "  " << line << "\n";
        else if (problems_ == limit + 1)
            out_ << "  ...\n";
    }

    // EntityId -> EntityPath through the recorded links; empty when a link is missing.
    EntityPath path_of(const Recorder& rec, EntityId e) {
        EntityPath path;
        while (e != kNoEntity) {
            auto it = rec.links.find(e);
            if (it == rec.links.end()) return {};
            path.push_back(it->second.second);
            e = it->second.first;
        }
        std::reverse(path.begin(), path.end());
        return path;
    }

    void index(const Recorder& rec) {
        for (const Recorder::Seen& s : rec.seen) {
            EntityPath path = path_of(rec, s.entity);
            seen_root_.push_back(path.empty() ? ~0u : path[0]);
            if (path.empty()) {
                problem("cannot map EntityId " + std::to_string(s.entity) +
                        " to a path (no expand item or root GrainInfo names it)");
                continue;
            }
            auto [it, fresh] = observed_.insert({{s.port, path}, s.fact});
            if (!fresh)
                problem("Item reported twice: port p" + std::to_string(s.port) + " at " +
                        to_string(path) + " (" + to_string(it->second.outcome) + ", then " +
                        to_string(s.fact.outcome) + ")");
        }
    }

    // The BarrierChooser: what did the observed schedule do with this Grain?
    Choice fate(const Plan& plan, CallId c, const EntityPath& path) const {
        const CallSpec& call = plan.calls[c];
        if (call.kind != CallKind::Expand) {
            auto it = observed_.find({call.outputs.at(0), path});
            bool suppressed = it != observed_.end() && it->second.outcome == Outcome::Suppressed;
            return suppressed ? Choice::suppressed() : Choice::committed();
        }
        // An expand has no Item of its own: count the children it left, and ask its reduces
        // whether the Expansion SUCCEEDED (not SUPPRESSED) or FAILED (SUPPRESSED).
        std::uint32_t children = 0;
        for (auto it = observed_.lower_bound({call.outputs[0], path});
             it != observed_.end() && it->first.port == call.outputs[0] &&
             it->first.path.size() > path.size() &&
             std::equal(path.begin(), path.end(), it->first.path.begin());
             ++it)
            children += it->first.path.size() == path.size() + 1;
        DomainId child_domain = plan.ports[call.outputs[0]].domain;
        bool succeeded = false;
        for (const CallSpec& r : plan.calls) {
            if (r.kind != CallKind::Reduce ||
                plan.ports[r.inputs.at(0).port].domain != child_domain)
                continue;
            auto it = observed_.find({r.outputs.at(0), path});
            if (it == observed_.end()) continue;
            succeeded |= it->second.outcome != Outcome::Suppressed;
        }
        if (succeeded) return Choice::committed();
        if (children == 0) return Choice::suppressed();
        // Children, and no reduce that saw the Expansion SUCCEEDED: it may have streamed them
        // and then been fenced, dooming its subtree. That is the wider allowed set (each doomed
        // UDF Grain then follows what was observed), and the only one consistent with a doomed
        // subtree that left no SUPPRESSED Item (an expand Grain below it that was suppressed
        // shows only as children that never appear).
        return Choice::streamed_then_fenced(children);
    }

    void compare(const RunReport& report, const RefRun& expected, const Recorder& rec,
                 std::size_t roots) {
        if (report.aborted != expected.aborted) {
            problem(std::string("aborted: runtime ") + (report.aborted ? "yes" : "no") + " (" +
                    report.abort_reason + "), reference " + (expected.aborted ? "yes" : "no") +
                    " (" + expected.abort_reason + ")");
            return;
        }
        if (expected.aborted) return;
        for (const std::string& c : expected.illegal_choices) problem("illegal schedule: " + c);
        auto describe_fact = [](const ItemFact& f) {
            return std::string(to_string(f.outcome)) + (f.value.empty() ? "" : " " + f.value);
        };
        for (const auto& [key, fact] : expected.items) {
            auto it = observed_.find(key);
            std::string where = "port p" + std::to_string(key.port) + " at " + to_string(key.path);
            if (it == observed_.end())
                problem(where + ": missing, reference " + describe_fact(fact));
            else if (!(it->second == fact))
                problem(where + ": runtime " + describe_fact(it->second) + ", reference " +
                        describe_fact(fact));
        }
        for (const auto& [key, fact] : observed_)
            if (!expected.items.count(key))
                problem("port p" + std::to_string(key.port) + " at " + to_string(key.path) +
                        ": runtime " + describe_fact(fact) + ", absent in the reference");
        if (report.roots.size() != roots)
            problem("report has " + std::to_string(report.roots.size()) + " roots, expected " +
                    std::to_string(roots));
        for (std::size_t r = 0; r < roots && r < report.roots.size(); ++r)
            if (report.roots[r].status != expected.roots[r])
                problem("root " + std::to_string(r) + ": runtime status " +
                        std::to_string(int(report.roots[r].status)) + ", reference " +
                        std::to_string(int(expected.roots[r])) + " (0 ok, 1 dropped, 2 failed)");
        // "Called once per root when its whole subtree is terminal": no Item of a root after it.
        for (std::size_t i = 0; i < rec.done.size(); ++i) {
            auto link = rec.links.find(rec.done[i]);
            if (link == rec.links.end()) continue;
            for (std::size_t k = rec.done_after[i]; k < rec.seen.size(); ++k)
                if (seen_root_[k] == link->second.second) {
                    problem("root " + std::to_string(link->second.second) + ": Item on port p" +
                            std::to_string(rec.seen[k].port) + " reported after on_root_done");
                    break;
                }
        }
        if (rec.done.size() != roots ||
            std::set<EntityId>(rec.done.begin(), rec.done.end()).size() != roots)
            problem("on_root_done called " + std::to_string(rec.done.size()) + " times for " +
                    std::to_string(roots) + " roots");
    }

    std::uint64_t seed_;
    bool verbose_;
    const LiveRun& where_;
    std::map<ItemKey, ItemFact> observed_;
    std::vector<std::uint32_t> seen_root_;  // root ordinal of each reported Item, in order
    std::ostringstream out_;
    long problems_ = 0;
};

}  // namespace

SeedCheck check_seed(std::uint64_t seed, bool verbose) {
    return Comparison(seed, verbose, LiveRun{}).run();
}

SeedCheck check_seed(std::uint64_t seed, bool verbose, const LiveRun& live) {
    return Comparison(seed, verbose, live).run();
}

std::string replay_command(std::uint64_t seed) {
    return "ROP_SEED=" + std::to_string(seed) + " ./rop_runtime_reference_tests \"[random]\"";
}

}  // namespace rop::runtime::reference
