// The sequential reference interpreter (reference/interpreter.h). Every rule below is a sentence
// of SEMANTICS.md; the comments quote which one.
#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "reference/interpreter.h"
#include "reference/one_grain_batch.h"
#include "reference/tok.h"

namespace rop::runtime::reference {
namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

struct Slot {
    Outcome outcome = Outcome::Unresolved;
    Value value;
};

struct Entity {
    DomainId domain;
    std::size_t parent;  // kNone for roots
    std::uint32_t ordinal;
    EntityPath path;
    bool doomed;  // under an Expansion that streamed children and then FAILED
};

enum class ExpansionState { Succeeded, Dropped, Failed };
struct Expansion {
    ExpansionState state = ExpansionState::Succeeded;
    std::vector<std::size_t> children;
};

bool is_failure(Outcome o) { return o == Outcome::Failed || o == Outcome::Suppressed; }

class Interpreter {
  public:
    Interpreter(const Plan& plan, const BarrierChooser& chooser)
        : plan_(plan),
          chooser_(chooser),
          by_domain_(plan.domains.size()),
          actors_(plan.calls.size()) {}

    RefRun run(const std::vector<Value>& roots) {
        for (std::size_t r = 0; r < roots.size(); ++r) {
            std::size_t e = new_entity(0, kNone, static_cast<std::uint32_t>(r));
            publish(plan_.source_port, e, Outcome::Present, roots[r]);
        }
        for (CallId c = 0; c < plan_.calls.size() && !out_.aborted; ++c) run_call(c);
        finish(roots.size());
        return std::move(out_);
    }

  private:
    std::size_t new_entity(DomainId domain, std::size_t parent, std::uint32_t ordinal,
                           bool doomed = false) {
        EntityPath path = parent == kNone ? EntityPath{} : entities_[parent].path;
        path.push_back(ordinal);
        doomed |= parent != kNone && entities_[parent].doomed;
        entities_.push_back({domain, parent, ordinal, std::move(path), doomed});
        by_domain_[domain].push_back(entities_.size() - 1);
        return entities_.size() - 1;
    }

    // "Item outcomes — set exactly once, never overwritten."
    void publish(PortId port, std::size_t e, Outcome outcome, Value value = {}) {
        Slot& slot = items_[{port, e}];
        if (slot.outcome != Outcome::Unresolved)
            throw std::logic_error("reference: Item published twice (port " +
                                   plan_.ports[port].name + ")");
        slot.outcome = outcome;
        if (outcome == Outcome::Present) slot.value = std::move(value);
    }

    // The Item of `port` seen from entity `e`: its own, or its ancestor's for a port in an
    // ancestor Domain (broadcast). Plan order guarantees it is terminal.
    const Slot& item(PortId port, std::size_t e) const {
        while (e != kNone && entities_[e].domain != plan_.ports[port].domain)
            e = entities_[e].parent;
        auto it = e == kNone ? items_.end() : items_.find({port, e});
        if (it == items_.end() || it->second.outcome == Outcome::Unresolved)
            throw std::logic_error("reference: input '" + plan_.ports[port].name +
                                   "' unresolved; the plan is not in a topological order "
                                   "where each expand precedes its Domain's Calls");
        return it->second;
    }

    void run_call(CallId c) {
        const CallSpec& call = plan_.calls[c];
        if (call.kind == CallKind::Broadcast) {
            // "every entity of D gets its ancestor's outcome and value"
            for (std::size_t e : by_domain_[call.domain]) {
                const Slot& src = item(call.inputs.at(0).port, e);
                publish(call.outputs.at(0), e, src.outcome, src.value);
            }
            return;
        }
        // Evaluate every Grain, then commit per (Call, direct parent): a GroupFailure decides
        // the fate of its not-yet-committed siblings.
        std::map<std::size_t, std::vector<std::pair<std::size_t, GrainResult>>> groups;
        for (std::size_t e : std::vector<std::size_t>(by_domain_[call.domain])) {
            GrainResult r = evaluate(c, e);
            if (r.kind == GrainResult::Kind::Aborted) return;
            groups[entities_[e].parent].emplace_back(e, std::move(r));
        }
        for (auto& [parent, grains] : groups) commit_group(c, parent, grains);
    }

    using Grains = std::vector<std::pair<std::size_t, GrainResult>>;

    void commit_group(CallId c, std::size_t parent, Grains& grains) {
        std::vector<Choice> fates(grains.size());
        bool doomed = entities_[grains.front().first].doomed;  // siblings share it
        if (doomed) {
            // "its children's not-yet-committed work is suppressed": any UDF Grain either way.
            for (std::size_t i = 0; i < grains.size(); ++i)
                if (grains[i].second.kind != GrainResult::Kind::NotRun && plan_.calls[c].factory)
                    fates[i] = ask(c, grains[i]);
        } else {
            decide_barrier(c, parent, grains, fates);
        }
        for (std::size_t i = 0; i < grains.size(); ++i) {
            auto& [e, r] = grains[i];
            if (fates[i].fate == Choice::Fate::Committed)
                commit(c, e, r);
            else if (fates[i].fate == Choice::Fate::Suppressed)
                suppress(c, e);
            else
                commit_streamed(c, e, r, fates[i].streamed);
        }
    }

    // A GroupFailure bars its (Call, direct parent): siblings not committed before it are
    // SUPPRESSED. At least one GroupFailure must have committed to install the barrier. Roots
    // have no direct parent, so a root-Domain GroupFailure bars nothing.
    void decide_barrier(CallId c, std::size_t parent, Grains& grains, std::vector<Choice>& fates) {
        if (parent == kNone) return;  // a root has no siblings: its GroupFailure fails only it
        auto first_gf = std::find_if(grains.begin(), grains.end(), [](const auto& g) {
            return g.second.kind == GrainResult::Kind::GroupFailed;
        });
        if (first_gf == grains.end()) return;
        BarrierGroup barrier{c, parent == kNone ? EntityPath{} : entities_[parent].path, {}};
        std::uint32_t first_ordinal = entities_[first_gf->first].ordinal;
        bool any_group_failure_committed = false;
        for (std::size_t i = 0; i < grains.size(); ++i) {
            auto& [e, r] = grains[i];
            Choice& fate = fates[i];
            if (chooser_)
                fate = ask(c, grains[i]);
            else if (entities_[e].ordinal > first_ordinal)
                fate = Choice::suppressed();
            if (r.kind == GrainResult::Kind::NotRun && r.not_run == Outcome::Suppressed)
                fate = Choice::committed();  // the same either way
            if (plan_.calls[c].kind == CallKind::Expand && r.kind != GrainResult::Kind::Ok &&
                r.kind != GrainResult::Kind::NotRun)
                fate = Choice::committed();  // a failed expand is an Expansion FAILED either way
            if (fate.fate != Choice::Fate::Committed)
                barrier.suppressed.push_back(entities_[e].ordinal);
            else
                any_group_failure_committed |= r.kind == GrainResult::Kind::GroupFailed;
        }
        if (!any_group_failure_committed)
            out_.illegal_choices.push_back("Call '" + plan_.calls[c].name + "' parent " +
                                           to_string(barrier.parent) +
                                           ": every GroupFailure suppressed, no barrier");
        out_.barriers.push_back(std::move(barrier));
    }

    Choice ask(CallId c, const std::pair<std::size_t, GrainResult>& grain) {
        const auto& [e, r] = grain;
        Choice fate = chooser_(c, entities_[e].path, r.children.size());
        if (fate.fate == Choice::Fate::Streamed &&
            (plan_.calls[c].kind != CallKind::Expand || r.kind != GrainResult::Kind::Ok ||
             fate.streamed == 0 || fate.streamed > r.children.size())) {
            out_.illegal_choices.push_back("Call '" + plan_.calls[c].name + "' at " +
                                           to_string(entities_[e].path) + ": streamed " +
                                           std::to_string(fate.streamed) + " of " +
                                           std::to_string(r.children.size()) + " children");
            fate = Choice::suppressed();
        }
        return fate;
    }

    // Input algebra, then the UDF. "Failure beats drop"; an optional DROPPED input is missing.
    GrainResult evaluate(CallId c, std::size_t e) {
        const CallSpec& call = plan_.calls[c];
        GrainResult r;
        std::vector<Value> inputs;
        if (call.kind == CallKind::Reduce) {
            if (!reduce_group(c, e, r, inputs)) return r;
        } else {
            bool failed = false, dropped = false;
            for (const CallInput& in : call.inputs) {
                const Slot& s = item(in.port, e);
                failed |= is_failure(s.outcome);
                dropped |= s.outcome == Outcome::Dropped && in.mode == InputMode::Required;
                inputs.push_back(s.outcome == Outcome::Present ? s.value : Value{});
            }
            if (call.kind == CallKind::Filter && (failed || dropped)) {
                // "source not PRESENT -> propagate it"
                r.kind = GrainResult::Kind::NotRun;
                r.not_run = item(call.inputs.at(0).port, e).outcome;
                return r;
            }
            if (failed || dropped) {
                r.kind = GrainResult::Kind::NotRun;
                r.not_run = failed ? Outcome::Suppressed : Outcome::Dropped;
                return r;
            }
        }
        if (call.kind == CallKind::Reduce && !call.factory) {
            r.outputs.assign(1, inputs.at(0));  // a reduce without a UDF publishes the group
            return r;
        }
        return run_udf(c, e, std::move(inputs));
    }

    // "reduce: Expansion DROPPED -> DROPPED; FAILED -> SUPPRESSED. After success: PRESENT
    // children join, in ordinal order; DROPPED children are left out; any FAILED/SUPPRESSED
    // child suppresses the whole group; zero survivors -> PRESENT empty group."
    bool reduce_group(CallId c, std::size_t e, GrainResult& r, std::vector<Value>& inputs) {
        PortId member_port = plan_.calls[c].inputs.at(0).port;
        const Expansion& x = expansions_.at({plan_.ports[member_port].domain, e});
        r.kind = GrainResult::Kind::NotRun;
        if (x.state != ExpansionState::Succeeded) {
            r.not_run = x.state == ExpansionState::Dropped ? Outcome::Dropped : Outcome::Suppressed;
            return false;
        }
        ReduceGroup group;
        for (std::size_t child : x.children) {
            const Slot& s = item(member_port, child);
            if (is_failure(s.outcome)) {
                r.not_run = Outcome::Suppressed;
                return false;
            }
            if (s.outcome == Outcome::Dropped) continue;
            group.values.push_back(s.value);
            group.ordinals.push_back(entities_[child].ordinal);
        }
        r.kind = GrainResult::Kind::Ok;
        inputs.push_back(Value::of(std::move(group)));
        return true;
    }

    // One Grain per batch, with the Call's recovery policy applied to that single Grain.
    GrainResult run_udf(CallId c, std::size_t e, std::vector<Value> inputs) {
        const CallSpec& call = plan_.calls[c];
        const Entity& ent = entities_[e];
        GrainInfo info{static_cast<EntityId>(e),
                       ent.parent == kNone ? kNoEntity : static_cast<EntityId>(ent.parent),
                       ent.ordinal};
        std::uint32_t infra_failures = 0, opaque_failures = 0;
        for (;;) {
            // A pooled Call runs alone here, on an instance of its own: the reference.
            if (!actors_[c]) {
                actors_[c] = call.pool == kNoPool ? call.factory()
                                                  : call.view(plan_.pools[call.pool].instance());
            }
            OneGrainBatch batch(call, info, inputs);
            GrainResult r;
            try {
                actors_[c]->process(batch);
                return batch.result();
            } catch (const RecordFailure& ex) {
                r.kind = GrainResult::Kind::RecordFailed;
                r.reason = ex.what();
                return r;
            } catch (const GroupFailure& ex) {
                r.kind = GrainResult::Kind::GroupFailed;
                r.reason = ex.what();
                return r;
            } catch (const InfraFailure& ex) {
                // "replay on a fresh actor while infra_retries lasts; then the run reports it"
                actors_[c].reset();
                if (infra_failures++ < call.options.infra_retries) continue;
                return abort(call, std::string("infra failure: ") + ex.what());
            } catch (const ContractError&) {
                throw;
            } catch (const std::exception& ex) {
                if (call.options.recovery == Recovery::Abort)
                    return abort(call, std::string("UDF error: ") + ex.what());
                if (opaque_failures++ < call.options.retries) continue;
                // A single Grain that still fails alone is FAILED (isolate_tail's end point).
                r.kind = GrainResult::Kind::RecordFailed;
                r.reason = ex.what();
                return r;
            }
        }
    }

    GrainResult abort(const CallSpec& call, std::string reason) {
        out_.aborted = true;
        out_.abort_reason = "Call '" + call.name + "': " + reason;
        GrainResult r;
        r.kind = GrainResult::Kind::Aborted;
        return r;
    }

    void commit(CallId c, std::size_t e, const GrainResult& r) {
        const CallSpec& call = plan_.calls[c];
        using K = GrainResult::Kind;
        if (call.kind == CallKind::Expand) {
            // "Success -> SUCCEEDED(children); source DROPPED -> DROPPED; else FAILED"
            Expansion x;
            DomainId child_domain = plan_.ports[call.outputs.at(0)].domain;
            if (r.kind == K::Ok) {
                for (std::size_t i = 0; i < r.children.size(); ++i) {
                    std::size_t child = new_entity(child_domain, e, static_cast<std::uint32_t>(i));
                    x.children.push_back(child);
                    publish(call.outputs[0], child, Outcome::Present, r.children[i]);
                }
            } else {
                bool dropped = r.kind == K::NotRun && r.not_run == Outcome::Dropped;
                x.state = dropped ? ExpansionState::Dropped : ExpansionState::Failed;
            }
            expansions_[{child_domain, e}] = std::move(x);
            return;
        }
        for (std::size_t o = 0; o < call.outputs.size(); ++o) {
            switch (r.kind) {
                case K::NotRun: publish(call.outputs[o], e, r.not_run); break;
                case K::RecordFailed:
                case K::GroupFailed: publish(call.outputs[o], e, Outcome::Failed); break;
                case K::Aborted: break;
                case K::Ok:
                    if (call.kind != CallKind::Filter)
                        publish(call.outputs[o], e, Outcome::Present, r.outputs.at(o));
                    else if (r.keep)
                        publish(call.outputs[o], e, Outcome::Present,
                                item(call.inputs.at(0).port, e).value);
                    else
                        publish(call.outputs[o], e, Outcome::Dropped);
                    break;
            }
        }
    }

    void suppress(CallId c, std::size_t e) {
        GrainResult r;
        r.kind = GrainResult::Kind::NotRun;
        r.not_run = Outcome::Suppressed;
        commit(c, e, r);
    }

    // An expand whose first `n` children streamed out before its commit was fenced.
    void commit_streamed(CallId c, std::size_t e, const GrainResult& r, std::uint32_t n) {
        const CallSpec& call = plan_.calls[c];
        Expansion x;
        x.state = ExpansionState::Failed;
        DomainId child_domain = plan_.ports[call.outputs.at(0)].domain;
        for (std::uint32_t i = 0; i < n; ++i) {
            x.children.push_back(new_entity(child_domain, e, i, true));
            publish(call.outputs[0], x.children.back(), Outcome::Present, r.children[i]);
        }
        expansions_[{child_domain, e}] = std::move(x);
        ++out_.fenced_streams;
    }

    // A root is Failed when anything in its subtree failed (a suppression always comes from a
    // failure in the same subtree); else Ok when some result port -- one no Call reads -- holds a
    // PRESENT Item of its subtree; else Dropped.
    void finish(std::size_t root_count) {
        std::vector<bool> read(plan_.ports.size(), false);
        for (const CallSpec& call : plan_.calls)
            for (const CallInput& in : call.inputs) read[in.port] = true;
        std::vector<bool> failed(root_count, false), result(root_count, false);
        for (const auto& [key, slot] : items_) {
            const Entity& ent = entities_[key.second];
            out_.items[{key.first, ent.path}] = {
                slot.outcome, slot.outcome == Outcome::Present ? canonical(slot.value) : ""};
            if (is_failure(slot.outcome)) failed[ent.path[0]] = true;
            if (slot.outcome == Outcome::Present && !read[key.first]) result[ent.path[0]] = true;
        }
        for (const auto& [key, x] : expansions_)
            if (x.state == ExpansionState::Failed) failed[entities_[key.second].path[0]] = true;
        for (std::size_t r = 0; r < root_count; ++r)
            out_.roots.push_back(failed[r]   ? RootStatus::Failed
                                 : result[r] ? RootStatus::Ok
                                             : RootStatus::Dropped);
    }

    const Plan& plan_;
    const BarrierChooser& chooser_;
    std::vector<Entity> entities_;
    std::vector<std::vector<std::size_t>> by_domain_;
    std::map<std::pair<PortId, std::size_t>, Slot> items_;
    std::map<std::pair<DomainId, std::size_t>, Expansion> expansions_;
    std::vector<std::unique_ptr<Actor>> actors_;
    RefRun out_;
};

}  // namespace

std::string to_string(const EntityPath& path) {
    std::string out;
    for (std::size_t i = 0; i < path.size(); ++i) {
        if (i) out += '.';
        out += std::to_string(path[i]);
    }
    return out.empty() ? "(none)" : out;
}

RefRun interpret(const Plan& plan, const std::vector<Value>& roots, const BarrierChooser& chooser) {
    return Interpreter(plan, chooser).run(roots);
}

}  // namespace rop::runtime::reference
