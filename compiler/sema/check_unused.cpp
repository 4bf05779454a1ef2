#include "sema/check_unused.h"

#include <string>

namespace rop::sema {

void check_unused(const ast::Program& program, const Resolution& resolution,
                  DiagnosticEngine& diags) {
    std::vector<bool> used(resolution.streams.size(), false);
    for (const auto& inputs : resolution.inputs) {
        for (std::uint32_t stream : inputs) {
            if (stream != kUnresolved) used[stream] = true;
        }
    }
    for (std::uint32_t i = 0; i < resolution.streams.size(); ++i) {
        const StreamDef& def = resolution.streams[i];
        if (used[i] || def.name.starts_with('_')) continue;
        const std::string name(def.name);
        Diagnostic& d =
            diags.report(DiagId::UnusedStream, def.range, "stream '" + name + "' is never used");
        const bool multi_output = statement_outputs(program.statements[def.statement]).size() > 1;
        d.notes.push_back(
            {std::nullopt, multi_output
                               ? "no statement or sink reads this output; name it '_" + name +
                                     "' to say it is deliberately unused"
                               : "no statement or sink reads it; remove the statement, sink it, "
                                 "or name it '_" +
                                     name + "' to keep it quiet"});
        d.fixit = FixIt{def.range, "_" + name};
    }
    // A pool no Call runs on would still start its actors and set up its class in each.
    std::vector<bool> pool_used(resolution.pools.size(), false);
    for (std::uint32_t pool : resolution.pool_of) {
        if (pool != kUnresolved) pool_used[pool] = true;
    }
    for (std::uint32_t p = 0; p < resolution.pools.size(); ++p) {
        if (pool_used[p]) continue;
        const PoolDecl& pool = resolution.pools[p];
        Diagnostic& d = diags.report(DiagId::UnusedPool, pool.range,
                                     "pool '" + std::string(pool.name) + "' is never used");
        d.notes.push_back({std::nullopt, "no Call runs on it ('with " + std::string(pool.name) +
                                             ".METHOD(...)'); remove it"});
    }
}

}  // namespace rop::sema
