// Domain inference: the Domain tree (root from the source, one child per expand) and the one
// Domain of every stream. Inference itself never reports; the Domain checks read its result.
// Rules: source -> its declared Domain; expand -> the Domain it opens, nested under its
// input's; map/filter -> their inputs' (the deepest, when inputs disagree); broadcast -> its
// target; reduce -> its target.
#pragma once

#include <cstdint>
#include <vector>

#include "frontend/ast.h"
#include "sema/resolution.h"

namespace rop::sema {

struct DomainNode {
    std::uint32_t parent = kUnresolved;  // kUnresolved for the root
    std::uint32_t depth = 0;
};

struct DomainInference {
    std::vector<DomainNode> domains;     // parallel to Resolution::domains
    std::vector<std::uint32_t> streams;  // per Resolution::streams: its Domain, or kUnresolved

    bool is_strict_ancestor(std::uint32_t ancestor, std::uint32_t domain) const;
    // Nearest Domain both are nested in (either may be it), or kUnresolved.
    std::uint32_t common_ancestor(std::uint32_t a, std::uint32_t b) const;
};

// Needs the names and graph phases to have passed: statements are in data-flow order.
DomainInference infer_domains(const ast::Program& program, const Resolution& resolution);

}  // namespace rop::sema
