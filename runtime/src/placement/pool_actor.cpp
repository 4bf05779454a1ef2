// PoolActor, make_pool_actor, forward_to (pool_actor.h).
#include "pool_actor.h"

#include <string>

#include "rop/runtime/executor.h"

namespace rop::runtime::detail {

PoolActor::PoolActor(std::vector<std::pair<CallId, ActorFactory>> calls,
                     std::shared_ptr<void> shared)
    : calls_(std::move(calls)), actors_(calls_.size()), shared_(std::move(shared)) {}

void PoolActor::process(Batch& batch) {
    const CallId call = batch.call();
    std::size_t i = 0;
    while (i < calls_.size() && calls_[i].first != call) ++i;
    if (i == calls_.size()) {
        throw ContractError("pool actor: a batch of call " +
                            (call == kNoCall ? std::string("(none)") : std::to_string(call)) +
                            ", which is not one of the pool's");
    }
    if (!actors_[i]) {
        actors_[i] = calls_[i].second();
        if (!actors_[i]) throw ContractError("pool actor: a call's view is empty");
    }
    running_.store(actors_[i].get());
    struct Done {
        std::atomic<Actor*>& running;
        ~Done() { running.store(nullptr); }
    } done{running_};
    actors_[i]->process(batch);
}

void PoolActor::cancel() noexcept {
    if (Actor* actor = running_.load()) actor->cancel();
}

ActorFactory make_pool_actor(const Plan& plan, PoolId pool) {
    const PoolSpec& spec = plan.pools.at(pool);
    std::vector<std::pair<CallId, PoolView>> views;
    for (const CallId c : spec.calls) views.emplace_back(c, plan.calls[c].view);
    return [instance = spec.instance, views = std::move(views)]() -> std::unique_ptr<Actor> {
        PoolInstance made = instance();
        if (!made) throw ContractError("the pool's instance factory returned nothing");
        std::vector<std::pair<CallId, ActorFactory>> calls;
        for (const auto& [call, view] : views) {
            calls.emplace_back(call, [view, made] { return view(made); });
        }
        return std::make_unique<PoolActor>(std::move(calls), made);
    };
}

std::unique_ptr<Actor> forward_to(std::shared_ptr<Actor> shared) {
    class Forward final : public Actor {
      public:
        explicit Forward(std::shared_ptr<Actor> inner) : inner_(std::move(inner)) {}
        void process(Batch& batch) override { inner_->process(batch); }
        void cancel() noexcept override { inner_->cancel(); }

      private:
        std::shared_ptr<Actor> inner_;
    };
    return std::make_unique<Forward>(std::move(shared));
}

}  // namespace rop::runtime::detail

namespace rop::runtime {

ActorSets actor_sets(const Plan& plan) {
    ActorSets out;
    out.of_call.assign(plan.calls.size(), ActorSets::kNoSet);
    for (std::size_t p = 0; p < plan.pools.size(); ++p) {
        const PoolSpec& pool = plan.pools[p];
        if (pool.calls.empty()) continue;  // a pool no Call uses starts no actors
        ActorSet set{
            pool.name,
            pool.factory ? pool.factory : detail::make_pool_actor(plan, static_cast<PoolId>(p)),
            pool.options.actors, true, pool.calls};
        for (const CallId c : pool.calls)
            out.of_call[c] = static_cast<std::uint32_t>(out.sets.size());
        out.sets.push_back(std::move(set));
    }
    for (std::size_t c = 0; c < plan.calls.size(); ++c) {
        const CallSpec& spec = plan.calls[c];
        if (!spec.factory || spec.pool != kNoPool) continue;
        out.of_call[c] = static_cast<std::uint32_t>(out.sets.size());
        out.sets.push_back(
            {spec.name, spec.factory, spec.options.actors, false, {static_cast<CallId>(c)}});
    }
    return out;
}

}  // namespace rop::runtime
