// Where each actor of a plan runs, across the ranks of an MPI job (or the one process of a
// single-machine run), and on which GPUs (docs/cluster.md, "Placement"):
// - a Call's actors go, one at a time, to the rank with the fewest actors per core so far (ties:
//   the lowest rank), so every Call is spread over the ranks;
// - an actor of a Call with `gpus g` (g >= 1, whole) needs g devices of one node to itself; one
//   with a share (g < 1) takes g of a device that others share (first fit). Devices belong to a
//   node, whichever of its ranks hosts the actor. No device left: PlacementError at start;
// - no GPU in the whole job: Calls with gpus run on CPU actors (their CPU path), said once;
// - a shared pool's actors are placed once, where its first Call is; its Calls share them.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "rop/runtime/plan.h"

namespace rop::runtime::detail {

struct RankInfo {
    int rank = 0;
    std::string host;
    unsigned cores = 1;
    int gpus = 0;            // devices this rank's node has (as the rank sees them)
    std::string gpu_source;  // how they were counted (gpu_devices.h)
};

struct ActorSite {
    int rank = 0;
    std::vector<int> devices;  // on the rank's node; empty: CPU only
};

struct CallPlacement {
    std::vector<ActorSite> sites;  // one per actor; empty for a Call without actors
};

struct Placement {
    std::vector<CallPlacement> calls;  // per Call of the plan (a pooled Call: its pool's sites)
    std::vector<CallPlacement> pools;  // per shared pool of the plan (PoolSpec)
    bool gpus_wanted = false;          // some Call asks for gpus
    bool gpus_found = false;           // and the job has devices to give it
};

class PlacementError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// `ranks`: the ranks that host actors (MPI: 1..N-1; one machine: rank 0 alone).
Placement place(const Plan& plan, const std::vector<RankInfo>& ranks);

// The table --explain-placement prints: per Call, its actors per rank and their devices.
std::string explain(const Plan& plan, const Placement& placement,
                    const std::vector<RankInfo>& ranks);

}  // namespace rop::runtime::detail
