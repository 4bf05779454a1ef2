// std.assemble.markdown and std.assemble.content_list: a document's PageContents as Markdown and
// as MinerU's content list, with running headers, footers and page numbers found across pages.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "rop/stdlib/assemble.h"

namespace rop::stdlib::assemble {
namespace {

bool has_grid(const Block& block) {
    return block.rows > 0 && block.cols > 0 &&
           block.cells.size() == static_cast<std::size_t>(block.rows) * block.cols;
}

std::string cell_text(const Block& block, int row, int col) {
    return block.cells[static_cast<std::size_t>(row) * block.cols + col].text;
}

std::string markdown_cell(std::string text) {
    std::string out;
    for (char c : text) {
        if (c == '|')
            out += "\\|";
        else if (c == '\n')
            out += ' ';
        else
            out += c;
    }
    return out;
}

std::string markdown_table(const Block& block) {
    std::string out;
    for (int r = 0; r < block.rows; ++r) {
        out += "|";
        for (int c = 0; c < block.cols; ++c)
            out += " " + markdown_cell(cell_text(block, r, c)) + " |";
        out += "\n";
        if (r == 0) {
            out += "|";
            for (int c = 0; c < block.cols; ++c) out += " --- |";
            out += "\n";
        }
    }
    if (!out.empty()) out.pop_back();
    return out;
}

std::string html_escape(const std::string& text) {
    std::string out;
    for (char c : text) {
        switch (c) {
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '&': out += "&amp;"; break;
            default: out += c;
        }
    }
    return out;
}

std::string html_table(const Block& block) {
    std::string out = "<table>";
    for (int r = 0; r < block.rows; ++r) {
        out += "<tr>";
        for (int c = 0; c < block.cols; ++c) {
            out += "<td>" + html_escape(cell_text(block, r, c)) + "</td>";
        }
        out += "</tr>";
    }
    return out + "</table>";
}

// MinerU's bbox: each coordinate scaled to 0..1000 of the page's width or height and truncated
// to an integer (int(x * 1000 / width)), here also clamped to 0..1000.
int per_mille(double value, double extent) {
    if (!(extent > 0)) return 0;
    return static_cast<int>(std::clamp(value * 1000.0 / extent, 0.0, 1000.0));
}

// A code block fenced for Markdown: ``` (or a longer run of backticks than the code holds),
// an optional info string, the code verbatim.
std::string fenced(const std::string& code, const std::string& info = "") {
    std::size_t longest = 0;
    std::size_t run = 0;
    for (char c : code) {
        run = c == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    const std::string fence(std::max<std::size_t>(3, longest + 1), '`');
    return fence + info + "\n" + code + "\n" + fence;
}

// A list block's items: its text's lines.
nlohmann::ordered_json lines_of(const std::string& text) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        out.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

double round1(double value) { return std::round(value * 10.0) / 10.0; }

// Running text: header, footer and page-number detection across a document's pages.
constexpr double kBand = 0.08;           // top and bottom 8% of the page height
constexpr double kSamePlace = 0.02;      // centers within 2% of the page height match
constexpr std::size_t kMaxRunning = 80;  // longer blocks are body text, not running text

bool is_running(const Block& block) {
    return block.type == "header" || block.type == "footer" || block.type == "page_number";
}

// The text with digits as '#', letters lowercased and runs of spaces as one: "Page 3 of 9" and
// "Page 4 of 9" are the same running text.
std::string shape_of(const std::string& text) {
    std::string out;
    for (char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (std::isdigit(u)) {
            if (out.empty() || out.back() != '#') out += '#';
        } else if (std::isspace(u)) {
            if (!out.empty() && out.back() != ' ') out += ' ';
        } else {
            out += static_cast<char>(std::tolower(u));
        }
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

// "7", "- 7 -", "page 7", "7 of 9", "7/9", "iv": a page number's shape (digits already '#').
bool page_number_shape(const std::string& shape) {
    static const std::vector<std::string> numbers = {
        "#", "- # -", "page #", "# of #", "#/#", "# / #", "page # of #", "[#]", "(#)"};
    if (std::find(numbers.begin(), numbers.end(), shape) != numbers.end()) return true;
    // Roman numerals up to 89 (front matter): "civil" is not one.
    static const std::regex roman("(xl|l?x{0,3})(ix|iv|v?i{0,3})");
    return !shape.empty() && shape.size() <= 8 && std::regex_match(shape, roman);
}

struct Candidate {
    std::size_t page;
    std::size_t block;
    bool top;
    double center;  // y of the block's center / page height
    std::string shape;
};

// Types as "header", "footer" or "page_number" the text blocks in the top or bottom band of a
// page whose shape (shape_of) recurs at the same place (centers within kSamePlace) on another
// page of the document: page numbers by their shape, the rest by the band.
void mark_running(std::vector<PageContent>& pages) {
    std::vector<Candidate> candidates;
    for (std::size_t p = 0; p < pages.size(); ++p) {
        const PageContent& page = pages[p];
        if (!(page.height > 0)) continue;
        for (std::size_t b = 0; b < page.blocks.size(); ++b) {
            const Block& block = page.blocks[b];
            if (block.type != "text" || block.text.empty() || block.text.size() > kMaxRunning) {
                continue;
            }
            const double top = block.bbox.y0 / page.height;
            const double bottom = block.bbox.y1 / page.height;
            const bool in_top = bottom <= kBand;
            const bool in_bottom = top >= 1.0 - kBand;
            if (!in_top && !in_bottom) continue;
            // Page numbers of any shape ("iv", "17", "Page 3 of 9") match one another.
            std::string shape = shape_of(block.text);
            if (page_number_shape(shape)) shape = "(page number)";
            candidates.push_back(Candidate{p, b, in_top, (top + bottom) / 2, shape});
        }
    }
    // Same band and shape, then by center: a candidate's matches are its neighbours within
    // kSamePlace (n log n, for documents of many thousand pages).
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
        if (a.top != b.top) return a.top < b.top;
        if (a.shape != b.shape) return a.shape < b.shape;
        return a.center < b.center;
    });
    auto same = [&](const Candidate& a, const Candidate& b) {
        return a.top == b.top && a.shape == b.shape && std::abs(a.center - b.center) <= kSamePlace;
    };
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const Candidate& c = candidates[i];
        bool repeated = false;
        for (std::size_t k = i; k-- > 0 && !repeated && same(candidates[k], c);) {
            repeated = candidates[k].page != c.page;
        }
        for (std::size_t k = i + 1; k < candidates.size() && !repeated && same(candidates[k], c);
             ++k) {
            repeated = candidates[k].page != c.page;
        }
        if (!repeated) continue;
        Block& block = pages[c.page].blocks[c.block];
        block.type = c.shape == "(page number)" ? "page_number" : c.top ? "header" : "footer";
        block.text_level = 0;
    }
}

// A table-of-contents line: dot leaders ("Introduction . . . . 1", "Index......7").
// Five dots in a row, each but the first after at most one space.
bool toc_line(const std::string& text) {
    int dots = 0;
    bool spaced = false;  // one space since the last dot
    for (char c : text) {
        if (c == '.') {
            if (++dots >= 5) return true;
            spaced = false;
        } else if (c == ' ' && dots > 0 && !spaced) {
            spaced = true;
        } else {
            dots = 0;
            spaced = false;
        }
    }
    return false;
}

// A heading's text as the outline would have it: lowercase letters and digits, single spaces, no
// leading section number ("2.1 Simple parsing" and "Simple Parsing" are "simple parsing").
std::string title_key(const std::string& text) {
    std::string out;
    for (char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (std::isalnum(u) || u >= 0x80) {
            out += static_cast<char>(std::tolower(u));
        } else if (!out.empty() && out.back() != ' ') {
            out += ' ';
        }
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    // Leading numbering: numbers, "chapter", "appendix", "part", "section", a single letter
    // ("Appendix A Copying" and "A.1 GNU ..." are "copying" and "gnu ..."), while words follow.
    static const std::set<std::string> numbering = {"chapter", "appendix", "part", "section"};
    std::size_t start = 0;
    while (start < out.size()) {
        const std::size_t end = out.find(' ', start);
        if (end == std::string::npos) break;  // the last word stays
        const std::string token = out.substr(start, end - start);
        const bool number = token.find_first_not_of("0123456789") == std::string::npos;
        if (!number && token.size() != 1 && numbering.count(token) == 0) break;
        start = end + 1;
    }
    return out.substr(start);
}

// Heading levels for the whole document. Table-of-contents lines are never headings. With an
// outline, a text block whose title_key is an outline entry's gets that entry's depth; other
// headings become body text when the outline names at least half the document's headings, else
// they go one level below the outline's deepest. Without one, when every heading has a font size
// from the text layer, the sizes rank the levels (sizes within 10% share one; largest = 1).
// Levels stop at 6 (Markdown's deepest).
void heading_levels(std::vector<PageContent>& pages) {
    std::vector<Block*> headings;
    Outline outline;
    for (PageContent& page : pages) {
        if (!outline && page.outline && !page.outline->empty()) outline = page.outline;
        for (Block& block : page.blocks) {
            if (block.type != "text") continue;
            if (block.text_level > 0 && toc_line(block.text)) block.text_level = 0;
            if (block.text_level > 0) headings.push_back(&block);
        }
    }
    if (outline) {
        std::map<std::string, int> levels;
        int deepest = 1;
        for (const OutlineEntry& entry : *outline) {
            levels.emplace(title_key(entry.title), entry.level);
            deepest = std::max(deepest, entry.level);
        }
        levels.erase("");
        const auto named = std::count_if(headings.begin(), headings.end(), [&](const Block* b) {
            return levels.count(title_key(b->text)) > 0;
        });
        const bool trusted = 2 * static_cast<std::size_t>(named) >= headings.size();
        for (PageContent& page : pages) {
            for (Block& block : page.blocks) {
                if (block.type != "text" || toc_line(block.text)) continue;
                const auto it = levels.find(title_key(block.text));
                if (it != levels.end()) {
                    block.text_level = std::min(it->second, 6);
                } else if (block.text_level > 0) {
                    block.text_level = trusted ? 0 : std::min(deepest + 1, 6);
                }
            }
        }
        return;
    }
    if (headings.empty() || std::any_of(headings.begin(), headings.end(),
                                        [](const Block* b) { return !(b->font_size > 0); })) {
        return;
    }
    std::vector<double> sizes;
    for (const Block* block : headings) sizes.push_back(block->font_size);
    std::sort(sizes.rbegin(), sizes.rend());
    std::vector<double> tops;  // the largest size of each rank
    for (double size : sizes) {
        if (tops.empty() || size < 0.9 * tops.back()) tops.push_back(size);
    }
    for (Block* block : headings) {
        int rank = 0;
        while (rank + 1 < static_cast<int>(tops.size()) && block->font_size < 0.9 * tops[rank]) {
            ++rank;
        }
        block->text_level = std::min(rank + 1, 6);
    }
}

// What both reduces see: running text typed, heading levels set for the whole document.
std::vector<PageContent> prepared(std::span<const PageContent> pages) {
    std::vector<PageContent> out(pages.begin(), pages.end());
    mark_running(out);
    heading_levels(out);
    return out;
}

}  // namespace

Markdown markdown(std::span<const PageContent> input) {
    const std::vector<PageContent> pages = prepared(input);
    std::string out;
    auto add = [&](const std::string& piece) {
        if (piece.empty()) return;
        if (!out.empty()) out += "\n\n";
        out += piece;
    };
    for (const PageContent& page : pages) {
        // A model's answer (std.model.page_content) is Markdown already: its `# Title` is a
        // heading, not body text to escape.
        const bool answered = page.text_source == "model";
        for (const Block& block : page.blocks) {
            if (block.type == "image") continue;  // no image files to point at
            if (is_running(block)) continue;      // headers, footers, page numbers
            if (block.type == "table" && has_grid(block)) {
                add(markdown_table(block));
            } else if (block.type == "equation") {
                add("$$\n" + block.text + "\n$$");
            } else if (block.type == "code") {
                add(fenced(block.text));
            } else if (block.type == "list") {
                add(block.text);
            } else if (block.text_level > 0) {
                add(std::string(static_cast<std::size_t>(block.text_level), '#') + " " +
                    block.text);
            } else if (!answered && !block.text.empty() && block.text.front() == '#') {
                add("\\" + block.text);  // body text, not a heading ("# a shell comment")
            } else {
                add(block.text);
            }
        }
    }
    if (!out.empty()) out += '\n';
    return Markdown{out};
}

JsonText content_list(std::span<const PageContent> input) {
    const std::vector<PageContent> pages = prepared(input);
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const PageContent& page : pages) {
        for (const Block& block : page.blocks) {
            nlohmann::ordered_json item;
            item["type"] = block.type;
            if (block.type == "table") {
                item["img_path"] = "";
                item["table_caption"] = nlohmann::ordered_json::array();
                item["table_footnote"] = nlohmann::ordered_json::array();
                if (has_grid(block)) item["table_body"] = html_table(block);
            } else if (block.type == "image") {
                item["img_path"] = "";
                item["image_caption"] = nlohmann::ordered_json::array();
                item["image_footnote"] = nlohmann::ordered_json::array();
            } else if (block.type == "equation") {
                item["img_path"] = "";
            } else if (block.type == "list") {
                item["sub_type"] = "text";
                item["list_items"] = lines_of(block.text);
            } else if (block.type == "code") {
                item["sub_type"] = "code";
                item["code_caption"] = nlohmann::ordered_json::array();
                item["code_body"] = fenced(block.text, "txt");
            }
            if (block.type != "image") item["text"] = block.text;
            if (block.text_level > 0) item["text_level"] = block.text_level;
            item["bbox"] = {
                per_mille(block.bbox.x0, page.width), per_mille(block.bbox.y0, page.height),
                per_mille(block.bbox.x1, page.width), per_mille(block.bbox.y1, page.height)};
            item["page_idx"] = page.page_index;
            // rop's extras, which MinerU's readers ignore.
            item["text_source"] = page.text_source;
            if (block.type != "image") item["confidence"] = round1(block.confidence);
            list.push_back(std::move(item));
        }
    }
    return JsonText{list.dump(2, ' ', false, nlohmann::json::error_handler_t::replace)};
}

Markdown markdown_from_ocr(std::span<const OcrResult> pages) {
    std::vector<PageContent> contents;
    for (const OcrResult& page : pages) contents.push_back(from_ocr(page));
    return markdown(contents);
}

JsonText content_list_from_ocr(std::span<const OcrResult> pages) {
    std::vector<PageContent> contents;
    for (const OcrResult& page : pages) contents.push_back(from_ocr(page));
    return content_list(contents);
}

}  // namespace rop::stdlib::assemble
