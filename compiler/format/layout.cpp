// Statements in canonical form: single spaces between words, none inside brackets or before
// ',' ':' '?', `source name : Domain`, `a -> op`, and literals exactly as they were spelled.
#include "format/layout.h"

#include <variant>

namespace rop::format {

namespace {

std::string_view spelling(const SourceRange& range, std::string_view text) {
    return text.substr(range.begin, range.end - range.begin);
}

std::string value(const ast::Value& v, std::string_view text) {
    if (v.kind != ast::Value::Kind::List) return std::string(spelling(v.range, text));
    std::string out = "[";
    for (std::size_t i = 0; i < v.items.size(); ++i) {
        if (i > 0) out += ", ";
        out += value(v.items[i], text);
    }
    return out + "]";
}

std::string options(const std::vector<ast::Option>& opts, std::string_view text) {
    std::string out;
    for (const ast::Option& option : opts)
        out += " " + option.name.name + " " + value(option.value, text);
    return out;
}

std::string inputs(const std::vector<ast::InputRef>& refs, bool parenthesized) {
    std::string out = parenthesized ? "(" : "";
    for (std::size_t i = 0; i < refs.size(); ++i) {
        if (i > 0) out += ", ";
        out += refs[i].name.name + (refs[i].optional ? "?" : "");
    }
    return out + (parenthesized ? ")" : "");
}

// Appends the operator to `out`: its name to `head`, its arguments as pieces.
void op(const ast::OpRef& ref, std::string_view text, StatementText& out) {
    out.head += ref.name.str();
    out.has_parens = ref.has_parens;
    for (const ast::Argument& arg : ref.args) {
        out.args.push_back(arg.name.name + ": " + value(arg.value, text));
    }
}

struct Printer {
    std::string_view text;

    StatementText operator()(const ast::Use& use) const {
        // The path as spelled: the statement's range ends with the string literal, which starts
        // after 'use' and any space and comments.
        std::size_t at = use.range.begin + 3;
        while (at < use.range.end) {
            if (text[at] == '#' || (text[at] == '/' && text[at + 1] == '/')) {
                while (at < use.range.end && text[at] != '\n' && text[at] != '\r') ++at;
            } else if (text[at] != '"') {
                ++at;
            } else {
                break;
            }
        }
        return {"", "use " + std::string(text.substr(at, use.range.end - at)), false, {}, ";"};
    }

    StatementText operator()(const ast::Source& source) const {
        StatementText out;
        out.head = "source " + source.name.name + " : " + source.domain.name + " = ";
        op(source.op, text, out);
        out.tail = options(source.options, text) + ";";
        return out;
    }

    StatementText operator()(const ast::Sink& sink) const {
        StatementText out;
        out.head = "sink " + inputs(sink.inputs, sink.inputs.size() > 1) + " -> ";
        op(sink.op, text, out);
        out.tail = options(sink.options, text) + ";";
        return out;
    }

    StatementText operator()(const ast::Pool& pool) const {
        StatementText out;
        out.head = "pool " + pool.name.name + " = ";
        op(pool.op, text, out);
        out.tail = options(pool.options, text) + ";";
        return out;
    }

    StatementText operator()(const ast::Stage& stage) const {
        StatementText out;
        if (stage.outputs.size() == 1) {
            out.lhs = stage.outputs.front().name;
        } else {
            out.lhs = "(";
            for (std::size_t i = 0; i < stage.outputs.size(); ++i) {
                out.lhs += (i > 0 ? ", " : "") + stage.outputs[i].name;
            }
            out.lhs += ")";
        }
        out.head = std::string(ast::to_string(stage.kind)) + " " +
                   inputs(stage.inputs, stage.parenthesized_inputs);
        if (stage.domain) {
            out.head +=
                (stage.kind == ast::StageKind::Expand ? " as " : " to ") + stage.domain->name;
        }
        if (stage.op) {
            out.head += " with ";
            op(*stage.op, text, out);
        }
        out.tail = options(stage.options, text) + ";";
        return out;
    }
};

}  // namespace

std::size_t display_width(std::string_view line) {
    std::size_t width = 0;
    for (char c : line) {
        if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++width;  // not a continuation byte
    }
    return width;
}

StatementText statement_text(const ast::Statement& statement, std::string_view text) {
    return std::visit(Printer{text}, statement);
}

StatementText header_text(const ast::PipelineDecl& header) {
    return {"", "pipeline " + header.name.name, false, {}, ";"};
}

std::vector<std::string> lay_out(const StatementText& s, std::size_t lhs_width,
                                 const std::vector<std::string>& arg_comments) {
    std::string first = s.lhs;
    if (!s.lhs.empty()) {
        first += std::string(lhs_width > s.lhs.size() ? lhs_width - s.lhs.size() : 0, ' ');
        first += " = ";
    }
    first += s.head;
    if (!s.has_parens) return {first + s.tail};

    bool commented = false;
    for (const std::string& comment : arg_comments) commented = commented || !comment.empty();
    std::string one_line = first + "(";
    for (std::size_t i = 0; i < s.args.size(); ++i) one_line += (i > 0 ? ", " : "") + s.args[i];
    one_line += ")" + s.tail;
    if (s.args.size() < 2 || (!commented && display_width(one_line) <= kLineLimit)) {
        return {one_line};
    }

    const std::string indent(display_width(first) + 1, ' ');
    std::vector<std::string> lines;
    for (std::size_t i = 0; i < s.args.size(); ++i) {
        std::string line = (i == 0 ? first + "(" : indent) + s.args[i];
        line += i + 1 < s.args.size() ? "," : ")" + s.tail;
        if (i < arg_comments.size() && !arg_comments[i].empty()) line += "  " + arg_comments[i];
        lines.push_back(std::move(line));
    }
    return lines;
}

}  // namespace rop::format
