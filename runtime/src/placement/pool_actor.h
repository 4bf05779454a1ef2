// One actor of a shared pool (PoolSpec, docs/runtime.md "Shared pools"): an Actor that serves the
// batches of several Calls, handing each to the actor of its Call (Batch::call), made on that
// Call's first batch. For a pool placed on threads, that Call's actor is its view of the one
// instance of the pool's class this actor holds (make_pool_actor); the result store wraps each
// Call's part of a pool actor on its own (ResultCache::wrap), around one shared pool actor.
#pragma once

#include <atomic>
#include <memory>
#include <utility>
#include <vector>

#include "rop/runtime/plan.h"

namespace rop::runtime::detail {

class PoolActor final : public Actor {
  public:
    // `calls`: each Call of the pool with the factory of its actor on this pool actor.
    // `shared`: what every Call's actor works on (the instance, or an inner pool actor): kept
    // alive as long as this actor; cancel() reaches the Call's actor running a batch.
    PoolActor(std::vector<std::pair<CallId, ActorFactory>> calls, std::shared_ptr<void> shared);

    void process(Batch& batch) override;
    void cancel() noexcept override;

  private:
    std::vector<std::pair<CallId, ActorFactory>> calls_;
    std::vector<std::unique_ptr<Actor>> actors_;  // per entry of calls_, made on first use
    std::shared_ptr<void> shared_;
    std::atomic<Actor*> running_{nullptr};
};

// The factory of a thread-placed actor of pool `pool`: a PoolActor over one new instance of the
// pool's class, each Call's actor its view of it (CallSpec::view).
ActorFactory make_pool_actor(const Plan& plan, PoolId pool);

// An actor that hands every call on to `shared` (a pool actor that several wrappers use).
std::unique_ptr<Actor> forward_to(std::shared_ptr<Actor> shared);

}  // namespace rop::runtime::detail
