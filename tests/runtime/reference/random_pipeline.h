// Seeded random pipelines for the runtime tests: Domains up to 4 deep, fan-out 0..50, filters,
// broadcasts from ancestors, multi-input (optional) and multi-output maps, nested reduces with and
// without a UDF, and injected typed, opaque and infra failures (random_udf.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "random_udf.h"
#include "rop/runtime/plan.h"

namespace rop::runtime::reference {

struct RandomPipeline {
    Plan plan;
    std::vector<Value> roots;
    std::shared_ptr<UdfEnv> env;  // this instance's UDF state (build one pipeline per run)
    std::size_t max_inflight_roots = 64;
    std::string description;  // the Calls and the schedule knobs, one per line
};

// The structure, UDFs and failures depend on `seed` only. With `random_schedule` the physical
// knobs (batch caps, actors, batching mode, completion-order jitter, admission) are drawn from
// the seed too; otherwise each Call runs one Grain per batch on one actor.
RandomPipeline make_random_pipeline(std::uint64_t seed, bool random_schedule);

// Off: the pipelines draw the same structure and faults but inject no first-attempt-only faults
// (transient, infra). Such a fault is spent in the process that saw it (UdfEnv::fire), so under
// MPI a retry placed on another rank would fail again, which the one-process reference never
// does (tests/runtime/mpi/mpi_random.cpp). On by default.
void set_first_attempt_faults(bool on);

}  // namespace rop::runtime::reference
