#include "sema/resolve_references.h"

#include <string>

#include "sema/did_you_mean.h"

namespace rop::sema {

namespace {

// Reports an unknown name, with "did you mean" and a fix-it when a known name is close.
Diagnostic& report_unknown(DiagnosticEngine& diags, DiagId id, const ast::Ident& name,
                           const std::string& what, const std::vector<std::string_view>& known) {
    Diagnostic& d =
        diags.report(id, name.range, "use of undefined " + what + " '" + name.name + "'");
    if (const auto guess = closest_name(name.name, known)) {
        d.notes.push_back({std::nullopt, "did you mean '" + std::string(*guess) + "'?"});
        d.fixit = FixIt{name.range, std::string(*guess)};
    }
    return d;
}

class ReferenceResolver {
  public:
    ReferenceResolver(Resolution& resolution, DiagnosticEngine& diags)
        : resolution_(resolution), diags_(diags) {}

    std::uint32_t stream(const ast::Ident& name) {
        const auto it = resolution_.stream_by_name.find(name.name);
        if (it != resolution_.stream_by_name.end()) return it->second;
        if (stream_names_.empty()) {
            for (const StreamDef& def : resolution_.streams) stream_names_.push_back(def.name);
        }
        // Suggestions cost a scan of every name; past the first hundred misses (a file full
        // of them), stop suggesting so checking stays linear.
        static const std::vector<std::string_view> kNoCandidates;
        report_unknown(diags_, DiagId::UndefinedName, name, "stream",
                       ++misses_ <= kMaxSuggestions ? stream_names_ : kNoCandidates);
        return kUnresolved;
    }

    std::uint32_t domain(const ast::Ident& name) {
        const auto it = resolution_.domain_by_name.find(name.name);
        if (it != resolution_.domain_by_name.end()) return it->second;
        std::vector<std::string_view> known;
        for (const DomainDecl& decl : resolution_.domains) known.push_back(decl.name);
        Diagnostic& d = report_unknown(diags_, DiagId::UndefinedDomain, name, "Domain", known);
        d.notes.push_back({std::nullopt,
                           "a Domain is declared by the source (`source x : Doc = ...`) or "
                           "opened by `expand ... as Name`"});
        return kUnresolved;
    }

  private:
    Resolution& resolution_;
    DiagnosticEngine& diags_;
    std::vector<std::string_view> stream_names_;  // built on the first miss only
    std::size_t misses_ = 0;
    static constexpr std::size_t kMaxSuggestions = 100;
};

}  // namespace

void resolve_references(const ast::Program& program, Resolution& resolution,
                        DiagnosticEngine& diags) {
    ReferenceResolver resolver(resolution, diags);
    resolution.inputs.assign(program.statements.size(), {});
    for (std::uint32_t s = 0; s < program.statements.size(); ++s) {
        const ast::Statement& statement = program.statements[s];
        if (const auto* inputs = statement_inputs(statement)) {
            for (const ast::InputRef& input : *inputs) {
                resolution.inputs[s].push_back(resolver.stream(input.name));
            }
        }
        const auto* stage = std::get_if<ast::Stage>(&statement);
        if (stage == nullptr || !stage->domain || stage->kind == ast::StageKind::Expand) continue;
        resolution.domain_clause[s] = resolver.domain(*stage->domain);
    }
}

}  // namespace rop::sema
