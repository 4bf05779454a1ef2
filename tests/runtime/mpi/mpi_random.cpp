// The randomized reference comparison (random_test.cpp) under the MPI executor: every rank builds
// the same seeded random pipeline; rank 0 runs it with every actor placed on the other ranks and
// compares what it observed with the sequential reference, while the other ranks host the
// actors. Run under mpirun: `rop_mpi_random FIRST COUNT` checks seeds FIRST .. FIRST+COUNT-1.
//
// First-attempt-only faults (transient, infra) are not injected (set_first_attempt_faults): such
// a fault is spent in the process that saw it, so a retry placed on another rank would fail
// again, which the reference, one process, never does. Every other feature (record, group and
// poison failures, barriers, multi-output Calls, nested reduces, broadcast, filter, random batch
// caps, actor counts and completion order) runs. Exit 0 when every seed matched.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "placement/actor_placement.h"
#include "placement/mpi_runtime.h"
#include "reference/compare.h"
#include "reference/random_pipeline.h"

using namespace rop::runtime;
using namespace rop::runtime::reference;

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: mpirun -np N %s FIRST_SEED COUNT\n", argv[0]);
        return 2;
    }
    const std::uint64_t first = std::strtoull(argv[1], nullptr, 10);
    const std::uint64_t count = std::strtoull(argv[2], nullptr, 10);
    detail::MpiRuntime* mpi = detail::mpi_runtime();
    if (!mpi) {
        std::fprintf(stderr, "this test must be linked with rop_runtime_mpi\n");
        return 2;
    }
    mpi->start();
    if (mpi->size() < 2) {
        std::fprintf(stderr, "run it under mpirun with 2 or more ranks\n");
        mpi->finish();
        return 2;
    }
    set_first_attempt_faults(false);
    int failures = 0, checked = 0;
    std::size_t items = 0, barriers = 0;
    for (std::uint64_t seed = first; seed < first + count; ++seed) {
        const RandomPipeline pipeline = make_random_pipeline(seed, true);
        if (mpi->rank() > 0) {
            if (mpi->serve(pipeline.plan, RunOptions{}, std::cerr) != 0) ++failures;
            continue;
        }
        LiveRun live;
        live.place = [mpi](const Plan& plan) {
            auto choice = std::make_shared<detail::PlacementChoice>();
            std::string table;
            choice->ranks = mpi->place_on_ranks(plan, table);
            return std::shared_ptr<const detail::PlacementChoice>(std::move(choice));
        };
        live.after = [mpi] { mpi->end_run(); };
        const SeedCheck check = check_seed(seed, false, live);
        ++checked;
        items += check.items;
        barriers += check.barriers;
        if (!check.diff.empty() && check.diff.find(": ok\n") == std::string::npos) {
            ++failures;
            std::fputs(check.diff.c_str(), stderr);
        }
    }
    if (mpi->rank() == 0) {
        std::printf(
            "[mpi random] %d ranks: %d seeds matched the reference (%zu items, %zu barrier "
            "groups), %d failed\n",
            mpi->size(), checked - failures, items, barriers, failures);
    }
    mpi->finish();
    return failures == 0 ? 0 : 1;
}
