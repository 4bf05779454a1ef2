#include "sema/resolve_references.h"

#include <optional>
#include <string>

#include "rop/vocab/suggest.h"

namespace rop::sema {

namespace {

// Reports an unknown name, with "did you mean" and a fix-it when a known name is close.
Diagnostic& report_unknown(DiagnosticEngine& diags, DiagId id, const ast::Ident& name,
                           const std::string& what, const std::vector<std::string_view>& known) {
    Diagnostic& d =
        diags.report(id, name.range, "use of undefined " + what + " '" + name.name + "'");
    if (const auto guess = vocab::closest(name.name, known)) {
        d.notes.push_back({std::nullopt, "did you mean '" + std::string(*guess) + "'?"});
        d.fixit = FixIt{name.range, std::string(*guess)};
    }
    return d;
}

class ReferenceResolver {
  public:
    ReferenceResolver(const ast::Program& program, Resolution& resolution, DiagnosticEngine& diags)
        : program_(program), resolution_(resolution), diags_(diags) {}

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
        const auto as_stream = resolution_.stream_by_name.find(name.name);
        if (as_stream != resolution_.stream_by_name.end()) {
            stream_for_domain(name, as_stream->second);
            return kUnresolved;
        }
        std::vector<std::string_view> known;
        for (const DomainDecl& decl : resolution_.domains) known.push_back(decl.name);
        Diagnostic& d = report_unknown(diags_, DiagId::UndefinedDomain, name, "Domain", known);
        d.notes.push_back({std::nullopt,
                           "a Domain is declared by the source (`source x : Doc = ...`) or "
                           "opened by `expand ... as Name`"});
        return kUnresolved;
    }

  private:
    // `reduce x to docs` where `docs` is a stream: say so, and name the Domain it is in, which
    // is most likely what the clause meant.
    void stream_for_domain(const ast::Ident& name, std::uint32_t stream) {
        const StreamDef& def = resolution_.streams[stream];
        // Empty when unknown (GCC warns falsely about an optional<string_view> here).
        const std::string domain =
            ++misses_ <= kMaxSuggestions ? std::string(domain_of(stream).value_or("")) : "";
        std::string message = "'" + name.name + "' is a stream, not a Domain";
        if (!domain.empty()) message += ": it is in Domain '" + domain + "'";
        Diagnostic& d = diags_.report(DiagId::UndefinedDomain, name.range, message);
        d.notes.push_back({def.range, "'" + name.name + "' is defined here"});
        if (!domain.empty()) {
            d.notes.push_back({std::nullopt, "did you mean '" + domain + "'?"});
            d.fixit = FixIt{name.range, domain};
        }
        d.notes.push_back({std::nullopt,
                           "`to` names a Domain: the source declares the root "
                           "(`source x : Doc = ...`), each `expand ... as Name` opens one"});
    }

    // The Domain a stream is in, as far as the names alone tell (inference runs later): a
    // source's is declared, expand/broadcast/reduce name theirs, map and filter keep their
    // first input's. Empty when the chain breaks on an undefined name or a cycle.
    std::optional<std::string_view> domain_of(std::uint32_t stream) const {
        for (std::size_t step = 0; step <= resolution_.streams.size(); ++step) {
            const ast::Statement& statement =
                program_.statements[resolution_.streams[stream].statement];
            std::optional<std::string_view> name;
            const ast::Stage* stage = std::get_if<ast::Stage>(&statement);
            if (const auto* source = std::get_if<ast::Source>(&statement)) {
                name = source->domain.name;
            } else if (stage != nullptr && stage->domain) {
                name = stage->domain->name;
            }
            if (name) {
                if (!resolution_.domain_by_name.contains(*name)) return std::nullopt;
                return name;
            }
            if (stage == nullptr || stage->inputs.empty()) return std::nullopt;
            const auto input = resolution_.stream_by_name.find(stage->inputs[0].name.name);
            if (input == resolution_.stream_by_name.end()) return std::nullopt;
            stream = input->second;
        }
        return std::nullopt;
    }

    const ast::Program& program_;
    Resolution& resolution_;
    DiagnosticEngine& diags_;
    std::vector<std::string_view> stream_names_;  // built on the first miss only
    std::size_t misses_ = 0;
    static constexpr std::size_t kMaxSuggestions = 100;
};

}  // namespace

void resolve_references(const ast::Program& program, Resolution& resolution,
                        DiagnosticEngine& diags) {
    ReferenceResolver resolver(program, resolution, diags);
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
