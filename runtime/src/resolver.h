// Resolution of Grains whose inputs became terminal: the Call input algebra, filter, broadcast,
// expand and reduce rules (pure functions in transitions.h) applied to the lineage store. A
// Grain either becomes READY (the scheduler's queue) or seals without running.
#pragma once

#include <vector>

#include "lineage_store.h"

namespace rop::runtime::detail {

class Committer;
class Scheduler;

class Resolver {
  public:
    Resolver(LineageStore& store, Scheduler& scheduler, const Committer& committer,
             std::vector<CallCounters>& counters)
        : store_(store), scheduler_(scheduler), committer_(committer), counters_(counters) {}
    Resolver(const Resolver&) = delete;
    Resolver& operator=(const Resolver&) = delete;

    void drain();  // resolves the store's pending tasks, FIFO, until none is left
    void seal_without_running(CallId call, std::uint32_t local, Outcome outcome, GrainEvent ev);

  private:
    void resolve(CallId call, std::uint32_t local);
    void make_ready(CallId call, std::uint32_t local);
    void count_not_run(CallId call, Outcome outcome);  // suppressed / dropped

    LineageStore& store_;
    Scheduler& scheduler_;
    const Committer& committer_;
    std::vector<CallCounters>& counters_;
    std::vector<Outcome> scratch_;
};

}  // namespace rop::runtime::detail
