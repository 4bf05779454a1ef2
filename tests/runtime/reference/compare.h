// One randomized check: run a seeded random pipeline on the real runtime and on the reference
// interpreter, and explain every difference.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "placement/actor_placement.h"
#include "rop/runtime/plan.h"

namespace rop::runtime::reference {

struct SeedCheck {
    std::string diff;  // empty when the runtime matched the reference
    std::size_t items = 0;
    std::size_t barriers = 0;
    std::size_t fenced_streams = 0;
};

// GroupFailure: which siblings of a barrier group were suppressed is read from the runtime's
// observations and replayed into the reference (interpreter.h, BarrierChooser), which then
// requires exact equality for everything else, and rejects choices no schedule can make.
SeedCheck check_seed(std::uint64_t seed, bool verbose = false);

// Where the live run happens when not in this process alone (the MPI test): `place` turns the
// live plan into the one run() gets, `after` runs once run() returned.
struct LiveRun {
    // Where the actors run (actor_placement.h; null: here): RunOptions::placement.
    std::function<std::shared_ptr<const detail::PlacementChoice>(const Plan&)> place;
    std::function<void()> after;
};
SeedCheck check_seed(std::uint64_t seed, bool verbose, const LiveRun& live);

// The one-line replay command printed with a failing seed.
std::string replay_command(std::uint64_t seed);

}  // namespace rop::runtime::reference
