// The sequential reference interpreter: SEMANTICS.md executed one Grain per batch, Call by Call
// in plan order, entity by entity. It is the oracle of the randomized runtime tests: clarity over
// speed. It uses the Plan's own Actor factories, so it sees exactly the UDFs the runtime runs.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "rop/runtime/plan.h"
#include "rop/runtime/run.h"

namespace rop::runtime::reference {

// A schedule-independent Item coordinate.
struct ItemKey {
    PortId port;
    EntityPath path;
    auto operator<=>(const ItemKey&) const = default;
};

// A terminal Item: its outcome and, when PRESENT, its canonical content (tok.h).
struct ItemFact {
    Outcome outcome = Outcome::Unresolved;
    std::string value;
    bool operator==(const ItemFact&) const = default;
};

// A (Call, direct parent) group whose GroupFailure installed a suppression barrier.
struct BarrierGroup {
    CallId call;
    EntityPath parent;
    std::vector<std::uint32_t> suppressed;  // ordinals of siblings sealed SUPPRESSED by it
    auto operator<=>(const BarrierGroup&) const = default;
};

struct RefRun {
    std::map<ItemKey, ItemFact> items;
    std::vector<RootStatus> roots;  // in source order
    std::vector<BarrierGroup> barriers;
    std::size_t fenced_streams = 0;  // expands chosen Streamed (their subtrees are doomed)
    bool aborted = false;
    std::string abort_reason;
    // Choices a BarrierChooser made that no schedule can produce (e.g. every GroupFailure of a
    // group suppressed, so that no barrier could have been installed).
    std::vector<std::string> illegal_choices;
};

// Schedule-dependent fates (SEMANTICS.md "GroupFailure"): a sibling in a barrier group that
// committed before the barrier keeps its facts; a later one is SUPPRESSED. An expand sibling may
// also have streamed a prefix of its children before its commit was fenced: those children stay
// facts, its Expansion is FAILED, and its whole subtree is "doomed": each of its UDF Grains
// either committed before the doom or was suppressed. The chooser reports what a schedule did.
struct Choice {
    enum class Fate { Committed, Suppressed, Streamed };
    Fate fate = Fate::Committed;
    std::uint32_t streamed = 0;  // Streamed: children emitted before the fence (>= 1)
    static Choice committed() { return {}; }
    static Choice suppressed() { return {Fate::Suppressed, 0}; }
    static Choice streamed_then_fenced(std::uint32_t n) { return {Fate::Streamed, n}; }
};

// Asked for every Grain of a barrier group, and for every UDF Grain of a doomed entity.
// `natural_children`: what an expand Grain emits when it commits (0 for other Calls). Without a
// chooser the interpreter plays its own sequential schedule: siblings with a lower ordinal than
// the first GroupFailure commit, later ones are suppressed, nothing streams.
using BarrierChooser =
    std::function<Choice(CallId call, const EntityPath& grain, std::size_t natural_children)>;

// Root status (the runtime's RootResult): Failed when anything in the root's subtree failed;
// else Ok when a result port (one no Call reads) holds a PRESENT Item of it; else Dropped.
RefRun interpret(const Plan& plan, const std::vector<Value>& roots,
                 const BarrierChooser& chooser = {});

std::string to_string(const EntityPath& path);

}  // namespace rop::runtime::reference
