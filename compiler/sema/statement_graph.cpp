#include "sema/statement_graph.h"

#include <algorithm>

namespace rop::sema {

namespace {

// Tarjan's algorithm without recursion, so a 100,000-statement chain cannot overflow the stack.
class ComponentFinder {
  public:
    explicit ComponentFinder(const StatementGraph& graph)
        : graph_(graph),
          index_(graph.depends_on.size(), kUnresolved),
          low_(graph.depends_on.size(), 0),
          on_stack_(graph.depends_on.size(), false) {}

    std::vector<std::uint32_t> run() {
        std::vector<std::uint32_t> component(graph_.depends_on.size(), kUnresolved);
        for (std::uint32_t root = 0; root < graph_.depends_on.size(); ++root) {
            if (index_[root] == kUnresolved) visit(root, component);
        }
        return component;
    }

  private:
    struct Frame {
        std::uint32_t node;
        std::size_t next_edge;
    };

    void open(std::uint32_t node, std::vector<Frame>& frames) {
        index_[node] = low_[node] = next_index_++;
        stack_.push_back(node);
        on_stack_[node] = true;
        frames.push_back({node, 0});
    }

    void visit(std::uint32_t root, std::vector<std::uint32_t>& component) {
        std::vector<Frame> frames;
        open(root, frames);
        while (!frames.empty()) {
            Frame& frame = frames.back();
            const auto& edges = graph_.depends_on[frame.node];
            if (frame.next_edge < edges.size()) {
                const std::uint32_t next = edges[frame.next_edge++].provider;
                if (index_[next] == kUnresolved) {
                    open(next, frames);
                } else if (on_stack_[next]) {
                    low_[frame.node] = std::min(low_[frame.node], index_[next]);
                }
                continue;
            }
            const std::uint32_t node = frame.node;
            frames.pop_back();
            if (!frames.empty()) {
                low_[frames.back().node] = std::min(low_[frames.back().node], low_[node]);
            }
            if (low_[node] != index_[node]) continue;
            std::uint32_t member = kUnresolved;
            do {
                member = stack_.back();
                stack_.pop_back();
                on_stack_[member] = false;
                component[member] = next_component_;
            } while (member != node);
            ++next_component_;
        }
    }

    const StatementGraph& graph_;
    std::vector<std::uint32_t> index_;
    std::vector<std::uint32_t> low_;
    std::vector<bool> on_stack_;
    std::vector<std::uint32_t> stack_;
    std::uint32_t next_index_ = 0;
    std::uint32_t next_component_ = 0;
};

}  // namespace

StatementGraph build_statement_graph(const ast::Program& program, const Resolution& resolution) {
    const std::size_t n = program.statements.size();
    StatementGraph graph;
    graph.depends_on.resize(n);
    for (std::uint32_t s = 0; s < n; ++s) {
        const ast::Statement& statement = program.statements[s];
        if (const auto* inputs = statement_inputs(statement)) {
            for (std::size_t i = 0; i < inputs->size(); ++i) {
                const std::uint32_t stream = resolution.inputs[s][i];
                if (stream == kUnresolved) continue;
                const ast::InputRef& input = (*inputs)[i];
                graph.depends_on[s].push_back({s, resolution.streams[stream].statement,
                                               input.name.name, false, input.name.range});
            }
        }
        const auto* stage = std::get_if<ast::Stage>(&statement);
        const std::uint32_t domain = resolution.domain_clause[s];
        if (stage == nullptr || stage->kind == ast::StageKind::Expand || domain == kUnresolved) {
            continue;
        }
        graph.depends_on[s].push_back({s, resolution.domains[domain].statement, stage->domain->name,
                                       true, stage->domain->range});
    }
    graph.component = ComponentFinder(graph).run();
    std::vector<std::uint32_t> component_size(n, 0);
    for (std::uint32_t c : graph.component) ++component_size[c];
    graph.in_cycle.assign(n, false);
    for (std::uint32_t s = 0; s < n; ++s) {
        if (component_size[graph.component[s]] > 1) graph.in_cycle[s] = true;
        for (const Dependency& dep : graph.depends_on[s]) {
            if (dep.provider == s) graph.in_cycle[s] = true;
        }
    }
    return graph;
}

}  // namespace rop::sema
