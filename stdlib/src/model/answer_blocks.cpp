// A model's Markdown answer as typed blocks (answer_blocks.h): one pass over its lines, each block
// kind recognized by how its first line starts, as CommonMark's block structure has it (without
// indented code, which a model's answer does not use and which would swallow nested list items).
#include "answer_blocks.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>

namespace rop::stdlib::model::detail {
namespace {

bool blank(std::string_view line) {
    return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

std::size_t indent_of(std::string_view line) {
    const std::size_t at = line.find_first_not_of(' ');
    return at == std::string_view::npos ? line.size() : at;
}

std::string trim(std::string_view text) {
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return "";
    const std::size_t last = text.find_last_not_of(" \t\r\n");
    return std::string(text.substr(first, last - first + 1));
}

std::string lower(std::string_view text) {
    std::string out(text);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool starts_with(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

// "```python" or "~~~": the fence (its character run) when the line opens a code block.
std::string_view fence_of(std::string_view line) {
    if (indent_of(line) > 3) return {};
    const std::string_view rest = line.substr(indent_of(line));
    if (rest.empty() || (rest[0] != '`' && rest[0] != '~')) return {};
    const std::size_t run = rest.find_first_not_of(rest[0]);
    const std::size_t length = run == std::string_view::npos ? rest.size() : run;
    if (length < 3) return {};
    // A backtick fence's info string holds no backtick.
    if (rest[0] == '`' && rest.find('`', length) != std::string_view::npos) return {};
    return rest.substr(0, length);
}

bool closes(std::string_view line, std::string_view fence) {
    if (indent_of(line) > 3) return false;
    const std::string rest = trim(line);
    return rest.size() >= fence.size() && rest.find_first_not_of(fence[0]) == std::string::npos;
}

// "## Title ##" -> level 2, "Title"; 0 when the line is no ATX heading.
int atx_level(std::string_view line, std::string& text) {
    if (indent_of(line) > 3) return 0;
    const std::string_view rest = line.substr(indent_of(line));
    const std::size_t hashes = rest.find_first_not_of('#');
    const std::size_t level = hashes == std::string_view::npos ? rest.size() : hashes;
    if (level < 1 || level > 6) return 0;
    if (level < rest.size() && rest[level] != ' ' && rest[level] != '\t') return 0;
    std::string body = trim(rest.substr(level));
    // A closing run of '#' after a space (or the whole body) goes.
    const std::size_t end = body.find_last_not_of('#');
    if (end == std::string::npos) {
        body.clear();
    } else if (end + 1 < body.size() && (body[end] == ' ' || body[end] == '\t')) {
        body = trim(body.substr(0, end));
    }
    text = body;
    return static_cast<int>(level);
}

// "---", "***", "___" (spaces between allowed): a thematic break; `only` the character it uses.
bool rule_of(std::string_view line, char only = 0) {
    if (indent_of(line) > 3) return false;
    char mark = 0;
    int count = 0;
    for (char c : line) {
        if (c == ' ' || c == '\t' || c == '\r') continue;
        if (c != '-' && c != '*' && c != '_') return false;
        if (mark != 0 && c != mark) return false;
        mark = c;
        ++count;
    }
    return count >= 3 && (only == 0 || mark == only);
}

// A setext underline: '=' (level 1) or '-' (level 2) alone on the line; 0 otherwise.
int setext_level(std::string_view line) {
    if (indent_of(line) > 3) return 0;
    const std::string rest = trim(line);
    if (rest.empty()) return 0;
    if (rest.find_first_not_of('=') == std::string::npos) return 1;
    if (rest.find_first_not_of('-') == std::string::npos) return 2;
    return 0;
}

// A list item's start: its marker as written ("-", "*", "+", "12.", "3)") and its text.
struct Item {
    bool found = false;
    std::string marker;
    std::string text;
    std::size_t indent = 0;
};

Item item_of(std::string_view line) {
    Item item;
    item.indent = indent_of(line);
    const std::string_view rest = line.substr(item.indent);
    std::size_t length = 0;
    if (!rest.empty() && (rest[0] == '-' || rest[0] == '*' || rest[0] == '+')) {
        length = 1;
    } else {
        while (length < rest.size() && length < 9 &&
               std::isdigit(static_cast<unsigned char>(rest[length]))) {
            ++length;
        }
        if (length == 0 || length >= rest.size() || (rest[length] != '.' && rest[length] != ')')) {
            return item;
        }
        ++length;
    }
    if (length < rest.size() && rest[length] != ' ' && rest[length] != '\t') return item;
    if (rule_of(line)) return item;  // "- - -" and "* * *" are breaks
    item.found = true;
    item.marker = std::string(rest.substr(0, length));
    item.text = trim(rest.substr(length));
    return item;
}

bool image_line(std::string_view line) {
    const std::string text = trim(line);
    if (!starts_with(text, "![") || text.back() != ')') return false;
    const std::size_t close = text.find("](");
    return close != std::string::npos && text.find(')', close) == text.size() - 1;
}

std::string unescape_entities(std::string text) {
    static const std::pair<std::string_view, std::string_view> kEntities[] = {
        {"&nbsp;", " "},  {"&lt;", "<"},  {"&gt;", ">"},
        {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}};
    for (const auto& [entity, plain] : kEntities) {
        for (std::size_t at = text.find(entity); at != std::string::npos;
             at = text.find(entity, at + plain.size())) {
            text.replace(at, entity.size(), plain);
        }
    }
    return text;
}

// A cell's text: tags dropped, entities decoded, white space as single spaces.
std::string cell_text(std::string_view html) {
    std::string text;
    bool tag = false;
    for (char c : html) {
        if (c == '<') {
            tag = true;
            text += ' ';
        } else if (c == '>') {
            tag = false;
        } else if (!tag) {
            text += c;
        }
    }
    text = unescape_entities(text);
    std::string out;
    for (char c : text) {
        const bool space = std::isspace(static_cast<unsigned char>(c)) != 0;
        if (space && (out.empty() || out.back() == ' ')) continue;
        out += space ? ' ' : c;
    }
    if (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

// Rows of cells into the block's grid: short rows padded with empty cells.
void set_grid(Block& block, const std::vector<std::vector<std::string>>& rows) {
    std::size_t cols = 0;
    for (const auto& row : rows) cols = std::max(cols, row.size());
    block.type = "table";
    block.rows = static_cast<int>(rows.size());
    block.cols = static_cast<int>(cols);
    for (std::size_t r = 0; r < rows.size(); ++r) {
        for (std::size_t c = 0; c < cols; ++c) {
            block.cells.push_back(TableCell{static_cast<int>(r), static_cast<int>(c), block.bbox,
                                            c < rows[r].size() ? rows[r][c] : ""});
        }
    }
    for (std::size_t r = 0; r < rows.size(); ++r) {
        if (r > 0) block.text += '\n';
        for (std::size_t c = 0; c < rows[r].size(); ++c) {
            if (c > 0) block.text += " | ";
            block.text += rows[r][c];
        }
    }
}

// Where the tag `<name` (or `</name`, name given with its '/') starts at or after `from`: the name
// followed by '>', '/' or white space ("<th" is not "<thead").
std::size_t find_tag(const std::string& low, std::string_view name, std::size_t from) {
    for (std::size_t at = low.find(name, from); at != std::string::npos;
         at = low.find(name, at + 1)) {
        const std::size_t after = at + name.size();
        if (after < low.size() && (low[after] == '>' || low[after] == '/' ||
                                   std::isspace(static_cast<unsigned char>(low[after])))) {
            return at;
        }
    }
    return std::string::npos;
}

// <table>...</table>: its <tr> rows of <td>/<th> cells; colspan="n" adds n - 1 empty cells.
std::vector<std::vector<std::string>> html_rows(const std::string& html) {
    const std::string low = lower(html);
    std::vector<std::vector<std::string>> rows;
    for (std::size_t tr = find_tag(low, "<tr", 0); tr != std::string::npos;
         tr = find_tag(low, "<tr", tr + 3)) {
        const std::size_t end = std::min(find_tag(low, "</tr", tr), find_tag(low, "<tr", tr + 3));
        std::vector<std::string> row;
        for (std::size_t at = tr + 3; at < end && at < low.size();) {
            const std::size_t td = std::min(find_tag(low, "<td", at), find_tag(low, "<th", at));
            if (td == std::string::npos || td >= end) break;
            const std::size_t open_end = low.find('>', td);
            if (open_end == std::string::npos) break;
            const std::size_t close =
                std::min({find_tag(low, "</td", open_end), find_tag(low, "</th", open_end),
                          find_tag(low, "<td", open_end), find_tag(low, "<th", open_end), end,
                          find_tag(low, "</table", open_end)});
            row.push_back(
                cell_text(std::string_view(html).substr(open_end + 1, close - open_end - 1)));
            const std::string open = low.substr(td, open_end - td);
            if (const std::size_t span = open.find("colspan"); span != std::string::npos) {
                const std::size_t digit = open.find_first_of("0123456789", span);
                const int n = digit == std::string::npos ? 1 : std::atoi(open.c_str() + digit);
                for (int k = 1; k < std::min(n, 1000); ++k) row.emplace_back();
            }
            at = close;
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

// "| a | b |" -> {"a", "b"} (a backslash-escaped '|' stays in its cell).
std::vector<std::string> pipe_cells(std::string_view line) {
    std::string text = trim(line);
    if (!text.empty() && text.front() == '|') text.erase(0, 1);
    if (!text.empty() && text.back() == '|' && (text.size() < 2 || text[text.size() - 2] != '\\')) {
        text.pop_back();
    }
    std::vector<std::string> cells;
    std::string cell;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '|') {
            cell += '|';
            ++i;
        } else if (text[i] == '|') {
            cells.push_back(trim(cell));
            cell.clear();
        } else {
            cell += text[i];
        }
    }
    cells.push_back(trim(cell));
    return cells;
}

bool delimiter_row(std::string_view line) {
    if (line.find('-') == std::string_view::npos) return false;
    for (const std::string& cell : pipe_cells(line)) {
        if (cell.empty() || cell.find_first_not_of(":-") != std::string::npos) return false;
        if (cell.find('-') == std::string::npos) return false;
    }
    return true;
}

class Parser {
  public:
    Parser(std::vector<std::string_view> lines, BBox page)
        : lines_(std::move(lines)), page_(page) {}

    std::vector<Block> run() {
        while (at_ < lines_.size()) {
            const std::string_view line = lines_[at_];
            std::string heading;
            if (blank(line) || rule_of(line)) {
                ++at_;
            } else if (starts_with(trim(line), "<!--")) {
                skip_comment();
            } else if (const std::string_view fence = fence_of(line); !fence.empty()) {
                code(fence);
            } else if (const int level = atx_level(line, heading); level > 0) {
                if (!heading.empty()) add("text", heading, level);
                ++at_;
            } else if (starts_with(trim(line), "$$") || starts_with(trim(line), "\\[")) {
                equation();
            } else if (starts_with(lower(trim(line)), "<table")) {
                html_table();
            } else if (at_ + 1 < lines_.size() && line.find('|') != std::string_view::npos &&
                       delimiter_row(lines_[at_ + 1])) {
                pipe_table();
            } else if (image_line(line)) {
                add("image", "", 0);
                ++at_;
            } else if (item_of(line).found) {
                list();
            } else {
                paragraph();
            }
        }
        return std::move(blocks_);
    }

  private:
    void add(const char* type, std::string text, int level) {
        Block block;
        block.type = type;
        block.text = std::move(text);
        block.text_level = level;
        block.bbox = page_;
        blocks_.push_back(std::move(block));
    }

    // Whether a line starts a block other than a paragraph's continuation.
    bool interrupts(std::string_view line) {
        std::string ignored;
        return blank(line) || rule_of(line) || !fence_of(line).empty() ||
               atx_level(line, ignored) > 0 || starts_with(trim(line), "$$") ||
               starts_with(trim(line), "\\[") || starts_with(lower(trim(line)), "<table") ||
               image_line(line) || item_of(line).found;
    }

    void skip_comment() {
        while (at_ < lines_.size() && lines_[at_].find("-->") == std::string_view::npos) ++at_;
        ++at_;
    }

    void code(std::string_view fence) {
        const std::size_t indent = indent_of(lines_[at_]);
        std::string text;
        bool first = true;
        for (++at_; at_ < lines_.size() && !closes(lines_[at_], fence); ++at_) {
            std::string_view line = lines_[at_];
            line.remove_prefix(std::min(indent, indent_of(line)));  // the fence's own indent
            if (!first) text += '\n';
            text += line;
            first = false;
        }
        ++at_;  // the closing fence (none: the answer's end)
        add("code", std::move(text), 0);
    }

    void equation() {
        const std::string first = trim(lines_[at_]);
        const bool dollars = starts_with(first, "$$");
        const std::string_view close = dollars ? "$$" : "\\]";
        std::string body = first.substr(2);
        // "$$ x $$" or "\[ x \]" on one line
        if (body.size() >= 2 && body.substr(body.size() - 2) == close) {
            ++at_;
            add("equation", trim(body.substr(0, body.size() - 2)), 0);
            return;
        }
        for (++at_; at_ < lines_.size(); ++at_) {
            const std::string line = trim(lines_[at_]);
            if (line.size() >= close.size() && line.substr(line.size() - close.size()) == close) {
                body += '\n' + line.substr(0, line.size() - close.size());
                ++at_;
                break;
            }
            body += '\n' + std::string(lines_[at_]);
        }
        add("equation", trim(body), 0);
    }

    void html_table() {
        std::string html;
        for (; at_ < lines_.size(); ++at_) {
            html += std::string(lines_[at_]) + '\n';
            if (lower(lines_[at_]).find("</table>") != std::string::npos) {
                ++at_;
                break;
            }
        }
        add("table", "", 0);
        set_grid(blocks_.back(), html_rows(html));
    }

    void pipe_table() {
        std::vector<std::vector<std::string>> rows{pipe_cells(lines_[at_])};
        for (at_ += 2; at_ < lines_.size() && !blank(lines_[at_]) &&
                       lines_[at_].find('|') != std::string_view::npos;
             ++at_) {
            rows.push_back(pipe_cells(lines_[at_]));
        }
        add("table", "", 0);
        set_grid(blocks_.back(), rows);
    }

    // Items and their continuation lines, across blank lines while another item follows.
    void list() {
        std::vector<Item> items;
        while (at_ < lines_.size()) {
            const std::string_view line = lines_[at_];
            Item item = item_of(line);
            if (item.found) {
                items.push_back(std::move(item));
                ++at_;
                continue;
            }
            if (blank(line)) {
                std::size_t next = at_;
                while (next < lines_.size() && blank(lines_[next])) ++next;
                // a blank line ends the list unless an item, or an indented line, follows
                if (next == lines_.size() ||
                    (!item_of(lines_[next]).found && indent_of(lines_[next]) < 2)) {
                    break;
                }
                at_ = next;
                continue;
            }
            if (items.empty() || (interrupts(line) && indent_of(line) < 2)) break;
            std::string& text = items.back().text;
            const std::string more = trim(line);
            if (!more.empty()) text += text.empty() ? more : " " + more;
            ++at_;
        }
        std::string text;
        for (const Item& item : items) {
            if (!text.empty()) text += '\n';
            text += item.marker + " " + item.text;
        }
        add("list", std::move(text), 0);
    }

    void paragraph() {
        std::string text;
        for (; at_ < lines_.size(); ++at_) {
            const std::string_view line = lines_[at_];
            if (!text.empty()) {
                if (const int level = setext_level(line); level > 0) {
                    ++at_;
                    add("text", std::move(text), level);
                    return;
                }
                if (interrupts(line)) break;
            }
            std::string piece = trim(line);
            while (!piece.empty() && piece.front() == '>') piece = trim(piece.substr(1));
            if (piece.empty()) continue;
            if (!text.empty()) text += ' ';
            text += piece;
        }
        if (!text.empty()) add("text", std::move(text), 0);
    }

    std::vector<std::string_view> lines_;
    BBox page_;
    std::size_t at_ = 0;
    std::vector<Block> blocks_;
};

}  // namespace

std::vector<Block> answer_blocks(std::string_view markdown, const BBox& page) {
    std::vector<std::string_view> lines;
    for (std::size_t start = 0; start <= markdown.size();) {
        std::size_t end = markdown.find('\n', start);
        if (end == std::string_view::npos) end = markdown.size();
        std::string_view line = markdown.substr(start, end - start);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        lines.push_back(line);
        start = end + 1;
    }
    // An answer wrapped whole in a ```markdown fence: its inside.
    std::size_t first = 0;
    std::size_t last = lines.size();
    while (first < last && blank(lines[first])) ++first;
    while (last > first && blank(lines[last - 1])) --last;
    if (last - first >= 2) {
        const std::string_view fence = fence_of(lines[first]);
        const std::string info =
            lower(trim(lines[first].substr(indent_of(lines[first]) + fence.size())));
        if (!fence.empty() && (info == "markdown" || info == "md") &&
            closes(lines[last - 1], fence)) {
            lines = std::vector<std::string_view>(
                lines.begin() + static_cast<std::ptrdiff_t>(first) + 1,
                lines.begin() + static_cast<std::ptrdiff_t>(last) - 1);
        }
    }
    return Parser(std::move(lines), page).run();
}

}  // namespace rop::stdlib::model::detail
