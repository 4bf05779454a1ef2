// --emit=tokens and --emit=ast.
#include "frontend/dump.h"

#include <nlohmann/json.hpp>

namespace rop {

namespace {

using json = nlohmann::ordered_json;  // keys in the order written: "kind" first

std::string escaped(std::string_view text) {
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (char c : text) {
        auto byte = static_cast<unsigned char>(c);
        if (c == '\\' || c == '\'') {
            out += '\\';
            out += c;
        } else if (byte < 0x20 || byte == 0x7F) {
            out += "\\x";
            out += hex[byte >> 4];
            out += hex[byte & 0xF];
        } else {
            out += c;
        }
    }
    return out;
}

class AstDumper {
  public:
    explicit AstDumper(const SourceManager& sources) : sources_(sources) {}

    std::string range(SourceRange r) const {
        LineCol b = sources_.line_col(r.file, r.begin);
        LineCol e = sources_.line_col(r.file, r.end);
        return std::to_string(b.line) + ":" + std::to_string(b.column) + "-" +
               std::to_string(e.line) + ":" + std::to_string(e.column);
    }

    json node(const char* kind, SourceRange r) const {
        return {{"kind", kind}, {"range", range(r)}};
    }

    json ident(const ast::Ident& id) const {
        json out = node("Ident", id.range);
        out["name"] = id.name;
        return out;
    }

    json value(const ast::Value& v) const {
        json out = node("Value", v.range);
        out["type"] = ast::to_string(v.kind);
        switch (v.kind) {
            case ast::Value::Kind::String:
            case ast::Value::Kind::Ident: out["value"] = v.text; break;
            case ast::Value::Kind::Int: out["value"] = v.int_value; break;
            case ast::Value::Kind::Duration: out["millis"] = v.int_value; break;
            case ast::Value::Kind::Float: out["value"] = v.float_value; break;
            case ast::Value::Kind::Bool: out["value"] = v.bool_value; break;
            case ast::Value::Kind::List:
                out["items"] = json::array();
                for (const auto& item : v.items) out["items"].push_back(value(item));
                break;
        }
        return out;
    }

    json op(const ast::OpRef& o) const {
        json out = node("OpRef", o.range);
        out["name"] = o.name.str();
        out["name_range"] = range(o.name.range);
        out["has_parens"] = o.has_parens;
        out["args"] = json::array();
        for (const auto& a : o.args) {
            json arg = node("Argument", a.range);
            arg["name"] = ident(a.name);
            arg["value"] = value(a.value);
            out["args"].push_back(std::move(arg));
        }
        return out;
    }

    json options(const std::vector<ast::Option>& opts) const {
        json out = json::array();
        for (const auto& o : opts) {
            json opt = node("Option", o.range);
            opt["name"] = ident(o.name);
            opt["value"] = value(o.value);
            out.push_back(std::move(opt));
        }
        return out;
    }

    json inputs(const std::vector<ast::InputRef>& refs) const {
        json out = json::array();
        for (const auto& r : refs) {
            json in = node("InputRef", r.range);
            in["name"] = r.name.name;
            in["optional"] = r.optional;
            out.push_back(std::move(in));
        }
        return out;
    }

    json operator()(const ast::Use& u) const {
        json out = node("Use", u.range);
        out["path"] = u.path;
        return out;
    }

    json operator()(const ast::Source& s) const {
        json out = node("Source", s.range);
        out["name"] = ident(s.name);
        out["domain"] = ident(s.domain);
        out["op"] = op(s.op);
        out["options"] = options(s.options);
        return out;
    }

    json operator()(const ast::Sink& s) const {
        json out = node("Sink", s.range);
        out["inputs"] = inputs(s.inputs);
        out["op"] = op(s.op);
        out["options"] = options(s.options);
        return out;
    }

    json operator()(const ast::Pool& p) const {
        json out = node("Pool", p.range);
        out["keyword_range"] = range(p.keyword_range);
        out["name"] = ident(p.name);
        out["op"] = op(p.op);
        out["options"] = options(p.options);
        return out;
    }

    json operator()(const ast::Stage& s) const {
        json out = node("Stage", s.range);
        out["stage"] = ast::to_string(s.kind);
        out["stage_range"] = range(s.kind_range);
        out["outputs"] = json::array();
        for (const auto& o : s.outputs) out["outputs"].push_back(ident(o));
        out["inputs"] = inputs(s.inputs);
        out["parenthesized_inputs"] = s.parenthesized_inputs;
        out["domain"] = s.domain ? ident(*s.domain) : json(nullptr);
        out["op"] = s.op ? op(*s.op) : json(nullptr);
        out["options"] = options(s.options);
        return out;
    }

  private:
    const SourceManager& sources_;
};

}  // namespace

std::string dump_tokens(const std::vector<Token>& tokens, const SourceManager& sources) {
    std::string out;
    for (const Token& token : tokens) {
        LineCol at = sources.line_col(token.range.file, token.range.begin);
        out += std::to_string(at.line) + ":" + std::to_string(at.column) + " " +
               token_kind_name(token.kind) + " '" + escaped(token.text) + "'\n";
    }
    return out;
}

std::string dump_ast_json(const ast::Program& program, const SourceManager& sources) {
    AstDumper dump(sources);
    json out = {{"kind", "Program"}, {"file", sources.name(program.file)}};
    if (program.header) {
        json header = dump.node("PipelineDecl", program.header->range);
        header["name"] = dump.ident(program.header->name);
        out["header"] = std::move(header);
    } else {
        out["header"] = nullptr;
    }
    out["statements"] = json::array();
    for (const auto& statement : program.statements) {
        out["statements"].push_back(std::visit(dump, statement));
    }
    return out.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace rop
