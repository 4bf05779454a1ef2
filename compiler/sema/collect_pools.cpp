#include "sema/collect_pools.h"

#include <string>

namespace rop::sema {

namespace {

// "a source", "a sink", "pool 'other'": what cannot run on a pool.
std::string what_cannot(const ast::Statement& statement) {
    if (std::holds_alternative<ast::Source>(statement)) return "a source";
    if (std::holds_alternative<ast::Sink>(statement)) return "a sink";
    return statement_label(statement);
}

void declare(const ast::Pool& pool, std::uint32_t statement, Resolution& resolution,
             DiagnosticEngine& diags) {
    // A pipeline binary's --set addresses pools and Calls (named by their streams) alike.
    if (const auto stream = resolution.stream_by_name.find(pool.name.name);
        stream != resolution.stream_by_name.end()) {
        Diagnostic& d = diags.report(DiagId::DuplicatePool, pool.name.range,
                                     "pool '" + pool.name.name + "' has the name of a stream");
        d.notes.push_back({resolution.streams[stream->second].range,
                           "stream '" + pool.name.name + "' is defined here"});
        d.notes.push_back({std::nullopt,
                           "a pipeline binary's --set NAME.OPTION addresses "
                           "pools and streams by name; rename one of them"});
        return;
    }
    const auto [it, inserted] = resolution.pool_by_name.try_emplace(
        pool.name.name, static_cast<std::uint32_t>(resolution.pools.size()));
    if (inserted) {
        resolution.pools.push_back({pool.name.name, statement, pool.name.range});
        return;
    }
    Diagnostic& d = diags.report(DiagId::DuplicatePool, pool.name.range,
                                 "redefinition of pool '" + pool.name.name + "'");
    d.notes.push_back({resolution.pools[it->second].range,
                       "previous definition of '" + pool.name.name + "' is here"});
}

}  // namespace

void collect_pools(const ast::Program& program, Resolution& resolution, DiagnosticEngine& diags) {
    resolution.pool_of.assign(program.statements.size(), kUnresolved);
    for (std::uint32_t s = 0; s < program.statements.size(); ++s) {
        if (const auto* pool = std::get_if<ast::Pool>(&program.statements[s])) {
            declare(*pool, s, resolution, diags);
        }
    }
    if (resolution.pools.empty()) return;
    for (std::uint32_t s = 0; s < program.statements.size(); ++s) {
        const ast::Statement& statement = program.statements[s];
        const ast::OpRef* op = statement_op(statement);
        if (op == nullptr || op->name.parts.empty()) continue;
        const ast::Ident& first = op->name.parts.front();
        const auto found = resolution.pool_by_name.find(first.name);
        if (found == resolution.pool_by_name.end()) continue;
        const PoolDecl& pool = resolution.pools[found->second];
        const std::string name(pool.name);
        if (!std::holds_alternative<ast::Stage>(statement)) {
            Diagnostic& d =
                diags.report(DiagId::PoolOnSourceOrSink, first.range,
                             what_cannot(statement) + " cannot run on pool '" + name +
                                 "'; a pool's actors serve map, filter, expand and reduce Calls");
            d.notes.push_back({pool.range, "'" + name + "' is declared here"});
            continue;
        }
        if (op->name.parts.size() != 2) {
            const std::string what =
                op->name.parts.size() == 1
                    ? "pool '" + name + "' is named without a method"
                    : "'" + op->name.str() + "' names more than one member of pool '" + name + "'";
            Diagnostic& d = diags.report(DiagId::PoolWithoutMethod, op->name.range,
                                         what +
                                             "; a Call on a pool calls one method of its "
                                             "class: '" +
                                             name + ".METHOD(...)'");
            d.notes.push_back({pool.range, "'" + name + "' is declared here"});
            continue;
        }
        resolution.pool_of[s] = found->second;
    }
}

}  // namespace rop::sema
