// Reuses the AST dump (frontend/dump.h), so a field added to the tree and its dump is compared
// here without a second list of fields to keep in step.
#include "format/structure.h"

#include <nlohmann/json.hpp>

#include "frontend/dump.h"

namespace rop::format {

namespace {

void drop_positions(nlohmann::json& node) {
    if (node.is_array()) {
        for (nlohmann::json& item : node) drop_positions(item);
        return;
    }
    if (!node.is_object()) return;
    for (auto it = node.begin(); it != node.end();) {
        const std::string& key = it.key();
        bool position =
            key == "file" || key == "range" || (key.size() > 6 && key.ends_with("_range"));
        if (position) {
            it = node.erase(it);
        } else {
            drop_positions(*it);
            ++it;
        }
    }
}

}  // namespace

std::string structure(const ast::Program& program, const SourceManager& sources) {
    nlohmann::json tree = nlohmann::json::parse(dump_ast_json(program, sources));
    drop_positions(tree);
    return tree.dump(1);
}

}  // namespace rop::format
