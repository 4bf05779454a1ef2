// PlanBuilder: collects Domains, Ports and Calls and validates the whole Plan on build().
#include "rop/runtime/plan.h"

#include <string>

namespace rop::runtime {
namespace {

[[noreturn]] void reject(const std::string& message) { throw ContractError("plan: " + message); }

bool is_strict_ancestor(const Plan& plan, DomainId ancestor, DomainId domain) {
    for (DomainId d = plan.domains[domain].parent; d != kNoDomain; d = plan.domains[d].parent) {
        if (d == ancestor) return true;
    }
    return false;
}

void check_call(const Plan& plan, const CallSpec& call, std::vector<bool>& produced,
                std::vector<int>& opened_by, std::size_t index) {
    const std::string where = "call '" + call.name + "' (" + to_string(call.kind) + ")";
    if (!vocab::in_plan(call.kind)) {
        reject(where + ": a source or sink is not a plan Call (SourceDefinition, SinkDefinition)");
    }
    if (call.domain >= plan.domains.size()) reject(where + ": unknown domain");
    for (const CallInput& in : call.inputs) {
        if (in.port >= plan.ports.size()) reject(where + ": unknown input port");
        if (!produced[in.port]) {
            reject(where + ": input port '" + plan.ports[in.port].name +
                   "' is not produced by an earlier call (calls must be in topological order)");
        }
    }
    for (PortId out : call.outputs) {
        if (out >= plan.ports.size()) reject(where + ": unknown output port");
        if (produced[out]) reject(where + ": port '" + plan.ports[out].name + "' produced twice");
    }
    if (call.inputs.empty()) reject(where + ": needs at least one input");
    if (call.outputs.empty()) reject(where + ": needs at least one output");
    const bool needs_udf = call.kind == CallKind::Map || call.kind == CallKind::Filter ||
                           call.kind == CallKind::Expand;
    if (needs_udf && !call.factory) reject(where + ": needs an actor factory");
    if (call.kind == CallKind::Broadcast && call.factory) reject(where + ": takes no UDF");
    if (call.options.batch == 0) reject(where + ": batch must be at least 1");
    if (call.options.actors == 0 && call.factory) reject(where + ": actors must be at least 1");
    if (call.inputs.size() > 255) reject(where + ": too many inputs");
    const auto port_domain = [&](PortId p) { return plan.ports[p].domain; };
    switch (call.kind) {
        case CallKind::Map:
        case CallKind::Filter:
        case CallKind::Expand:
            for (const CallInput& in : call.inputs) {
                if (port_domain(in.port) != call.domain) {
                    reject(where + ": input '" + plan.ports[in.port].name +
                           "' is not in the call's domain '" + plan.domains[call.domain].name +
                           "' (use broadcast to bring a parent value down)");
                }
            }
            break;
        case CallKind::Broadcast:
            if (call.inputs.size() != 1 || call.outputs.size() != 1) {
                reject(where + ": takes one input and one output");
            }
            if (!is_strict_ancestor(plan, port_domain(call.inputs[0].port), call.domain)) {
                reject(where + ": its input must live in an ancestor domain of the target");
            }
            break;
        case CallKind::Reduce: {
            if (call.inputs.size() != 1) reject(where + ": takes one input");
            const DomainId child = port_domain(call.inputs[0].port);
            if (plan.domains[child].parent != call.domain) {
                reject(where + ": its input's domain must be a direct child of the call's domain");
            }
            if (opened_by[child] < 0) reject(where + ": no earlier expand opens its domain");
            if (!call.factory && call.outputs.size() != 1) {
                reject(where + ": a reduce without a UDF has exactly one output");
            }
            break;
        }
        case CallKind::Source:
        case CallKind::Sink: break;  // refused above
    }
    if (call.kind == CallKind::Filter && (call.inputs.size() != 1 || call.outputs.size() != 1)) {
        reject(where + ": takes one input and one output");
    }
    if (call.kind == CallKind::Expand) {
        if (call.outputs.size() != 1) reject(where + ": has exactly one output");
        const DomainId child = port_domain(call.outputs[0]);
        if (plan.domains[child].parent != call.domain) {
            reject(where + ": its output must live in a direct child domain of its input's");
        }
        if (opened_by[child] >= 0) {
            reject(where + ": domain '" + plan.domains[child].name + "' is already opened by '" +
                   plan.calls[static_cast<std::size_t>(opened_by[child])].name + "'");
        }
        opened_by[child] = static_cast<int>(index);
    } else {
        for (PortId out : call.outputs) {
            if (port_domain(out) != call.domain) {
                reject(where + ": output '" + plan.ports[out].name +
                       "' is not in the call's domain");
            }
        }
    }
    for (PortId out : call.outputs) produced[out] = true;
}

// A pooled Call takes its pool's placement options, and a factory that refuses to build a lone
// actor: the pool's actors serve it (place_actors makes them).
void join_pool(Plan& plan, CallSpec& call, CallId id) {
    if (call.pool == kNoPool) {
        if (call.view) reject("call '" + call.name + "': a pool view without a pool");
        return;
    }
    const std::string where = "call '" + call.name + "'";
    if (call.pool >= plan.pools.size()) reject(where + ": unknown pool");
    PoolSpec& pool = plan.pools[call.pool];
    if (!call.view) reject(where + ": runs on pool '" + pool.name + "' but has no view");
    if (call.kind == CallKind::Broadcast) reject(where + ": a broadcast runs on no pool");
    const CallOptions defaults;
    bool ok = true;
    for (const vocab::CallOptionSpec& option : vocab::kCallOptions) {
        if (!is_pool_option(option.name)) continue;
        const double mine = vocab::option_value(call.options, option);
        const double pools = vocab::option_value(pool.options, option);
        if (mine != vocab::option_value(defaults, option) && mine != pools) ok = false;
        vocab::set_option_value(call.options, option, pools);
    }
    if (!ok) {
        reject(
            where + ": runs on pool '" + pool.name +
            "', whose actors, gpus, isolation and memory_mb are its Calls' (set them on the pool)");
    }
    const std::string pool_name = pool.name;
    call.factory = [where, pool_name]() -> std::unique_ptr<Actor> {
        throw ContractError(where + " runs on pool '" + pool_name +
                            "': its actors are the pool's (place_actors makes them)");
    };
    pool.calls.push_back(id);
}

}  // namespace

const char* to_string(CallKind kind) { return vocab::word(kind).data(); }

DomainId PlanBuilder::add_domain(std::string name, DomainId parent) {
    if (plan_.domains.empty() && parent != kNoDomain) reject("the first domain is the root");
    if (!plan_.domains.empty() && parent >= plan_.domains.size()) {
        reject("domain '" + name + "': unknown parent domain");
    }
    if (plan_.domains.size() >= kNoDomain) reject("too many domains");
    plan_.domains.push_back({std::move(name), parent});
    return static_cast<DomainId>(plan_.domains.size() - 1);
}

PortId PlanBuilder::add_port(std::string name, DomainId domain) {
    if (domain >= plan_.domains.size()) reject("port '" + name + "': unknown domain");
    plan_.ports.push_back({std::move(name), domain});
    return static_cast<PortId>(plan_.ports.size() - 1);
}

PortId PlanBuilder::source(std::string name) {
    if (plan_.domains.empty()) reject("source: add the root domain first");
    if (source_set_) reject("source: called twice");
    source_set_ = true;
    plan_.source_port = add_port(std::move(name), 0);
    return plan_.source_port;
}

PoolId PlanBuilder::add_pool(PoolSpec spec) {
    if (!plan_.calls.empty() && plan_.pools.size() >= kNoPool - 1) reject("too many pools");
    spec.calls.clear();
    spec.factory = nullptr;
    plan_.pools.push_back(std::move(spec));
    return static_cast<PoolId>(plan_.pools.size() - 1);
}

CallId PlanBuilder::add_call(CallSpec spec) {
    plan_.calls.push_back(std::move(spec));
    return static_cast<CallId>(plan_.calls.size() - 1);
}

Plan PlanBuilder::build() {
    if (plan_.domains.empty()) reject("no domains");
    if (!source_set_) reject("no source port (call PlanBuilder::source)");
    for (std::size_t d = 1; d < plan_.domains.size(); ++d) {
        if (plan_.domains[d].parent >= d) reject("domains must be added parents first");
    }
    std::vector<bool> produced(plan_.ports.size(), false);
    produced[plan_.source_port] = true;
    std::vector<int> opened_by(plan_.domains.size(), -1);
    for (PoolSpec& pool : plan_.pools) pool.calls.clear();
    for (std::size_t i = 0; i < plan_.calls.size(); ++i) {
        join_pool(plan_, plan_.calls[i], static_cast<CallId>(i));
        check_call(plan_, plan_.calls[i], produced, opened_by, i);
    }
    for (const PoolSpec& pool : plan_.pools) {
        if (!pool.instance) reject("pool '" + pool.name + "': needs an instance factory");
        if (pool.options.actors == 0) reject("pool '" + pool.name + "': actors must be at least 1");
    }
    return plan_;
}

}  // namespace rop::runtime
