// placement.h: actors to ranks, GPUs to actors.
#include "sites.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

namespace rop::runtime::detail {
namespace {

// What is left of a node's devices: the share of each still free (1: whole).
struct Node {
    std::vector<double> free;
    std::vector<int> ranks;  // indices into `ranks`
};

std::string join(const std::vector<int>& v) {
    std::string out;
    for (int x : v) out += (out.empty() ? "" : ",") + std::to_string(x);
    return out;
}

std::string inventory(const std::vector<RankInfo>& ranks) {
    std::map<std::string, int> per_host;
    for (const RankInfo& r : ranks) per_host[r.host] = r.gpus;
    std::string out;
    int total = 0;
    for (const auto& [host, gpus] : per_host) {
        out += (out.empty() ? "" : ", ") + host + ": " + std::to_string(gpus);
        total += gpus;
    }
    return std::to_string(total) + " (" + out + ")";
}

// What has been placed so far and holds devices: a Call's actors or a pool's.
struct Held {
    std::string name;  // "'ocr'", "pool 'vlm'"
    std::uint32_t actors = 0;
    double gpus = 0;
    double held = 0;
};

// ", of which earlier Calls hold 2.5 ('a': 2 actors with gpus 1, 'b': 1 actor with gpus 0.5)"
// when Calls (or pools) placed before hold devices; "" otherwise.
std::string held_by_earlier(const std::vector<Held>& earlier) {
    std::ostringstream out;
    double total = 0;
    std::string each;
    for (const Held& h : earlier) {
        if (h.held <= 0) continue;
        total += h.held;
        std::ostringstream one;
        one << h.name << ": " << h.actors << (h.actors == 1 ? " actor" : " actors") << " with gpus "
            << h.gpus;
        each += (each.empty() ? "" : ", ") + one.str();
    }
    if (total <= 0) return {};
    out << ", of which earlier Calls hold " << total << " (" << each << ")";
    return out.str();
}

}  // namespace

Placement place(const Plan& plan, const std::vector<RankInfo>& ranks) {
    if (ranks.empty()) throw PlacementError("placement: no rank to place actors on");
    Placement out;
    out.calls.resize(plan.calls.size());
    out.pools.resize(plan.pools.size());
    std::map<std::string, Node> nodes;
    int total_gpus = 0;
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        Node& node = nodes[ranks[i].host];
        if (node.ranks.empty()) {
            node.free.assign(static_cast<std::size_t>(std::max(ranks[i].gpus, 0)), 1.0);
            total_gpus += std::max(ranks[i].gpus, 0);
        }
        node.ranks.push_back(static_cast<int>(i));
    }
    for (const CallSpec& c : plan.calls) out.gpus_wanted |= c.options.gpus > 0 && c.factory;
    for (const PoolSpec& p : plan.pools) out.gpus_wanted |= p.options.gpus > 0 && !p.calls.empty();
    out.gpus_found = out.gpus_wanted && total_gpus > 0;

    std::vector<unsigned> load(ranks.size(), 0);  // actors per rank so far
    // The least loaded rank among `candidates`, per core.
    auto pick = [&](const std::vector<int>& candidates) {
        int best = candidates.front();
        for (int r : candidates) {
            const double mine = (load[r] + 1.0) / std::max(1u, ranks[r].cores);
            const double theirs = (load[best] + 1.0) / std::max(1u, ranks[best].cores);
            if (mine < theirs) best = r;
        }
        ++load[best];
        return best;
    };
    std::vector<int> all(ranks.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
    // What the Calls and pools placed so far hold of the job's devices, for the error when they
    // run out.
    std::vector<Held> earlier;

    // One Call's actors, or a pool's (at its first Call; its Calls share its sites).
    // `name`: "call 'ocr'" or "pool 'vlm'"; `label`: how the error lists it, "'ocr'" or
    // "pool 'vlm'".
    auto place_actors_of = [&](const std::string& name, const std::string& label,
                               const CallOptions& options, CallPlacement& into) {
        Held mine{label, options.actors, options.gpus, 0.0};
        const double g = options.gpus;
        for (std::uint32_t a = 0; a < options.actors; ++a) {
            ActorSite site;
            if (g <= 0 || !out.gpus_found) {
                site.rank = ranks[pick(all)].rank;
                into.sites.push_back(std::move(site));
                continue;
            }
            // The node with the most free capacity that can hold this actor.
            Node* chosen = nullptr;
            std::vector<int> devices;
            double chosen_free = -1;
            for (auto& [host, node] : nodes) {
                std::vector<int> fit;
                double free = 0;
                for (std::size_t d = 0; d < node.free.size(); ++d) free += node.free[d];
                if (g >= 1) {
                    const auto need = static_cast<std::size_t>(std::ceil(g));
                    for (std::size_t d = 0; d < node.free.size() && fit.size() < need; ++d) {
                        if (node.free[d] >= 1.0) fit.push_back(static_cast<int>(d));
                    }
                    if (fit.size() < need) continue;
                } else {
                    // A share: the first device that has it left, preferring one already shared.
                    int best = -1;
                    for (std::size_t d = 0; d < node.free.size(); ++d) {
                        if (node.free[d] + 1e-9 < g) continue;
                        if (best < 0 || (node.free[d] < 1.0 && node.free[best] >= 1.0)) {
                            best = static_cast<int>(d);
                        }
                    }
                    if (best < 0) continue;
                    fit.push_back(best);
                }
                if (free > chosen_free) {
                    chosen = &node;
                    devices = fit;
                    chosen_free = free;
                }
            }
            if (!chosen) {
                std::ostringstream why;
                why << "placement: " << name << " asks for " << options.actors
                    << (options.actors == 1 ? " actor" : " actors") << " with gpus " << g
                    << " each; actor " << a + 1 << " finds no "
                    << (g >= 1 ? "free device" : "device with that share left") << " (the job has "
                    << inventory(ranks) << " GPUs" << held_by_earlier(earlier)
                    << "; lower actors or gpus, or add nodes)";
                throw PlacementError(why.str());
            }
            for (int d : devices) chosen->free[d] -= g >= 1 ? 1.0 : g;
            mine.held += g >= 1 ? static_cast<double>(devices.size()) : g;
            site.rank = ranks[pick(chosen->ranks)].rank;
            site.devices = std::move(devices);
            into.sites.push_back(std::move(site));
        }
        earlier.push_back(std::move(mine));
    };

    for (std::size_t c = 0; c < plan.calls.size(); ++c) {
        const CallSpec& spec = plan.calls[c];
        if (!spec.factory) continue;
        if (spec.pool == kNoPool) {
            place_actors_of("call '" + spec.name + "'", "'" + spec.name + "'", spec.options,
                            out.calls[c]);
            continue;
        }
        const PoolSpec& pool = plan.pools[spec.pool];
        if (pool.calls.front() == c) {
            place_actors_of("pool '" + pool.name + "'", "pool '" + pool.name + "'", pool.options,
                            out.pools[spec.pool]);
        }
        out.calls[c] = out.pools[spec.pool];
    }
    return out;
}

std::string explain(const Plan& plan, const Placement& placement,
                    const std::vector<RankInfo>& ranks) {
    std::ostringstream out;
    out << "placement: " << ranks.size() << (ranks.size() == 1 ? " rank" : " ranks")
        << " host actors:";
    for (const RankInfo& r : ranks) {
        out << " rank " << r.rank << " (" << r.host << ", " << r.cores << " cores, " << r.gpus
            << " GPUs)";
        if (&r != &ranks.back()) out << ";";
    }
    out << "\n";
    if (placement.gpus_wanted && !placement.gpus_found) {
        out << "placement: no GPU in the job (" << ranks.front().gpu_source
            << "): Calls with gpus run on CPU actors\n";
    }
    for (std::size_t c = 0; c < plan.calls.size(); ++c) {
        const CallPlacement& p = placement.calls[c];
        if (p.sites.empty()) continue;
        out << "  " << plan.calls[c].name;
        if (plan.calls[c].pool != kNoPool)
            out << " (pool " << plan.pools[plan.calls[c].pool].name << ")";
        out << ":";
        std::map<int, std::vector<std::string>> per_rank;
        for (const ActorSite& s : p.sites) {
            per_rank[s.rank].push_back(s.devices.empty() ? "cpu" : "gpu " + join(s.devices));
        }
        bool first = true;
        for (const auto& [rank, actors] : per_rank) {
            out << (first ? " " : "; ") << "rank " << rank << " x" << actors.size();
            first = false;
            if (actors.front() != "cpu") {
                out << " [";
                for (std::size_t i = 0; i < actors.size(); ++i) out << (i ? ", " : "") << actors[i];
                out << "]";
            }
        }
        out << "\n";
    }
    return out.str();
}

}  // namespace rop::runtime::detail
