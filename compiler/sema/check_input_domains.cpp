#include "sema/check_input_domains.h"

#include <cctype>
#include <string>

namespace rop::sema {

namespace {

class InputDomainChecker {
  public:
    InputDomainChecker(const Resolution& resolution, const DomainInference& inference,
                       DiagnosticEngine& diags)
        : resolution_(resolution), inference_(inference), diags_(diags) {}

    void check(const ast::Statement& statement, const std::vector<ast::InputRef>& inputs,
               const std::vector<std::uint32_t>& streams, bool is_sink) {
        // The Call's Domain is its deepest input's; every other input must be that one's.
        std::size_t anchor = inputs.size();
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            const std::uint32_t d = domain_of(streams[i]);
            if (d == kUnresolved) continue;
            if (anchor == inputs.size() ||
                inference_.domains[d].depth >
                    inference_.domains[domain_of(streams[anchor])].depth) {
                anchor = i;
            }
        }
        if (anchor == inputs.size()) return;
        const std::uint32_t domain = domain_of(streams[anchor]);
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            const std::uint32_t d = domain_of(streams[i]);
            if (d == kUnresolved || d == domain) continue;
            if (inference_.is_strict_ancestor(d, domain)) {
                report_needs_broadcast(statement, inputs[i], d, inputs[anchor], domain, is_sink);
            } else {
                report_unrelated(statement, inputs[i], d, inputs[anchor], domain);
            }
        }
    }

  private:
    std::uint32_t domain_of(std::uint32_t stream) const {
        return stream == kUnresolved ? kUnresolved : inference_.streams[stream];
    }
    std::string name(std::uint32_t domain) const {
        return std::string(resolution_.domains[domain].name);
    }
    std::string what(const ast::Statement& statement) const {
        if (const auto* stage = std::get_if<ast::Stage>(&statement)) {
            return std::string(ast::to_string(stage->kind)) + " " + statement_label(statement);
        }
        return "the sink";
    }

    void report_needs_broadcast(const ast::Statement& statement, const ast::InputRef& input,
                                std::uint32_t from, const ast::InputRef& anchor, std::uint32_t to,
                                bool is_sink) {
        Diagnostic& d = diags_.report(
            is_sink ? DiagId::SinkDomainMismatch : DiagId::DomainMismatch, input.range,
            "inputs of " + what(statement) + " are in different Domains: '" + input.name.name +
                "' is in '" + name(from) + "', '" + anchor.name.name + "' is in '" + name(to) +
                "'");
        d.notes.push_back({std::nullopt, "'" + name(from) + "' is an ancestor of '" + name(to) +
                                             "': broadcast '" + input.name.name + "' to '" +
                                             name(to) +
                                             "' to hand each item its ancestor's value"});
        d.fixit = broadcast_fixit(statement, input, to);
    }

    void report_unrelated(const ast::Statement& statement, const ast::InputRef& input,
                          std::uint32_t domain, const ast::InputRef& anchor,
                          std::uint32_t anchor_domain) {
        Diagnostic& d = diags_.report(
            DiagId::JoinOfUnrelatedDomains, input.range,
            what(statement) + " joins '" + input.name.name + "' in Domain '" + name(domain) +
                "' with '" + anchor.name.name + "' in Domain '" + name(anchor_domain) +
                "': neither Domain is nested in the other, so their items have no common "
                "identity to zip by; a general join is outside the model");
        d.notes.push_back(
            {resolution_.domains[domain].range, "'" + name(domain) + "' is opened here"});
        d.notes.push_back({resolution_.domains[anchor_domain].range,
                           "'" + name(anchor_domain) + "' is opened here"});
        const std::uint32_t common = inference_.common_ancestor(domain, anchor_domain);
        if (common != kUnresolved) {
            d.notes.push_back({std::nullopt, "both are nested under '" + name(common) +
                                                 "': reduce one side to '" + name(common) +
                                                 "' and broadcast the result down to the other"});
        }
    }

    // Rewrites the statement as `x_on_d = broadcast x to D;` followed by the statement reading
    // `x_on_d`: one replacement that leaves a program which checks.
    FixIt broadcast_fixit(const ast::Statement& statement, const ast::InputRef& input,
                          std::uint32_t to) const {
        const SourceRange whole = std::visit([](const auto& s) { return s.range; }, statement);
        const std::string_view text = diags_.sources().text(whole.file);
        std::string lowered = name(to);
        for (char& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        std::string fresh = input.name.name + "_on_" + lowered;
        for (int n = 2; resolution_.stream_by_name.count(fresh) != 0; ++n) {
            fresh = input.name.name + "_on_" + lowered + std::to_string(n);
        }
        std::uint32_t line_begin = whole.begin;
        while (line_begin > 0 && text[line_begin - 1] != '\n') --line_begin;
        std::string indent(text.substr(line_begin, whole.begin - line_begin));
        for (char& c : indent) {
            if (c != '\t') c = ' ';
        }
        const SourceRange name_range = input.name.range;
        std::string rewritten(text.substr(whole.begin, name_range.begin - whole.begin));
        rewritten += fresh;
        rewritten += text.substr(name_range.end, whole.end - name_range.end);
        return {whole, fresh + " = broadcast " + input.name.name + " to " + name(to) + ";\n" +
                           indent + rewritten};
    }

    const Resolution& resolution_;
    const DomainInference& inference_;
    DiagnosticEngine& diags_;
};

}  // namespace

void check_input_domains(const ast::Program& program, const Resolution& resolution,
                         const DomainInference& inference, DiagnosticEngine& diags) {
    InputDomainChecker checker(resolution, inference, diags);
    for (std::uint32_t s = 0; s < program.statements.size(); ++s) {
        const ast::Statement& statement = program.statements[s];
        const std::vector<ast::InputRef>* inputs = statement_inputs(statement);
        if (inputs == nullptr || inputs->size() < 2) continue;
        checker.check(statement, *inputs, resolution.inputs[s],
                      std::holds_alternative<ast::Sink>(statement));
    }
}

}  // namespace rop::sema
