#include "codegen/printer.h"

#include <algorithm>
#include <utility>

namespace rop::codegen {
namespace {

std::string describe(const std::string& template_name, std::size_t line,
                     const std::string& problem) {
    std::string text = "codegen template '" + template_name + "'";
    if (line != 0) text += ", line " + std::to_string(line);
    return text + ": " + problem;
}

std::string quoted(std::string_view name) { return "'$" + std::string(name) + "$'"; }

bool is_blank(std::string_view line) {
    return line.find_first_not_of(" \t") == std::string_view::npos;
}

bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }

struct TemplateLine {
    std::size_t number;  // 1-based, in the text as given (before dedent)
    std::string_view text;
};

// Splits, drops a blank first and last line, and removes the common indentation.
std::vector<TemplateLine> dedent(std::string_view text) {
    std::vector<TemplateLine> lines;
    std::size_t start = 0;
    for (std::size_t number = 1;; ++number) {
        std::size_t end = text.find('\n', start);
        std::string_view line =
            text.substr(start, end == std::string_view::npos ? end : end - start);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // a CRLF checkout
        lines.push_back({number, line});
        if (end == std::string_view::npos) break;
        start = end + 1;
    }
    if (!lines.empty() && is_blank(lines.front().text)) lines.erase(lines.begin());
    if (!lines.empty() && is_blank(lines.back().text)) lines.pop_back();

    std::string_view common;
    bool first = true;
    for (const TemplateLine& line : lines) {
        if (is_blank(line.text)) continue;
        std::string_view indent = line.text.substr(0, line.text.find_first_not_of(" \t"));
        if (first) {
            common = indent;
            first = false;
            continue;
        }
        std::size_t shared = 0;
        while (shared < common.size() && shared < indent.size() && common[shared] == indent[shared])
            ++shared;
        common = common.substr(0, shared);
    }
    for (TemplateLine& line : lines) {
        line.text = is_blank(line.text) ? std::string_view{} : line.text.substr(common.size());
    }
    return lines;
}

// One piece of a template line: literal text, or a variable reference (`is_var`).
struct Segment {
    std::string_view text;
    bool is_var;
};

std::vector<Segment> split_line(std::string_view template_name, const TemplateLine& line) {
    std::vector<Segment> segments;
    std::string_view rest = line.text;
    while (!rest.empty()) {
        std::size_t dollar = rest.find('$');
        if (dollar == std::string_view::npos) {
            segments.push_back({rest, false});
            break;
        }
        if (dollar > 0) segments.push_back({rest.substr(0, dollar), false});
        std::size_t close = rest.find('$', dollar + 1);
        if (close == std::string_view::npos) {
            std::string_view name = rest.substr(dollar + 1);
            throw CodegenError(
                std::string(template_name), line.number, std::string(name),
                "unterminated variable '$" + std::string(name) + "' (no closing '$' on the line)");
        }
        std::string_view name = rest.substr(dollar + 1, close - dollar - 1);
        if (name.empty()) {
            segments.push_back({"$", false});
        } else {
            if (!is_name_start(name.front()) ||
                !std::all_of(name.begin(), name.end(), is_name_char)) {
                throw CodegenError(std::string(template_name), line.number, std::string(name),
                                   "malformed variable name " + quoted(name));
            }
            segments.push_back({name, true});
        }
        rest = rest.substr(close + 1);
    }
    return segments;
}

}  // namespace

CodegenError::CodegenError(std::string template_name, std::size_t line, std::string variable,
                           const std::string& problem)
    : std::runtime_error(describe(template_name, line, problem)),
      template_name_(std::move(template_name)),
      line_(line),
      variable_(std::move(variable)) {}

std::string Printer::take() {
    std::string result = std::move(out_);
    out_.clear();
    indent_.clear();
    at_line_start_ = true;
    line_ = 1;
    line_begin_ = 0;
    return result;
}

const Printer::Var* Printer::find(std::string_view name) const {
    for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
        for (const Var& var : **scope) {
            if (var.name == name) return &var;
        }
    }
    return nullptr;
}

void Printer::write(std::string_view text) {
    for (char c : text) {
        if (c == '\n') {
            out_ += '\n';
            at_line_start_ = true;
            ++line_;
            line_begin_ = out_.size();
            continue;
        }
        if (at_line_start_) {
            out_ += indent_;
            at_line_start_ = false;
        }
        out_ += c;
    }
}

void Printer::emit(std::string_view template_name, std::string_view text,
                   const std::vector<Var>& vars) {
    for (std::size_t i = 0; i < vars.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
            if (vars[i].name == vars[j].name) {
                throw CodegenError(std::string(template_name), 0, vars[i].name,
                                   "variable " + quoted(vars[i].name) + " given twice");
            }
        }
    }
    // Parse every line before printing anything, so a bad template leaves no partial output.
    std::vector<TemplateLine> lines = dedent(text);
    std::vector<std::vector<Segment>> parsed;
    parsed.reserve(lines.size());
    scopes_.push_back(&vars);
    struct PopScope {
        std::vector<const std::vector<Var>*>& scopes;
        ~PopScope() { scopes.pop_back(); }
    } pop{scopes_};
    for (const TemplateLine& line : lines) {
        parsed.push_back(split_line(template_name, line));
        for (const Segment& segment : parsed.back()) {
            if (segment.is_var && find(segment.text) == nullptr) {
                throw CodegenError(std::string(template_name), line.number,
                                   std::string(segment.text),
                                   "unknown variable " + quoted(segment.text));
            }
        }
    }

    // Restores the indentation even when a callback throws.
    struct RestoreIndent {
        std::string& indent;
        std::string saved;
        ~RestoreIndent() { indent = saved; }
    } restore{indent_, indent_};
    const std::string& saved_indent = restore.saved;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::vector<Segment>& segments = parsed[i];
        std::string_view line = lines[i].text;
        std::size_t body = line.find_first_not_of(" \t");
        if (body == std::string_view::npos) {
            write("\n");
            continue;
        }
        indent_ = saved_indent;
        indent_ += line.substr(0, body);

        // A line that is one variable alone, blanks around it aside.
        const Segment* only_var = nullptr;
        bool alone = true;
        for (const Segment& segment : segments) {
            if (segment.is_var) {
                alone = alone && only_var == nullptr;
                only_var = &segment;
            } else if (!is_blank(segment.text)) {
                alone = false;
            }
        }
        if (alone && only_var != nullptr) {
            const Var& var = *find(only_var->text);
            if (std::holds_alternative<Callback>(var.value)) {
                run_callback(var, template_name, lines[i].number);
                if (!at_line_start_) write("\n");
                continue;
            }
            if (std::get<std::string>(var.value).empty()) continue;
        }

        for (const Segment& segment : segments) {
            if (!segment.is_var) {
                // The leading blanks are the line's indentation, already in indent_.
                std::string_view literal = segment.text;
                if (&segment == &segments.front()) literal.remove_prefix(body);
                write(literal);
                continue;
            }
            const Var& var = *find(segment.text);
            if (const std::string* value = std::get_if<std::string>(&var.value)) {
                write(*value);
                continue;
            }
            std::size_t before = out_.size();
            run_callback(var, template_name, lines[i].number);
            if (out_.size() > before && at_line_start_) {  // drop its final newline
                out_.pop_back();
                --line_;
                at_line_start_ = false;
                const std::size_t last = out_.rfind('\n');
                line_begin_ = last == std::string::npos ? 0 : last + 1;
            }
        }
        write("\n");
    }
}

void Printer::run_callback(const Var& var, std::string_view template_name, std::size_t line) {
    // A callback whose output uses its own variable would recurse until the stack runs out.
    if (std::find(running_.begin(), running_.end(), &var) != running_.end()) {
        throw CodegenError(std::string(template_name), line, var.name,
                           "callback variable " + quoted(var.name) + " used inside itself");
    }
    running_.push_back(&var);
    struct PopRunning {
        std::vector<const Var*>& running;
        ~PopRunning() { running.pop_back(); }
    } pop{running_};
    std::get<Callback>(var.value)();
}

std::vector<std::string> template_variables(std::string_view template_name, std::string_view text) {
    std::vector<std::string> names;
    for (const TemplateLine& line : dedent(text)) {
        for (const Segment& segment : split_line(template_name, line)) {
            if (segment.is_var) names.emplace_back(segment.text);
        }
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
}

}  // namespace rop::codegen
