#include "bind/udf_library.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "rop/vocab/suggest.h"

namespace rop::bind {
namespace {

// "a.b::c" and "::a::b::c" both become "a::b::c".
std::string normalize(std::string_view name) {
    std::string out;
    out.reserve(name.size() + 4);
    for (char c : name) {
        if (c == '.') {
            out += "::";
        } else {
            out += c;
        }
    }
    if (out.rfind("::", 0) == 0) out.erase(0, 2);
    return out;
}

std::string dotted(std::string_view qualified) {
    std::string out;
    for (std::size_t i = 0; i < qualified.size(); ++i) {
        if (qualified[i] == ':' && i + 1 < qualified.size() && qualified[i + 1] == ':') {
            out += '.';
            ++i;
        } else {
            out += qualified[i];
        }
    }
    return out;
}

std::string_view last_component(std::string_view qualified) {
    std::size_t colon = qualified.rfind("::");
    return colon == std::string_view::npos ? qualified : qualified.substr(colon + 2);
}

// The C++ name a `.rop` name stands for, through the first alias whose scope it starts with.
std::string resolve(std::string_view name, const std::vector<ScopeAlias>& aliases) {
    std::string wanted = normalize(name);
    for (const ScopeAlias& alias : aliases) {
        std::string scope = alias.rop_scope + "::";
        if (wanted.rfind(scope, 0) == 0)
            return alias.cpp_prefix + "::" + wanted.substr(scope.size());
    }
    return wanted;
}

// The other way, for suggestions: how a `.rop` file spells a C++ name.
std::string rop_spelling(const std::string& qualified, const std::vector<ScopeAlias>& aliases) {
    for (const ScopeAlias& alias : aliases) {
        std::string prefix = alias.cpp_prefix + "::";
        if (qualified.rfind(prefix, 0) == 0) {
            return alias.rop_scope + "::" + qualified.substr(prefix.size());
        }
    }
    return qualified;
}

}  // namespace

const UdfDecl* UdfLibrary::find(std::string_view name) const {
    std::string wanted = resolve(name, aliases);
    for (const UdfDecl& decl : decls) {
        if (decl.qualified_name == wanted) return &decl;
    }
    return nullptr;
}

std::vector<const UdfDecl*> UdfLibrary::find_all(std::string_view name) const {
    std::string wanted = resolve(name, aliases);
    std::vector<const UdfDecl*> found;
    for (const UdfDecl& decl : decls) {
        if (decl.qualified_name == wanted) found.push_back(&decl);
    }
    return found;
}

const UdfDecl* UdfLibrary::find_class(std::string_view name) const {
    std::string wanted = resolve(name, aliases);
    for (const std::vector<UdfDecl>* list : {&decls, &pool_classes}) {
        for (const UdfDecl& decl : *list) {
            if (decl.is_class && decl.qualified_name == wanted) return &decl;
        }
    }
    return nullptr;
}

const UdfType* UdfLibrary::find_type(std::string_view name) const {
    std::string wanted = resolve(name, aliases);
    for (const UdfType& type : types) {
        if (type.qualified_name == wanted) return &type;
    }
    return nullptr;
}

std::vector<std::string> UdfLibrary::suggestions(std::string_view name) const {
    std::string wanted = normalize(name);
    bool use_dots = name.find("::") == std::string_view::npos;
    // Compare whole names, and also the last component alone so that a missing or wrong
    // namespace ("fix_hyphen" for "mineru::fix_hyphens") still finds its candidate.
    struct Candidate {
        std::size_t distance;
        std::size_t order;
        const std::string* qualified;
    };
    std::vector<Candidate> candidates;
    std::size_t limit = std::max<std::size_t>(1, wanted.size() / 3);
    std::string_view wanted_last = last_component(wanted);
    std::size_t last_limit = std::max<std::size_t>(1, wanted_last.size() / 3);
    std::vector<std::string> spellings;  // each decl as a `.rop` file would name it
    spellings.reserve(decls.size());
    for (const UdfDecl& decl : decls)
        spellings.push_back(rop_spelling(decl.qualified_name, aliases));
    for (std::size_t i = 0; i < decls.size(); ++i) {
        const std::string& qualified = spellings[i];
        if (qualified == wanted) continue;
        std::size_t whole = vocab::edit_distance(wanted, qualified);
        std::size_t last = vocab::edit_distance(wanted_last, last_component(qualified));
        std::size_t best =
            std::min(whole <= limit ? whole : SIZE_MAX, last <= last_limit ? last : SIZE_MAX);
        if (best == SIZE_MAX) continue;
        bool seen = std::any_of(candidates.begin(), candidates.end(),
                                [&](const Candidate& c) { return *c.qualified == qualified; });
        if (!seen) candidates.push_back({best, i, &qualified});
    }
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
        return a.distance != b.distance ? a.distance < b.distance : a.order < b.order;
    });
    std::vector<std::string> out;
    for (const Candidate& c : candidates) {
        if (out.size() == 3) break;
        out.push_back(use_dots ? dotted(*c.qualified) : *c.qualified);
    }
    return out;
}

std::string to_string(const SourceLoc& loc) {
    if (!loc.valid()) return loc.file;
    return loc.file + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column);
}

}  // namespace rop::bind
