// place_actors and ThreadPlacement (actor_placement.h).
#include "actor_placement.h"

#include <atomic>

#include "gpu_devices.h"

namespace rop::runtime::detail {
namespace {

class ThreadPlacement final : public ActorPlacement {
  public:
    const char* name() const override { return "thread"; }
    ActorFactory factory(CallId, const CallSpec& spec) const override { return spec.factory; }
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
    for (std::size_t c = 0; c < out.calls.size(); ++c) {
        CallSpec& spec = out.calls[c];
        if (!spec.factory) continue;  // inline: broadcast, a reduce without a UDF
        const auto call = static_cast<CallId>(c);
        const ActorPlacement* where = threads.get();
        if (choice.ranks) {
            where = choice.ranks.get();
        } else if (spec.options.isolation == Isolation::Process) {
            if (options.worker_argv.empty()) {
                throw ContractError("run: call '" + spec.name +
                                    "' asks for isolation process, but RunOptions::worker_argv "
                                    "is empty (pipeline_main sets it to the binary itself)");
            }
            if (!processes) processes = make_process_placement(options.worker_argv);
            where = processes.get();
        }
        ActorFactory factory = where->factory(call, plan.calls[c]);
        if (!choice.ranks && choice.devices && c < choice.devices->calls.size() &&
            !choice.devices->calls[c].sites.empty() &&
            !choice.devices->calls[c].sites.front().devices.empty()) {
            factory = pinned(std::move(factory), choice.devices->calls[c]);
        }
        spec.factory = std::move(factory);
    }
    return out;
}

}  // namespace rop::runtime::detail
