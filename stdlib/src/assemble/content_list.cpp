// std.assemble.content_list: a document's PageContents as MinerU's content_list.json, as the
// writer of its VLM backend writes it (mineru/backend/vlm/vlm_middle_json_mkcontent.py,
// make_blocks_to_content_list and union_make), in MinerU 2.5's shape or MinerU 3's. That writer is
// MinerU's one that types lists, code and running text, as rop does. Field by field, key order
// included; tests/stdlib/mineru/ holds its own output on the same middle JSON.
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "code_language.h"
#include "document.h"
#include "rop/stdlib/assemble.h"

namespace rop::stdlib::assemble {
namespace {

using json = nlohmann::ordered_json;
using detail::has_grid;

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

// The table as HTML rows of cells; a table without a grid (a table block of Tesseract's layout,
// no rules found) as one cell per line of its text, so its words are kept.
std::string html_table(const Block& block) {
    std::string out = "<table>";
    if (has_grid(block)) {
        for (int r = 0; r < block.rows; ++r) {
            out += "<tr>";
            for (int c = 0; c < block.cols; ++c) {
                const TableCell& cell = block.cells[static_cast<std::size_t>(r) * block.cols + c];
                out += "<td>" + html_escape(cell.text) + "</td>";
            }
            out += "</tr>";
        }
    } else {
        std::size_t start = 0;
        while (start < block.text.size()) {
            std::size_t end = block.text.find('\n', start);
            if (end == std::string::npos) end = block.text.size();
            out += "<tr><td>" + html_escape(block.text.substr(start, end - start)) + "</td></tr>";
            start = end + 1;
        }
    }
    return out + "</table>";
}

// MinerU's bbox: each coordinate scaled to 0..1000 of the page's width or height and truncated
// to an integer (int(x * 1000 / width)), here also clamped to 0..1000.
int per_mille(double value, double extent) {
    if (!(extent > 0)) return 0;
    return static_cast<int>(std::clamp(value * 1000.0 / extent, 0.0, 1000.0));
}

double round1(double value) { return std::round(value * 10.0) / 10.0; }

bool space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// Python's str.strip() for the white space rop's texts hold.
std::string strip(std::string_view text) {
    while (!text.empty() && space(text.front())) text.remove_prefix(1);
    while (!text.empty() && space(text.back())) text.remove_suffix(1);
    return std::string(text);
}

// MinerU 3's full_to_half_exclude_marks: full-width digits and Latin letters (U+FF10..FF19,
// U+FF21..FF3A, U+FF41..FF5A) as ASCII.
std::string full_to_half(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto b0 = static_cast<unsigned char>(text[i]);
        if (b0 == 0xEF && i + 2 < text.size()) {
            const auto b1 = static_cast<unsigned char>(text[i + 1]);
            const auto b2 = static_cast<unsigned char>(text[i + 2]);
            const unsigned code = 0xF000u | ((b1 & 0x3Fu) << 6) | (b2 & 0x3Fu);
            if ((code >= 0xFF10 && code <= 0xFF19) || (code >= 0xFF21 && code <= 0xFF3A) ||
                (code >= 0xFF41 && code <= 0xFF5A)) {
                out += static_cast<char>(code - 0xFEE0);
                i += 2;
                continue;
            }
        }
        out += text[i];
    }
    return out;
}

// MinerU 3's escape_conservative_markdown_text: a backslash before each * _ ` ~ $ that an even
// run of backslashes (none included) precedes.
std::string escape_inline(std::string_view text) {
    std::string out;
    int backslashes = 0;
    for (char c : text) {
        if (c == '\\') {
            out += c;
            ++backslashes;
            continue;
        }
        if ((c == '*' || c == '_' || c == '`' || c == '~' || c == '$') && backslashes % 2 == 0) {
            out += '\\';
        }
        out += c;
        backslashes = 0;
    }
    return out;
}

// MinerU 3's escape_text_block_markdown_prefix: body text that would read as a Markdown heading
// or list item (up to 3 spaces or tabs, then 1-6 '#' or a '+' or '-', then a space or a tab) gets
// a backslash before that marker.
std::string escape_block_prefix(std::string text) {
    std::size_t at = 0;
    while (at < text.size() && at < 3 && (text[at] == ' ' || text[at] == '\t')) ++at;
    std::size_t end = at;
    if (end < text.size() && (text[end] == '+' || text[end] == '-')) {
        ++end;
    } else {
        while (end < text.size() && end - at < 6 && text[end] == '#') ++end;
    }
    if (end > at && end < text.size() && (text[end] == ' ' || text[end] == '\t')) {
        text.insert(at, 1, '\\');
    }
    return text;
}

// The writer of one MinerU version: what it makes of a span's text.
class Writer {
  public:
    explicit Writer(ContentListFormat format) : v3_(format == ContentListFormat::mineru3) {}

    // A text span (body text when `body`: MinerU 3 then also escapes a leading block marker).
    std::string text(const std::string& content, bool body = false) const {
        if (!v3_) return content;
        std::string out = strip(escape_inline(full_to_half(content)));
        return body ? escape_block_prefix(std::move(out)) : out;
    }

    json item(const Block& block, const PageContent& page) const {
        json item;
        const bool latex = page.text_source == "model";  // a model's formula is LaTeX
        if (block.type == "list") {
            item["type"] = "list";
            item["sub_type"] = "text";
            item["list_items"] = json::array();
            std::size_t start = 0;
            while (start <= block.text.size()) {
                std::size_t end = block.text.find('\n', start);
                if (end == std::string::npos) end = block.text.size();
                const std::string line = text(block.text.substr(start, end - start));
                if (!strip(line).empty()) item["list_items"].push_back(line);
                start = end + 1;
            }
        } else if (block.type == "code") {
            item["type"] = "code";
            item["sub_type"] = "code";
            item["code_caption"] = json::array();
            const std::string language = detail::code_language(block.text);
            if (v3_) {
                item["code_body"] =
                    "```" + language + "\n" + strip(full_to_half(block.text)) + "\n```";
            } else {
                item["code_body"] = block.text;
                item["guess_lang"] = language;
            }
        } else if (block.type == "table") {
            item["type"] = "table";
            item["img_path"] = "";
            item["table_caption"] = json::array();
            item["table_footnote"] = json::array();
            if (has_grid(block) || !block.text.empty()) item["table_body"] = html_table(block);
        } else if (block.type == "image") {
            item["type"] = "image";
            item["img_path"] = "";
            item["image_caption"] = json::array();
            item["image_footnote"] = json::array();
            if (v3_) item["content"] = "";
        } else if (block.type == "equation" && latex) {
            item["type"] = "equation";
            const std::string display = "\n$$\n" + block.text + "\n$$\n";
            item["text"] = v3_ ? strip(display) : display;
            item["text_format"] = "latex";
        } else if (block.type == "equation") {
            // OCR's reading of a formula is no LaTeX: the pipeline backend's equation without a
            // recognized formula, with the text rop has.
            item["type"] = "equation";
            item["img_path"] = "";
            item["text"] = text(block.text);
        } else if (detail::is_running(block)) {
            item["type"] = block.type;
            item["text"] = text(block.text);
        } else {
            item["type"] = "text";
            item["text"] = text(block.text, block.text_level == 0);
            // MinerU's get_title_level: levels stop at 4.
            if (block.text_level > 0) item["text_level"] = std::min(block.text_level, 4);
        }
        item["bbox"] = {per_mille(block.bbox.x0, page.width), per_mille(block.bbox.y0, page.height),
                        per_mille(block.bbox.x1, page.width),
                        per_mille(block.bbox.y1, page.height)};
        item["page_idx"] = page.page_index;
        return item;
    }

    // MinerU 2.5 writes nothing of a page without body blocks, not even its running text.
    bool skips(const std::vector<const Block*>& body) const { return !v3_ && body.empty(); }

  private:
    bool v3_;
};

}  // namespace

JsonText content_list(std::span<const PageContent> input, ContentListFormat format, bool extras) {
    const std::vector<PageContent> pages = detail::prepared(input);
    const Writer writer(format);
    json list = json::array();
    for (const PageContent& page : pages) {
        // MinerU's union_make: the page's blocks in reading order, then its discarded ones
        // (headers, footers, page numbers).
        std::vector<const Block*> body;
        std::vector<const Block*> running;
        for (const Block& block : page.blocks) {
            (detail::is_running(block) ? running : body).push_back(&block);
        }
        if (writer.skips(body)) continue;
        body.insert(body.end(), running.begin(), running.end());
        for (const Block* block : body) {
            json item = writer.item(*block, page);
            if (extras) {  // rop's, which MinerU's readers ignore
                item["text_source"] = page.text_source;
                if (block->type != "image") item["confidence"] = round1(block->confidence);
            }
            list.push_back(std::move(item));
        }
    }
    return JsonText{list.dump(2, ' ', false, nlohmann::json::error_handler_t::replace)};
}

JsonText content_list_from_ocr(std::span<const OcrResult> pages, ContentListFormat format,
                               bool extras) {
    std::vector<PageContent> contents;
    for (const OcrResult& page : pages) contents.push_back(from_ocr(page));
    return content_list(contents, format, extras);
}

}  // namespace rop::stdlib::assemble
