// textDocument/hover, definition and completion over one analysed Document.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bind/bind_program.h"
#include "bind/pipeline_headers.h"
#include "frontend/token.h"
#include "lsp/document.h"
#include "rop/vocab/call_options.h"

namespace rop::lsp {

namespace {

namespace fs = std::filesystem;

// LSP's CompletionItemKind values used here.
enum CompletionKind { kFunction = 3, kVariable = 6, kClass = 7, kProperty = 10, kKeyword = 14 };

std::string rop_dir(const Document& doc) { return fs::path(doc.path).parent_path().string(); }

std::vector<std::string> use_paths(const Document& doc) {
    std::vector<std::string> paths;
    for (const ast::Use& use : doc.symbols.uses) paths.push_back(use.path);
    return paths;
}

// The UDFs the document can name: the binding's when the server binds, else the index's.
const bind::UdfLibrary& udfs(const Document& doc, Context& context) {
    if (doc.front.bound) return doc.front.bound->library;
    return context.udfs->library(rop_dir(doc), use_paths(doc));
}

// Stream types for hover: the check's binding, else one made now for this text (kept).
const bind::BoundProgram* binding(Document& doc, const Context& context) {
    if (doc.front.bound) return &*doc.front.bound;
    if (!doc.front.program) return nullptr;
    if (!doc.hover_binding) {
        bind::ProgramBindOptions options = driver::bind_options(context.front, context.toolchain);
        options.sources = doc.sources.get();
        DiagnosticEngine scratch(*doc.sources);  // `ropc check` reports these
        doc.hover_binding = bind::bind_program(*doc.front.program, doc.path, options, scratch);
    }
    return *doc.hover_binding ? &**doc.hover_binding : nullptr;
}

const sema::Port* find_port(const sema::CheckedProgram& program, std::string_view name) {
    for (const sema::Port& port : program.ports) {
        if (port.name == name) return &port;
    }
    return nullptr;
}

const sema::Domain* find_domain(const sema::CheckedProgram& program, std::string_view name) {
    for (const sema::Domain& domain : program.domains) {
        if (domain.name == name) return &domain;
    }
    return nullptr;
}

// "`Region`, child of `Page` in `Doc`" or "`Doc` (the root)".
std::string domain_text(const sema::CheckedProgram& program, sema::DomainId id) {
    const sema::Domain& domain = program.domains[id];
    std::string text = "`" + domain.name + "`";
    if (!domain.parent) return text + " (the root)";
    const char* joint = ", child of `";
    for (auto parent = domain.parent; parent; parent = program.domains[*parent].parent) {
        text += joint + program.domains[*parent].name + "`";
        joint = " in `";
    }
    return text;
}

std::string line_of(const Document& doc, SourceRange range) {
    return std::to_string(doc.sources->line_col(range.file, range.begin).line);
}

std::string number(double value) {
    std::ostringstream out;
    out << value;
    return out.str();
}

std::string option_kind(const vocab::CallOptionSpec& spec) {
    switch (spec.kind) {
        case vocab::OptionKind::Int: return "integer " + number(spec.min) + ".." + number(spec.max);
        case vocab::OptionKind::Number:
            return "number " + number(spec.min) + ".." + number(spec.max);
        case vocab::OptionKind::Duration: return "duration (`30s`, `5m`, `500ms`)";
        case vocab::OptionKind::Gpus:
            return "GPUs: whole (1.." + number(spec.max) + ") or a fraction of one (0.5)";
        case vocab::OptionKind::Enum: {
            std::string words;
            for (std::string_view word : spec.enumerators) {
                words += (words.empty() ? "" : ", ") + std::string(word);
            }
            return "one of " + words;
        }
    }
    return "";
}

std::string option_default(const vocab::CallOptionSpec& spec) {
    if (spec.kind == vocab::OptionKind::Enum) {
        const auto i = static_cast<std::size_t>(spec.default_value);
        return i < spec.enumerators.size() ? std::string(spec.enumerators[i]) : "?";
    }
    if (spec.kind == vocab::OptionKind::Duration && spec.default_value == 0) return "none";
    if (spec.kind == vocab::OptionKind::Duration) return number(spec.default_value) + "ms";
    return number(spec.default_value);
}

std::string option_doc(const vocab::CallOptionSpec& spec) {
    return "**Call option** `" + std::string(spec.name) + "`: " + std::string(spec.meaning) +
           ".\n\n" + option_kind(spec) + "; default " + option_default(spec) +
           (spec.run_time ? "; a binary's `--set` may change it" : "; fixed at build time");
}

std::string operator_doc(const bind::UdfLibrary& library, const bind::UdfDecl& decl) {
    std::string text = "```cpp\n" + signature(decl) + "\n```\n";
    if (const std::string doc = doc_comment(decl.location); !doc.empty()) text += "\n" + doc + "\n";
    text += "\n`" + rop_name(library, decl) + "` is `" + decl.qualified_name + "`";
    if (decl.location.valid()) text += ", declared at " + bind::to_string(decl.location);
    return text;
}

// `vlm.layout` when `vlm` is a pool of the document: the method of its class, or "" when it
// names none.
std::string pool_method_doc(const Document& doc, const bind::UdfLibrary& library,
                            const std::string& name) {
    const std::size_t dot = name.find('.');
    if (dot == std::string::npos) return "";
    const std::string pool = name.substr(0, dot);
    const std::string method = name.substr(dot + 1);
    for (const PoolEntry& entry : doc.symbols.pools) {
        if (entry.name != pool) continue;
        const bind::UdfDecl* cls = library.find_class(entry.class_name);
        if (cls == nullptr) return "";
        for (const bind::UdfMethod& m : cls->methods) {
            if (m.name != method) continue;
            bind::UdfDecl as_function;
            as_function.name = m.name;
            as_function.params = m.params;
            as_function.result = m.result;
            std::string text = "```cpp\n" + signature(as_function) + "\n```\n";
            if (const std::string comment = doc_comment(m.location); !comment.empty()) {
                text += "\n" + comment + "\n";
            }
            text += "\na method of `" + cls->qualified_name + "`, the class of pool `" + pool + "`";
            if (m.location.valid()) text += ", declared at " + bind::to_string(m.location);
            return text;
        }
        return "";
    }
    return "";
}

std::string stream_hover(Document& doc, const Occurrence& occurrence, const Context& context) {
    std::string text = "**stream** `" + occurrence.name + "`";
    const sema::CheckedProgram* program = doc.front.program.get();
    const sema::Port* port = program ? find_port(*program, occurrence.name) : nullptr;
    if (port == nullptr) {
        return text + "\n\nDomain and C++ type: known once the file checks without errors";
    }
    text += "\n\nDomain: " + domain_text(*program, port->domain);
    const auto index = static_cast<std::size_t>(port - program->ports.data());
    const bind::BoundProgram* bound = binding(doc, context);
    if (bound != nullptr && index < bound->port_types.size()) {
        text += "\n\nC++ type: `" + bound->port_types[index].name + "`";
    } else {
        text += "\n\nC++ type: not known: binding to the C++ UDFs failed (`ropc check` says why)";
    }
    const sema::Call& producer = program->calls[port->producer];
    text += "\n\nmade by the " + std::string(sema::to_string(producer.kind));
    if (producer.op) text += " with `" + producer.op->name + "`";
    return text + " on line " + line_of(doc, producer.range);
}

std::string domain_hover(const Document& doc, const Occurrence& occurrence) {
    const sema::CheckedProgram* program = doc.front.program.get();
    const sema::Domain* domain = program ? find_domain(*program, occurrence.name) : nullptr;
    if (domain == nullptr) {
        return "**Domain** `" + occurrence.name + "`\n\nknown once the file checks without errors";
    }
    const sema::Call& opener = program->calls[domain->opened_by];
    const auto id = static_cast<sema::DomainId>(domain - program->domains.data());
    return "**Domain** " + domain_text(*program, id) + "\n\nopened by the " +
           sema::to_string(opener.kind) + " on line " + line_of(doc, opener.range);
}

std::optional<std::string> header_of(const Document& doc, const std::string& use,
                                     const Context& context) {
    return bind::find_use_header(use, rop_dir(doc), context.front.include_dirs);
}

json location_of(const bind::SourceLoc& loc, std::size_t length) {
    const std::uint32_t line = loc.line == 0 ? 0 : loc.line - 1;
    const std::uint32_t column = loc.column == 0 ? 0 : loc.column - 1;
    return {{"uri", path_to_uri(loc.file)},
            {"range",
             {{"start", {{"line", line}, {"character", column}}},
              {"end", {{"line", line}, {"character", column + length}}}}}};
}

bool file_mentions(const std::string& path, std::string_view word) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str().find(word) != std::string::npos;
}

// Where the UDF `name` is declared: its header when Clang read it there, else the `use` line of
// the header that mentions it (the first `use` when none does).
json operator_definition(Document& doc, const std::string& name, Context& context) {
    const bind::UdfLibrary& library = udfs(doc, context);
    if (const bind::UdfDecl* decl = library.find(name); decl && decl->location.valid()) {
        return location_of(decl->location, decl->name.size());
    }
    if (name.starts_with("std.") || doc.symbols.uses.empty()) return nullptr;
    const std::string last = name.substr(name.rfind('.') + 1);
    for (const ast::Use& use : doc.symbols.uses) {
        const auto header = header_of(doc, use.path, context);
        if (header && file_mentions(*header, last)) {
            return to_lsp_location(*doc.sources, use.range);
        }
    }
    return to_lsp_location(*doc.sources, doc.symbols.uses.front().range);
}

json item(std::string label, int kind, std::string detail, std::string documentation,
          const json& range) {
    json out = {{"label", label}, {"kind", kind}, {"detail", std::move(detail)}};
    if (!documentation.empty()) {
        out["documentation"] = {{"kind", "markdown"}, {"value", std::move(documentation)}};
    }
    out["textEdit"] = {{"range", range}, {"newText", std::move(label)}};
    return out;
}

bool name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.';
}

}  // namespace

json hover(Document& doc, Position position, Context& context) {
    const Occurrence* at = doc.symbols.at(to_offset(*doc.sources, doc.file, position));
    if (at == nullptr) return nullptr;
    std::string text;
    switch (at->kind) {
        case SymbolKind::Stream: text = stream_hover(doc, *at, context); break;
        case SymbolKind::Domain: text = domain_hover(doc, *at); break;
        case SymbolKind::Option:
            if (const vocab::CallOptionSpec* spec = vocab::find_call_option(at->name)) {
                text = option_doc(*spec);
            }
            break;
        case SymbolKind::Operator: {
            const bind::UdfLibrary& library = udfs(doc, context);
            const bind::UdfDecl* decl = library.find(at->name);
            if (decl == nullptr) decl = library.find_class(at->name);  // a pool's class
            text = decl ? operator_doc(library, *decl) : pool_method_doc(doc, library, at->name);
            if (text.empty()) {
                text = "`" + at->name +
                       "`: no stdlib operator or UDF of the `use` headers has this name";
            }
            break;
        }
        case SymbolKind::UsePath: {
            const auto header = header_of(doc, at->name, context);
            text = header ? "`use` header: `" + *header + "`" : "`" + at->name + "`: not found";
            break;
        }
    }
    if (text.empty()) return nullptr;
    return {{"contents", {{"kind", "markdown"}, {"value", text}}},
            {"range", to_lsp_range(*doc.sources, at->range)}};
}

json definition(Document& doc, Position position, Context& context) {
    const Occurrence* at = doc.symbols.at(to_offset(*doc.sources, doc.file, position));
    if (at == nullptr) return nullptr;
    switch (at->kind) {
        case SymbolKind::Stream:
        case SymbolKind::Domain: {
            const Occurrence* def = doc.symbols.definition(at->kind, at->name);
            return def ? to_lsp_location(*doc.sources, def->range) : json(nullptr);
        }
        case SymbolKind::Operator: return operator_definition(doc, at->name, context);
        case SymbolKind::UsePath: {
            const auto header = header_of(doc, at->name, context);
            return header ? location_of({*header, 1, 1}, 0) : json(nullptr);
        }
        case SymbolKind::Option: return nullptr;
    }
    return nullptr;
}

json completion(Document& doc, Position position, Context& context) {
    // The dotted name being typed ends at the cursor: every item replaces all of it, so
    // `std.pdf.` completes to `std.pdf.render`, not `std.pdf.std.pdf.render`.
    const std::uint32_t end = to_offset(*doc.sources, doc.file, position);
    const std::string_view text = doc.sources->text(doc.file);
    std::uint32_t begin = end;
    while (begin > 0 && name_char(text[begin - 1])) --begin;
    const json range = to_lsp_range(*doc.sources, {doc.file, begin, end});

    json items = json::array();
    for (const vocab::CallOptionSpec& spec : vocab::call_options()) {
        items.push_back(
            item(std::string(spec.name), kProperty, option_kind(spec), option_doc(spec), range));
    }
    const bind::UdfLibrary& library = udfs(doc, context);
    for (const bind::UdfDecl& decl : library.decls) {
        const bool stdlib = decl.qualified_name.starts_with("rop::stdlib::");
        if (stdlib && !is_stdlib_operator(decl)) continue;
        items.push_back(item(rop_name(library, decl), decl.is_class ? kClass : kFunction,
                             signature(decl), operator_doc(library, decl), range));
    }
#define ROP_LSP_KEYWORD(name, dump_name, description)                                      \
    if (std::string_view(dump_name).starts_with("kw_")) {                                  \
        items.push_back(item(std::string(std::string_view(dump_name).substr(3)), kKeyword, \
                             "keyword", "", range));                                       \
    }
    ROP_TOKEN_KINDS(ROP_LSP_KEYWORD)
#undef ROP_LSP_KEYWORD
    for (const Occurrence& occurrence : doc.symbols.occurrences) {
        if (!occurrence.definition) continue;
        const bool stream = occurrence.kind == SymbolKind::Stream;
        items.push_back(item(occurrence.name, stream ? kVariable : kClass,
                             stream ? "stream" : "Domain", "", range));
    }
    return {{"isIncomplete", false}, {"items", std::move(items)}};
}

json document_symbols(const Document& doc) {
    // LSP's SymbolKind: a stream is a Variable (13), a Domain a Struct (23).
    json symbols = json::array();
    for (const Occurrence& occurrence : doc.symbols.occurrences) {
        if (!occurrence.definition) continue;
        const bool stream = occurrence.kind == SymbolKind::Stream;
        const json range = to_lsp_range(*doc.sources, occurrence.range);
        symbols.push_back({{"name", occurrence.name},
                           {"detail", stream ? "stream" : "Domain"},
                           {"kind", stream ? 13 : 23},
                           {"range", range},
                           {"selectionRange", range}});
    }
    return symbols;
}

}  // namespace rop::lsp
