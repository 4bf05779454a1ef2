// The dependency graph between statements: who reads a stream another defines, who names a
// Domain another opens. Its strongly connected components tell a feedback loop apart from a
// plain forward reference.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "frontend/ast.h"
#include "sema/resolution.h"

namespace rop::sema {

// `user` depends on `provider`: it reads a stream `provider` defines (through_domain false) or
// names a Domain `provider` declares or opens (through_domain true). `at` is the use.
struct Dependency {
    std::uint32_t user = 0;
    std::uint32_t provider = 0;
    std::string_view name;
    bool through_domain = false;
    SourceRange at;
};

struct StatementGraph {
    std::vector<std::vector<Dependency>> depends_on;  // per statement, in input order
    std::vector<std::uint32_t> component;             // strongly connected component per statement
    std::vector<bool> in_cycle;  // in a component of several statements, or depends on itself
};

StatementGraph build_statement_graph(const ast::Program& program, const Resolution& resolution);

}  // namespace rop::sema
