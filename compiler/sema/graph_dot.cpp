#include "sema/graph_dot.h"

#include <algorithm>
#include <sstream>

namespace rop::sema {

namespace {

std::string quoted(const std::string& text) {
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out + "\"";
}

class DotWriter {
  public:
    explicit DotWriter(const CheckedProgram& program)
        : program_(program), calls_in_(program.domains.size()), ports_in_(program.domains.size()) {
        for (const Call& call : program.calls) calls_in_[call.domain].push_back(call.id);
        for (PortId p = 0; p < program.ports.size(); ++p) {
            ports_in_[program.ports[p].domain].push_back(p);
        }
    }

    std::string run() {
        const std::string name =
            program_.pipeline_name.empty() ? "pipeline" : program_.pipeline_name;
        out_ << "digraph " << quoted(name) << " {\n"
             << "    rankdir=TB;\n"
             << "    node [fontname=\"Helvetica\"];\n";
        if (!program_.domains.empty()) cluster(0, 1);
        for (const Call& call : program_.calls) {
            for (const CallInput& input : call.inputs) {
                out_ << "    p" << input.port << " -> c" << call.id
                     << (input.optional ? " [style=dashed];\n" : ";\n");
            }
            for (PortId port : call.outputs) out_ << "    c" << call.id << " -> p" << port << ";\n";
        }
        out_ << "}\n";
        return out_.str();
    }

  private:
    // Recursion depth is the Domain tree's depth, which is one level per nested expand.
    // Indentation stops growing past kMaxIndentDepth, so the output stays linear in the program
    // even for thousands of nested Domains (the braces still nest them for dot).
    void cluster(DomainId d, std::size_t depth) {
        const std::string indent(std::min(depth, kMaxIndentDepth) * 4, ' ');
        out_ << indent << "subgraph cluster_" << d << " {\n"
             << indent << "    label=" << quoted(program_.domains[d].name) << ";\n";
        for (CallId c : calls_in_[d]) {
            const Call& call = program_.calls[c];
            std::string label = to_string(call.kind);
            if (call.op) label += "\n" + call.op->name;
            out_ << indent << "    c" << c << " [shape=box, label=" << quoted(label) << "];\n";
        }
        for (PortId p : ports_in_[d]) {
            out_ << indent << "    p" << p
                 << " [shape=ellipse, label=" << quoted(program_.ports[p].name) << "];\n";
        }
        for (DomainId child : program_.domains[d].children) cluster(child, depth + 1);
        out_ << indent << "}\n";
    }

    static constexpr std::size_t kMaxIndentDepth = 8;

    const CheckedProgram& program_;
    std::vector<std::vector<CallId>> calls_in_;
    std::vector<std::vector<PortId>> ports_in_;
    std::ostringstream out_;
};

}  // namespace

std::string graph_dot(const CheckedProgram& program) { return DotWriter(program).run(); }

}  // namespace rop::sema
