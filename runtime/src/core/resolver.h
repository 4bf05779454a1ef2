// Resolution of Grains whose inputs became terminal: the Call input algebra, filter, broadcast,
// expand and reduce rules (pure functions in transitions.h) applied to the lineage store. A
// Grain either becomes READY (handed to a ReadySink: the scheduler's queue) or seals without
// running. It reads the store and changes it only through its operations.
#pragma once

#include <vector>

#include "lineage_store.h"

namespace rop::runtime::detail {

// Where READY Grains go (the Scheduler's ready queues).
class ReadySink {
  public:
    virtual ~ReadySink() = default;
    virtual void enqueue_ready(CallId call, std::uint32_t local) = 0;
};

class Resolver {
  public:
    Resolver(LineageStore& store, ReadySink& ready) : store_(store), ready_(ready) {}
    Resolver(const Resolver&) = delete;
    Resolver& operator=(const Resolver&) = delete;

    void drain();  // resolves the store's pending tasks, FIFO, until none is left

  private:
    void resolve(CallId call, std::uint32_t local);
    void make_ready(CallId call, std::uint32_t local);

    LineageStore& store_;
    ReadySink& ready_;
    std::vector<Outcome> scratch_;
};

}  // namespace rop::runtime::detail
