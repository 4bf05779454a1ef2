// place_actors and ThreadPlacement (actor_placement.h).
#include "actor_placement.h"

#include <atomic>

#include "gpu_devices.h"
#include "pool_actor.h"

namespace rop::runtime::detail {
namespace {

class ThreadPlacement final : public ActorPlacement {
  public:
    const char* name() const override { return "thread"; }
    ActorFactory factory(CallId call, const Plan& plan) const override {
        return plan.calls[call].factory;
    }
    ActorFactory pool_factory(PoolId pool, const Plan& plan) const override {
        return make_pool_actor(plan, pool);
    }
};

// Each actor made by `inner` on a thread pinned to the next site's devices first (a worker
// process started from that thread inherits them: CUDA_VISIBLE_DEVICES).
ActorFactory pinned(ActorFactory inner, const CallPlacement& sites) {
    auto shared = std::make_shared<const CallPlacement>(sites);
    auto next = std::make_shared<std::atomic<std::size_t>>(0);
    return [inner = std::move(inner), shared, next] {
        pin_thread(shared->sites[next->fetch_add(1) % shared->sites.size()].devices);
        return inner();
    };
}

}  // namespace

std::unique_ptr<ActorPlacement> make_thread_placement() {
    return std::make_unique<ThreadPlacement>();
}

Plan place_actors(const Plan& plan, const RunOptions& options) {
    const PlacementChoice none;
    const PlacementChoice& choice = options.placement ? *options.placement : none;
    const std::unique_ptr<ActorPlacement> threads = make_thread_placement();
    std::unique_ptr<ActorPlacement> processes;
    Plan out = plan;
    // Where actors of these options go: the other ranks', a worker process's, or this thread's.
    auto where_for = [&](const std::string& name, const CallOptions& o) -> const ActorPlacement* {
        if (choice.ranks) return choice.ranks.get();
        if (o.isolation != Isolation::Process) return threads.get();
        if (options.worker_argv.empty()) {
            throw ContractError("run: " + name +
                                " asks for isolation process, but RunOptions::worker_argv "
                                "is empty (pipeline_main sets it to the binary itself)");
        }
        if (!processes) processes = make_process_placement(options.worker_argv);
        return processes.get();
    };
    auto pin = [&](ActorFactory factory, const std::vector<CallPlacement>* sites, std::size_t i) {
        if (!choice.ranks && sites && i < sites->size() && !(*sites)[i].sites.empty() &&
            !(*sites)[i].sites.front().devices.empty()) {
            return pinned(std::move(factory), (*sites)[i]);
        }
        return factory;
    };
    for (std::size_t c = 0; c < out.calls.size(); ++c) {
        CallSpec& spec = out.calls[c];
        if (!spec.factory || spec.pool != kNoPool) continue;  // inline, or the pool's actors
        const ActorPlacement* where = where_for("call '" + spec.name + "'", spec.options);
        spec.factory = pin(where->factory(static_cast<CallId>(c), plan),
                           choice.devices ? &choice.devices->calls : nullptr, c);
    }
    for (std::size_t p = 0; p < out.pools.size(); ++p) {
        PoolSpec& pool = out.pools[p];
        if (pool.calls.empty()) continue;
        const ActorPlacement* where = where_for("pool '" + pool.name + "'", pool.options);
        pool.factory = pin(where->pool_factory(static_cast<PoolId>(p), plan),
                           choice.devices ? &choice.devices->pools : nullptr, p);
    }
    return out;
}

}  // namespace rop::runtime::detail
