// Resolution: what the name passes learn about a program and every later pass reads — the
// streams and Domains by name, and what each statement's inputs and Domain clause refer to.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "frontend/ast.h"
#include "support/source_manager.h"

namespace rop::sema {

inline constexpr std::uint32_t kUnresolved = UINT32_MAX;

// The first definition of one stream name (duplicates are reported and left out).
struct StreamDef {
    std::string_view name;
    std::uint32_t statement = 0;  // index into ast::Program::statements
    std::uint32_t output = 0;     // position among the statement's outputs
    SourceRange range;            // the defining identifier
};

// One Domain name: the root is declared by the source, every other one by an `expand ... as`.
struct DomainDecl {
    std::string_view name;
    std::uint32_t statement = 0;  // the source or the expand
    SourceRange range;            // the name in `: Doc` or `as Page`
};

// The first declaration of one pool name (`pool vlm = ...`; duplicates are reported and left
// out).
struct PoolDecl {
    std::string_view name;
    std::uint32_t statement = 0;  // the pool statement
    SourceRange range;            // its name
};

struct Resolution {
    std::vector<StreamDef> streams;
    std::unordered_map<std::string_view, std::uint32_t> stream_by_name;
    std::vector<DomainDecl> domains;  // the root first, when there is a source
    std::unordered_map<std::string_view, std::uint32_t> domain_by_name;
    std::optional<std::uint32_t> source_statement;  // the first source

    // Per statement: the stream each input names (kUnresolved when undefined), and the Domain
    // its `as`/`to` clause names (kUnresolved when absent or undefined; for `as`, the Domain
    // that clause opens).
    std::vector<std::vector<std::uint32_t>> inputs;
    std::vector<std::uint32_t> domain_clause;

    // The pools, and per statement the pool its operator names (`with vlm.layout`): an index
    // into `pools`, kUnresolved for a Call with an operator of its own and every other statement.
    std::vector<PoolDecl> pools;
    std::unordered_map<std::string_view, std::uint32_t> pool_by_name;
    std::vector<std::uint32_t> pool_of;
};

// The pieces of a statement the name passes look at, whatever its kind.
const std::vector<ast::InputRef>* statement_inputs(const ast::Statement& statement);
std::vector<const ast::Ident*> statement_outputs(const ast::Statement& statement);

// The operator a statement runs: a source's, sink's, pool's or stage's `with`; null for a
// broadcast and a reduce without `with`.
const ast::OpRef* statement_op(const ast::Statement& statement);

// How a message names a statement: "'ocr'" for a stage or source, "the sink" for a sink,
// "pool 'vlm'" for a pool.
std::string statement_label(const ast::Statement& statement);

}  // namespace rop::sema
