// The seam to the MPI executor (docs/cluster.md), which lives in its own library,
// rop_runtime_mpi, so that a single-machine binary does not depend on MPI: `ropc build --mpi`
// links it (and names its entry point, rop_mpi_runtime, so the linker keeps it).
//
// Under mpirun or srun every rank runs the same binary with the same arguments. Rank 0 is the
// driver (plan, lineage, scheduling, commit, sinks, journal); the others host the actors it
// places on them and run the batches it sends (each actor a thread there, or its own worker
// process for `isolation process`). MPI has no fault tolerance: a rank that dies ends the job;
// the journal on rank 0 lets --resume continue.
#pragma once

#include <memory>
#include <ostream>
#include <string>

#include "rop/runtime/plan.h"
#include "rop/runtime/run.h"

namespace rop::runtime::detail {

class ActorPlacement;

class MpiRuntime {
  public:
    virtual ~MpiRuntime() = default;
    // MPI_Init_thread; ranks >= 1 then tell rank 0 their host, cores and GPUs.
    virtual void start() = 0;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    // Ranks >= 1: hosts the actors rank 0 places here for one run, until rank 0 ends it (or is
    // gone). `options.worker_argv` starts process-isolated actors on this rank. Returns the
    // exit status.
    virtual int serve(const Plan& plan, const RunOptions& options, std::ostream& err) = 0;
    // Rank 0: where every actor of `plan` runs (placement.h: which rank, which devices), as the
    // placement of the actors (actor_placement.h: a proxy to its rank's slot); `explanation`
    // gets the placement table. Throws PlacementError. Opens a run.
    virtual std::shared_ptr<const ActorPlacement> place_on_ranks(const Plan& plan,
                                                                 std::string& explanation) = 0;
    // Rank 0: the sinks in `options` write the items themselves: an item another rank keeps
    // (docs/cluster.md, payloads worker to worker) is fetched first.
    virtual void deliver(RunOptions& options) = 0;
    // Rank 0: ends the open run (after run() returned): the other ranks' serve() returns, and
    // tell their counts for summary().
    virtual void end_run() = 0;
    // Rank 0, after end_run(): with --cache, what each hosting rank's side of the result store
    // counted (hits, misses and their reasons per Call) and said, added to `report`.
    virtual void add_cache_counts(RunReport& report) const = 0;
    // Every rank: ends the open run (rank 0), then MPI_Finalize. Idempotent.
    virtual void finish() = 0;
    // "3 ranks; 0.1 MiB in 712 frames through rank 0; 40.2 MiB of items in 160 fetches rank to
    // rank (0.25% of the bytes moved went through rank 0); one rank held at most 20.3 MiB at
    // once, 40.0 MiB kept in all"
    virtual std::string summary() const = 0;
};

// The MPI executor when rop_runtime_mpi is linked, else nullptr.
MpiRuntime* mpi_runtime();

// How many ranks the launcher (mpirun, srun) started, from its environment; 0 when the process
// was not started by one.
int launched_ranks();

// Returns once every rank of this launch has called it too (a PMIx fence, through libpmix.so.2
// loaded here; mpirun and srun --mpi=pmix serve it), at once without PMIx. For a refusal every
// rank prints: the launcher ends the job when a first rank exits non-zero, and a rank slower to
// start would be killed before it spoke.
void await_launched_ranks();

// Why this launch cannot run, or "": srun started several tasks without a process-management
// interface (`--mpi=none`, Slurm's default), so none can find the others.
std::string launch_problem();

}  // namespace rop::runtime::detail
