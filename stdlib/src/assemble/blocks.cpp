// std.assemble.from_ocr and std.assemble.page: a page's OCR or regions as PageContent blocks.
#include <algorithm>
#include <string>
#include <vector>

#include "rop/stdlib/assemble.h"

namespace rop::stdlib::assemble {
namespace {

BBox unite(const BBox& a, const BBox& b) {
    return BBox{std::min(a.x0, b.x0), std::min(a.y0, b.y0), std::max(a.x1, b.x1),
                std::max(a.y1, b.y1)};
}

bool is_lower(char c) { return c >= 'a' && c <= 'z'; }

// Appends a line to a paragraph: a space between, or nothing where "exam-" + "ple" was split.
void append_line(std::string& text, const std::string& line) {
    if (text.empty()) {
        text = line;
    } else if (text.size() >= 2 && text.back() == '-' && is_lower(text[text.size() - 2]) &&
               !line.empty() && is_lower(line.front())) {
        text.pop_back();
        text += line;
    } else {
        text += ' ';
        text += line;
    }
}

int heading_level(double ratio) { return ratio >= 2.0 ? 1 : ratio >= 1.6 ? 2 : 3; }

}  // namespace

PageContent from_ocr(const OcrResult& page, double heading_ratio) {
    PageContent content;
    content.doc_path = page.doc_path;
    content.doc_name = page.doc_name;
    content.page_index = page.page_index;
    content.width = page.width;
    content.height = page.height;
    content.text_source = page.text_source;
    content.outline = page.outline;
    // A line's size is its font size when the text layer gave one, else its ascent (baseline to
    // top), which descenders do not change.
    auto size_of = [](const Line& line) {
        if (line.font_size > 0) return line.font_size;
        const double ascent = line.baseline - line.bbox.y0;
        return ascent > 0 ? ascent : line.bbox.height();
    };
    std::vector<double> heights;
    for (const Line& line : page.lines) heights.push_back(size_of(line));
    double median = 0;
    if (!heights.empty()) {
        // The lower median: on a page of one heading and one line, the line is the body size.
        std::nth_element(heights.begin(), heights.begin() + (heights.size() - 1) / 2,
                         heights.end());
        median = heights[(heights.size() - 1) / 2];
    }
    // Lines in order; a new block where the paragraph changes or heading-ness switches.
    int paragraph = -1;
    bool heading = false;
    double largest = 0;
    double confidence = 0;  // the block's lines' sum, until close()
    int lines = 0;
    auto close = [&] {
        if (content.blocks.empty()) return;
        if (heading) content.blocks.back().text_level = heading_level(largest);
        content.blocks.back().confidence = lines > 0 ? static_cast<float>(confidence / lines) : 0;
    };
    for (const Line& line : page.lines) {
        const double ratio = median > 0 ? size_of(line) / median : 1.0;
        const bool tall = ratio >= heading_ratio;
        if (content.blocks.empty() || line.paragraph != paragraph || tall != heading) {
            close();
            Block block;
            block.bbox = line.bbox;
            content.blocks.push_back(block);
            paragraph = line.paragraph;
            heading = tall;
            largest = 0;
            confidence = 0;
            lines = 0;
        }
        confidence += line.confidence;
        ++lines;
        Block& block = content.blocks.back();
        block.font_size = std::max(block.font_size, line.font_size);
        append_line(block.text, line.text);
        block.bbox = unite(block.bbox, line.bbox);
        largest = std::max(largest, ratio);
    }
    close();
    return content;
}

PageContent page(std::span<const Region> regions) {
    PageContent content;
    content.page_index = -1;
    if (!regions.empty()) {
        content.doc_path = regions.front().doc_path;
        content.doc_name = regions.front().doc_name;
        content.page_index = regions.front().page_index;
        content.width = regions.front().page_width;
        content.height = regions.front().page_height;
        content.text_source = regions.front().text_source;
        content.outline = regions.front().outline;
    }
    for (const Region& region : regions) {
        Block block;
        block.bbox = region.bbox;
        block.confidence = region.confidence;
        block.font_size = region.font_size;
        switch (region.kind) {
            case RegionKind::heading: block.text_level = std::max(1, region.level); break;
            case RegionKind::table:
                block.type = "table";
                block.cells = region.cells;
                block.rows = region.rows;
                block.cols = region.cols;
                break;
            case RegionKind::figure: block.type = "image"; break;
            case RegionKind::formula: block.type = "equation"; break;
            default: break;
        }
        if (block.type == "table") {
            block.text = region.text;
        } else {
            // Region OCR keeps the lines; a block is one paragraph of text.
            std::string text;
            std::size_t start = 0;
            while (start <= region.text.size()) {
                std::size_t end = region.text.find('\n', start);
                if (end == std::string::npos) end = region.text.size();
                std::string line = region.text.substr(start, end - start);
                if (line.find_first_not_of(" \t") != std::string::npos) append_line(text, line);
                start = end + 1;
            }
            block.text = text;
        }
        if (block.type != "image" && block.text.empty() && block.cells.empty()) continue;
        content.blocks.push_back(std::move(block));
    }
    return content;
}

}  // namespace rop::stdlib::assemble
