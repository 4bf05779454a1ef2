// UdfLibrary: every UDF and type read from a pipeline's headers, looked up by the name a `.rop`
// file uses (`mineru.fix_hyphens` or `mineru::fix_hyphens`), with "did you mean" for typos.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "bind/udf_decl.h"

namespace rop::bind {

// A `.rop` scope that stands for a C++ namespace: {"std", "rop::stdlib"} makes
// `std.pdf.render` find `rop::stdlib::pdf::render` (C++ forbids adding to namespace std).
struct ScopeAlias {
    std::string rop_scope;   // "std"
    std::string cpp_prefix;  // "rop::stdlib"
};

struct UdfLibrary {
    std::vector<UdfDecl> decls;  // in declaration order, header by header
    // Classes with public named methods but no operator(), next() or write(): not UDFs, but
    // each may be a pool's class (`pool vlm = ns.Model(...)`; docs/language.md, "pool").
    std::vector<UdfDecl> pool_classes;
    std::vector<UdfType> types;
    std::vector<ScopeAlias> aliases;  // set by the caller; read_udfs leaves it empty
    // The codec of every type a UDF's signature names (and of the types those reach through
    // their fields), by canonical name, in the order found.
    std::vector<TypeCodec> codecs;

    // The first UDF with this qualified name ('.' and '::' both separate scopes; a leading
    // '::' is ignored), or null. Overloaded functions: find_all gives every one.
    const UdfDecl* find(std::string_view name) const;
    std::vector<const UdfDecl*> find_all(std::string_view name) const;
    const UdfType* find_type(std::string_view name) const;
    // The class a pool names: a class UDF (decls) or one of pool_classes; null when neither.
    const UdfDecl* find_class(std::string_view name) const;

    // Known UDF names close to a misspelt one, best first (at most three). A wrong or missing
    // namespace counts as close when the last component matches. Spelt with '.' (as a `.rop`
    // file writes them) unless `name` used '::'.
    std::vector<std::string> suggestions(std::string_view name) const;
};

}  // namespace rop::bind
