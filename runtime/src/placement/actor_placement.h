// Where a Call's actors run (docs/runtime.md "Placement of actors"). An executor (threads,
// inline) calls each Call's actor factory on the thread that will run the actor's batches; the
// actor's placement decides what that factory makes there:
//  - ThreadPlacement: the UDF's actor itself, on that thread;
//  - ProcessPlacement (process_actor.cpp): a proxy to a worker process of this binary that runs
//    the actor (`isolation process`): a crash there is an infra failure of its batch;
//  - RankPlacement (mpi/, rop_runtime_mpi): a proxy to a slot on another rank of an MPI job,
//    which places the actor again there (thread or process).
// On one machine with GPUs, the Calls with gpus also get their thread pinned to their devices
// before the actor (or its worker) is made. place_actors() is the one place that chooses.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rop/runtime/plan.h"
#include "rop/runtime/run.h"
#include "sites.h"

namespace rop::runtime::detail {

class ActorPlacement {
  public:
    virtual ~ActorPlacement() = default;
    virtual const char* name() const = 0;  // "thread", "process", "rank"
    // What the executor's actor thread calls to get one of `call`'s actors, or one actor of
    // shared pool `pool` (which serves the batches of the pool's Calls).
    virtual ActorFactory factory(CallId call, const Plan& plan) const = 0;
    virtual ActorFactory pool_factory(PoolId pool, const Plan& plan) const = 0;
};

// What the choice depends on beyond the plan (RunOptions::placement; pipeline_main makes it).
struct PlacementChoice {
    // The other ranks of an MPI job host every actor (rank 0): their placement. Null: here.
    std::shared_ptr<const ActorPlacement> ranks;
    // This machine's devices for the Calls with gpus (placement.h): each actor's thread is
    // pinned to its devices first. Null: no pinning.
    std::shared_ptr<const Placement> devices;
};

std::unique_ptr<ActorPlacement> make_thread_placement();
// Workers started as `worker_argv` (RunOptions::worker_argv) plus the worker flag (process.h).
std::unique_ptr<ActorPlacement> make_process_placement(std::vector<std::string> worker_argv);

// The one place that chooses (docs/runtime.md "Placement of actors"): `plan` with every Call
// that has actors given the factory of its placement: the other ranks' when
// options.placement->ranks, else a worker process's for `isolation process` (ContractError
// when options.worker_argv is empty), else the executor's thread's; pinned to the Call's
// devices when options.placement->devices has some. A shared pool is placed likewise, as a
// whole (its PoolSpec::factory; its `isolation`). run() calls it; an MPI worker rank too, for
// the actors it hosts.
Plan place_actors(const Plan& plan, const RunOptions& options);

}  // namespace rop::runtime::detail
