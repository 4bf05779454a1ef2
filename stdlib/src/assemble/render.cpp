// std.assemble.markdown: a document's PageContents as one Markdown text, pages in order, without
// images and running text (document.h types that across the pages).
#include <algorithm>
#include <string>
#include <vector>

#include "document.h"
#include "rop/stdlib/assemble.h"
#include "structure.h"

namespace rop::stdlib::assemble {
namespace {

using detail::has_grid;

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

// A list block's items (one a line, each its marker as read) as Markdown list lines.
std::string markdown_list(const std::string& items) {
    std::string out;
    std::size_t start = 0;
    while (start <= items.size()) {
        std::size_t end = items.find('\n', start);
        if (end == std::string::npos) end = items.size();
        if (!out.empty()) out += '\n';
        out += detail::markdown_item(std::string_view(items).substr(start, end - start));
        start = end + 1;
    }
    return out;
}

}  // namespace

Markdown markdown(std::span<const PageContent> input) {
    const std::vector<PageContent> pages = detail::prepared(input);
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
            if (block.type == "image") continue;      // no image files to point at
            if (detail::is_running(block)) continue;  // headers, footers, page numbers
            if (block.type == "table" && has_grid(block)) {
                add(markdown_table(block));
            } else if (block.type == "equation") {
                add("$$\n" + block.text + "\n$$");
            } else if (block.type == "code") {
                add(fenced(block.text));
            } else if (block.type == "list") {
                add(markdown_list(block.text));
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

Markdown markdown_from_ocr(std::span<const OcrResult> pages) {
    std::vector<PageContent> contents;
    for (const OcrResult& page : pages) contents.push_back(from_ocr(page));
    return markdown(contents);
}

}  // namespace rop::stdlib::assemble
