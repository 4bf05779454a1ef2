#include "lsp/udf_index.h"

#include <fstream>
#include <string_view>

#include "bind/pipeline_headers.h"
#include "bind/udf_reader.h"

namespace rop::lsp {

namespace {

constexpr std::string_view kStdlibPrefix = "rop::stdlib::";

std::string parameters(const std::vector<bind::UdfParam>& params) {
    std::string out;
    for (const bind::UdfParam& param : params) {
        if (!out.empty()) out += ", ";
        out += param.type.spelling;
        if (!param.name.empty()) out += " " + param.name;
        if (param.has_default) out += " = " + param.default_text;
    }
    return out;
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\r')) text.remove_suffix(1);
    return text;
}

}  // namespace

const bind::UdfLibrary& UdfIndex::library(const std::string& rop_dir,
                                          const std::vector<std::string>& uses) {
    std::string key = rop_dir;
    for (const std::string& use : uses) key += '\n' + use;
    if (const auto found = cache_.find(key); found != cache_.end()) return found->second;

    // The headers in the order binding reads them: the stdlib first, so a broken `use` header
    // cannot take the stdlib's declarations down with it.
    std::vector<std::string> headers = bind::stdlib_headers(options_.stdlib_include_dirs);
    for (const std::string& use : uses) {
        if (auto path = bind::find_use_header(use, rop_dir, options_.include_dirs)) {
            headers.push_back(std::move(*path));
        }
    }
    std::vector<std::string> include_dirs{rop_dir.empty() ? "." : rop_dir};
    include_dirs.insert(include_dirs.end(), options_.include_dirs.begin(),
                        options_.include_dirs.end());
    include_dirs.insert(include_dirs.end(), options_.stdlib_include_dirs.begin(),
                        options_.stdlib_include_dirs.end());
    bind::ReadOptions read;
    read.lint = false;  // bodies are not needed: skipping them parses faster
    read.pch_cache_dir = options_.pch_cache_dir;
    read.pch_seed_dir = options_.pch_seed_dir;
    std::vector<bind::BindError> errors;  // binding reports them; here they only cost names
    bind::UdfLibrary library;
    if (!headers.empty()) library = bind::read_udfs(headers, include_dirs, &errors, read);
    library.aliases = {{"std", "rop::stdlib"}};
    return cache_.emplace(std::move(key), std::move(library)).first->second;
}

std::string rop_name(const bind::UdfLibrary& library, const bind::UdfDecl& decl) {
    std::string name = decl.qualified_name;
    for (const bind::ScopeAlias& alias : library.aliases) {
        const std::string prefix = alias.cpp_prefix + "::";
        if (name.rfind(prefix, 0) == 0) {
            name = alias.rop_scope + "::" + name.substr(prefix.size());
            break;
        }
    }
    std::string dotted;
    for (std::size_t i = 0; i < name.size(); ++i) {
        if (name[i] == ':' && i + 1 < name.size() && name[i + 1] == ':') {
            dotted += '.';
            ++i;
        } else {
            dotted += name[i];
        }
    }
    return dotted;
}

bool is_stdlib_operator(const bind::UdfDecl& decl) {
    const std::string_view name = decl.qualified_name;
    return name.substr(0, kStdlibPrefix.size()) == kStdlibPrefix &&
           name.find("::detail::") == std::string_view::npos && !decl.name.empty() &&
           decl.name.front() != '_';
}

std::string signature(const bind::UdfDecl& decl) {
    if (decl.is_class) return "class " + decl.name + "(" + parameters(decl.ctor_params) + ")";
    return decl.result.spelling + " " + decl.name + "(" + parameters(decl.params) + ")";
}

std::string doc_comment(const bind::SourceLoc& loc) {
    if (!loc.valid()) return "";
    std::ifstream in(loc.file);
    std::vector<std::string> lines;
    std::string line;
    while (lines.size() + 1 < loc.line && std::getline(in, line)) lines.push_back(line);
    // The declaration may start a line or two above its name (a `template <...>`, a return
    // type on its own line): the comment is the run of `//` lines right above the first line
    // that is not one.
    std::size_t end = lines.size();
    while (end > 0 && end + 3 > lines.size() && !trim(lines[end - 1]).starts_with("//") &&
           !trim(lines[end - 1]).empty()) {
        --end;
    }
    std::size_t begin = end;
    while (begin > 0 && trim(lines[begin - 1]).starts_with("//")) --begin;
    std::string doc;
    for (std::size_t i = begin; i < end; ++i) {
        std::string_view text = trim(lines[i]);
        text.remove_prefix(2);
        if (!text.empty() && text.front() == ' ') text.remove_prefix(1);
        if (!doc.empty()) doc += '\n';
        doc += text;
    }
    return doc;
}

}  // namespace rop::lsp
