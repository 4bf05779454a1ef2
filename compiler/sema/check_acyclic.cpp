#include "sema/check_acyclic.h"

#include <algorithm>
#include <deque>
#include <string>

namespace rop::sema {

namespace {

// The shortest loop from `start` back to itself inside its component, as dependency edges in
// the order data flows (provider before user).
std::vector<const Dependency*> find_loop(const StatementGraph& graph, std::uint32_t start) {
    const std::uint32_t component = graph.component[start];
    std::vector<const Dependency*> reached_by(graph.depends_on.size(), nullptr);
    std::deque<std::uint32_t> queue{start};
    const Dependency* closing = nullptr;
    while (!queue.empty() && closing == nullptr) {
        const std::uint32_t user = queue.front();
        queue.pop_front();
        for (const Dependency& dep : graph.depends_on[user]) {
            if (graph.component[dep.provider] != component) continue;
            if (dep.provider == start) {
                closing = &dep;
                break;
            }
            if (reached_by[dep.provider] != nullptr) continue;
            reached_by[dep.provider] = &dep;
            queue.push_back(dep.provider);
        }
    }
    std::vector<const Dependency*> loop;
    for (const Dependency* edge = closing; edge != nullptr;
         edge = edge->user == start ? nullptr : reached_by[edge->user]) {
        loop.push_back(edge);
    }
    return loop;  // walking back from `start` along dependencies is walking forward in data flow
}

std::string describe(const ast::Program& program, const Dependency& dep) {
    const std::string user = statement_label(program.statements[dep.user]);
    if (!dep.through_domain) return user + " reads '" + std::string(dep.name) + "' here";
    return user + " names Domain '" + std::string(dep.name) + "', opened by " +
           statement_label(program.statements[dep.provider]);
}

}  // namespace

void check_acyclic(const ast::Program& program, const StatementGraph& graph,
                   DiagnosticEngine& diags) {
    std::vector<bool> reported(graph.depends_on.size(), false);
    for (std::uint32_t s = 0; s < graph.depends_on.size(); ++s) {
        if (!graph.in_cycle[s] || reported[graph.component[s]]) continue;
        reported[graph.component[s]] = true;
        const std::vector<const Dependency*> loop = find_loop(graph, s);
        if (loop.empty()) continue;
        // Point at the reference that goes backwards in the file: the edge that closes the loop.
        const Dependency* backwards = loop.front();
        for (const Dependency* edge : loop) {
            if (edge->provider >= edge->user) {
                backwards = edge;
                break;
            }
        }
        Diagnostic& d =
            diags.report(DiagId::FeedbackLoop, backwards->at,
                         "feedback loop: " + statement_label(program.statements[backwards->user]) +
                             " depends on its own output through '" + std::string(backwards->name) +
                             "'; pipelines are acyclic and feedback loops are outside the model");
        for (const Dependency* edge : loop) d.notes.push_back({edge->at, describe(program, *edge)});
    }
}

}  // namespace rop::sema
