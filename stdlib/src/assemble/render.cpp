// std.assemble.markdown and std.assemble.content_list: a document's PageContents as Markdown and
// as a MinerU-style content list.
#include <cmath>
#include <nlohmann/json.hpp>
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

double round2(double value) { return std::round(value * 100.0) / 100.0; }

}  // namespace

Markdown markdown(std::span<const PageContent> pages) {
    std::string out;
    auto add = [&](const std::string& piece) {
        if (piece.empty()) return;
        if (!out.empty()) out += "\n\n";
        out += piece;
    };
    for (const PageContent& page : pages) {
        for (const Block& block : page.blocks) {
            if (block.type == "image") continue;  // no image files to point at
            if (block.type == "table" && has_grid(block)) {
                add(markdown_table(block));
            } else if (block.type == "equation") {
                add("$$\n" + block.text + "\n$$");
            } else if (block.text_level > 0) {
                add(std::string(static_cast<std::size_t>(block.text_level), '#') + " " +
                    block.text);
            } else {
                add(block.text);
            }
        }
    }
    if (!out.empty()) out += '\n';
    return Markdown{out};
}

JsonText content_list(std::span<const PageContent> pages) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const PageContent& page : pages) {
        for (const Block& block : page.blocks) {
            nlohmann::ordered_json item;
            item["type"] = block.type;
            item["text"] = block.text;
            if (block.text_level > 0) item["text_level"] = block.text_level;
            if (block.type == "table" && has_grid(block)) item["table_body"] = html_table(block);
            item["page_idx"] = page.page_index;
            item["bbox"] = {round2(block.bbox.x0), round2(block.bbox.y0), round2(block.bbox.x1),
                            round2(block.bbox.y1)};
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
