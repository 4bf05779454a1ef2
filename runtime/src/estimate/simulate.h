// A run in virtual time (--estimate, docs/runtime.md "Estimates"): the real driver (admission,
// scheduling, commit) over an executor that runs no UDF but says when each batch would end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "rop/runtime/plan.h"
#include "rop/runtime/run.h"

namespace rop::runtime::estimate {

// What a simulated item is: the payload bytes it stands for (admission counts them through
// rop::ByteSize) and its weight, the size of its root relative to the mean (an expand's fan-out
// and its cost per Grain scale with it; the expand's children weigh 1).
struct SimItem {
    std::uint64_t bytes = 64;
    double scale = 1;
};

// One Call's model, fitted from a sample run (estimate.cpp) or written by hand (tests).
struct CallCost {
    double fixed_s = 0;        // a: seconds per batch
    double per_item_s = 0;     // b: seconds per Grain (an expand's: per Grain of weight 1)
    double keep = 1;           // filter: the share of Grains kept
    double fanout = 1;         // expand: children per Grain, times the parent's scale
    std::uint64_t bytes = 64;  // payload bytes of each item it outputs
    // The share of a batch's time its actor spends on a CPU (the rest: sleeping, waiting on a
    // device or a disk); this part shares SimModel::cores with the other running batches'.
    double cpu_share = 0;
    // A batch of `work` Grains (an expand's: the sum of their weights).
    double batch_s(double work) const { return fixed_s + per_item_s * work; }
};

struct SimModel {
    std::vector<CallCost> calls;      // by CallId; a missing one costs nothing
    std::vector<double> root_scales;  // by root ordinal; missing: 1
    std::uint64_t root_bytes = 64;
    // The cores the running batches' CPU parts share (processor sharing); 0: as many as they
    // ask for (every batch runs at its cost).
    double cores = 0;
    // The share of a core the driver keeps busy all along (admission, scheduling, commits),
    // asking for its part of the cores beside the running batches'.
    double driver_cpu = 0;
};

struct SimCall {
    std::string name;
    std::uint32_t actors = 0;  // of its actor set (a shared pool's for a pool's Calls)
    std::uint64_t batches = 0;
    std::uint64_t grains = 0;
    double busy_s = 0;       // the sum of its batches' predicted times
    double utilization = 0;  // busy_s / (makespan x actors); a pool's Calls share their actors
};

struct SimOutcome {
    double makespan_s = 0;                        // virtual: the last root's commit
    double first_root_s = 0;                      // virtual: the first root's commit
    std::vector<double> commit_s;                 // per root ordinal: when it finished (virtual)
    std::vector<double> latency_s;                // per root ordinal: admission to commit (virtual)
    double p50_latency_s = 0, p99_latency_s = 0;  // nearest rank over latency_s
    std::vector<SimCall> calls;                   // by CallId
    // The share of the work done over virtual time: (share, seconds) at each hundredth, from
    // (0, 0); the share is each Call's Grains done over its total, weighted by its busy time
    // (what the --with-estimate ETA measures in the real run).
    std::vector<std::pair<double, double>> progress;
    // The most payload in flight at once (the real Engine's count over the simulated items, each
    // the bytes the model gives it), for the memory prediction.
    std::uint64_t peak_live_bytes = 0;
    std::uint64_t peak_live_items = 0;
    std::size_t failed_roots = 0;  // a bug or a contract error, never expected
    double wall_s = 0;             // real time the simulation took
};

// Runs `roots` synthetic roots through `plan` with the real Engine, Scheduler and Committer and
// a virtual-time executor: each batch goes to the next free virtual actor of its Call's set
// (a pool's Calls share one) and ends cost(Call, size) later (longer while the running batches'
// CPU parts ask for more than model.cores); batches end one at a time, earliest
// first, each only once the driver has dealt with the last one and waits, so it dispatches
// exactly as its rules would at that moment. `options` gives admission's limits
// (max_inflight_roots, max_payload_bytes); its sinks, journal, observers and callbacks are
// ignored. Deterministic: the same inputs give the same times.
SimOutcome simulate(const Plan& plan, const SimModel& model, std::size_t roots,
                    const RunOptions& options = {});

}  // namespace rop::runtime::estimate

// Admission counts a simulated item as the bytes it stands for.
template <>
struct rop::ByteSize<rop::runtime::estimate::SimItem> {
    static std::size_t of(const rop::runtime::estimate::SimItem& item) {
        return static_cast<std::size_t>(item.bytes);
    }
};
