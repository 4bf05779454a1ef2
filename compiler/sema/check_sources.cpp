#include "sema/check_sources.h"

#include <string>

namespace rop::sema {

void check_sources(const ast::Program& program, Resolution& resolution, DiagnosticEngine& diags) {
    for (std::uint32_t s = 0; s < program.statements.size(); ++s) {
        const auto* source = std::get_if<ast::Source>(&program.statements[s]);
        if (source == nullptr) continue;
        if (!resolution.source_statement) {
            resolution.source_statement = s;
            continue;
        }
        const auto& first = std::get<ast::Source>(program.statements[*resolution.source_statement]);
        Diagnostic& d = diags.report(DiagId::MultipleSources, source->range,
                                     "second source '" + source->name.name +
                                         "': a pipeline has one source and one root "
                                         "Domain");
        d.notes.push_back({first.range, "the source '" + first.name.name + "' (root Domain '" +
                                            first.domain.name + "') is declared here"});
        d.notes.push_back({std::nullopt,
                           "to process several inputs, let one source list them all (e.g. a "
                           "glob) or write one pipeline per input kind"});
    }
    if (resolution.source_statement) return;
    const SourceRange at = program.header ? program.header->range : SourceRange{program.file, 0, 0};
    Diagnostic& d = diags.report(DiagId::MissingSource, at,
                                 "pipeline has no source: nothing would ever enter it");
    d.notes.push_back(
        {std::nullopt, "declare one, e.g. `source docs : Doc = std.files(glob: \"in/*.pdf\");`"});
}

}  // namespace rop::sema
