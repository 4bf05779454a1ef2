// std.assemble.content_list against MinerU's own writer: tests/stdlib/mineru/middle.json (a
// document in the middle JSON of MinerU's VLM backend) made into rop's PageContents here, and
// rop's content list compared item by item, key order included, with what MinerU 2.5.4's and
// 3.4.4's writers made of the same middle JSON (content_list_mineru25.json and
// content_list_mineru3.json, written by tests/stdlib/mineru/make_fixtures.sh).
#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "code_language.h"
#include "rop/stdlib/assemble.h"

using namespace rop::stdlib;
using json = nlohmann::ordered_json;

namespace {

const std::filesystem::path kFixtures = std::filesystem::path(__FILE__).parent_path() / "mineru";

json read_json(const std::string& name) {
    std::ifstream in(kFixtures / name);
    REQUIRE(in);
    return json::parse(in);
}

// The text of a middle-JSON block: its spans' contents (one line of one span in these files).
std::string text_of(const json& block) {
    std::string text;
    for (const json& line : block["lines"]) {
        for (const json& span : line["spans"]) {
            if (span.contains("content")) text += span["content"].get<std::string>();
        }
    }
    return text;
}

BBox box_of(const json& block) {
    const json& b = block["bbox"];
    return BBox{b[0].get<double>(), b[1].get<double>(), b[2].get<double>(), b[3].get<double>()};
}

std::string unescape_html(std::string text) {
    for (const auto& [entity, plain] :
         {std::pair<std::string, std::string>{"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}}) {
        for (std::size_t at = text.find(entity); at != std::string::npos;
             at = text.find(entity, at + 1)) {
            text.replace(at, entity.size(), plain);
        }
    }
    return text;
}

// A table's HTML (<table><tr><td>..</td></tr></table>, as rop writes it) as a grid of cells.
void read_table(const std::string& html, Block& block) {
    std::size_t row_at = html.find("<tr>");
    for (; row_at != std::string::npos; row_at = html.find("<tr>", row_at + 1)) {
        const std::size_t row_end = html.find("</tr>", row_at);
        int col = 0;
        for (std::size_t at = html.find("<td>", row_at); at != std::string::npos && at < row_end;
             at = html.find("<td>", at + 1), ++col) {
            const std::size_t end = html.find("</td>", at);
            block.cells.push_back(
                TableCell{block.rows, col, {}, unescape_html(html.substr(at + 4, end - at - 4))});
        }
        block.cols = col;
        ++block.rows;
    }
}

// The middle JSON's pages as rop's PageContents, each page's blocks in reading order: its
// header first, then the body, then its footer and page number (MinerU keeps those apart as
// discarded blocks). A VLM's pages: text_source "model", so a formula is LaTeX.
std::vector<PageContent> pages_of(const json& middle) {
    std::vector<PageContent> pages;
    for (const json& info : middle["pdf_info"]) {
        PageContent page;
        page.page_index = info["page_idx"].get<int>();
        page.width = info["page_size"][0].get<double>();
        page.height = info["page_size"][1].get<double>();
        page.text_source = "model";
        std::vector<Block> before;
        std::vector<Block> after;
        for (const json& discarded : info["discarded_blocks"]) {
            Block block;
            block.type = discarded["type"].get<std::string>();
            block.text = text_of(discarded);
            block.bbox = box_of(discarded);
            (block.type == "header" ? before : after).push_back(block);
        }
        page.blocks = before;
        for (const json& para : info["para_blocks"]) {
            Block block;
            block.bbox = box_of(para);
            const std::string type = para["type"].get<std::string>();
            if (type == "title") {
                block.text = text_of(para);
                block.text_level = para["level"].get<int>();
            } else if (type == "text") {
                block.text = text_of(para);
            } else if (type == "list") {
                block.type = "list";
                for (const json& item : para["blocks"]) {
                    if (!block.text.empty()) block.text += '\n';
                    block.text += text_of(item);
                }
            } else if (type == "code") {
                block.type = "code";
                for (const json& part : para["blocks"]) {
                    if (part["type"] == "code_body") block.text = text_of(part);
                }
            } else if (type == "table") {
                block.type = "table";
                read_table(para["blocks"][0]["lines"][0]["spans"][0]["html"].get<std::string>(),
                           block);
            } else if (type == "image") {
                block.type = "image";
            } else if (type == "interline_equation") {
                block.type = "equation";
                block.text = text_of(para);
            } else {
                FAIL("a middle-JSON block rop has no counterpart for: " << type);
            }
            page.blocks.push_back(block);
        }
        page.blocks.insert(page.blocks.end(), after.begin(), after.end());
        pages.push_back(page);
    }
    return pages;
}

void check_same(const json& ours, const json& theirs) {
    for (std::size_t i = 0; i < std::max(ours.size(), theirs.size()); ++i) {
        const json mine = i < ours.size() ? ours[i] : json();
        const json expected = i < theirs.size() ? theirs[i] : json();
        INFO("item " << i << "\n  rop:    " << mine.dump() << "\n  MinerU: " << expected.dump());
        CHECK(mine == expected);  // ordered_json: the keys' order counts
    }
    CHECK(ours.size() == theirs.size());
}

}  // namespace

TEST_CASE("content_list is MinerU 2.5's content_list.json, as MinerU's own writer makes it") {
    const std::vector<PageContent> pages = pages_of(read_json("middle.json"));
    const json ours = json::parse(assemble::content_list(pages).text);
    check_same(ours, read_json("content_list_mineru25.json"));
}

TEST_CASE("content_list(format: mineru3) is MinerU 3's, as MinerU's own writer makes it") {
    const std::vector<PageContent> pages = pages_of(read_json("middle.json"));
    const json ours =
        json::parse(assemble::content_list(pages, assemble::ContentListFormat::mineru3).text);
    check_same(ours, read_json("content_list_mineru3.json"));
}

TEST_CASE("code_language names what Magika names, or txt") {
    // The middle JSON's guess_lang values are Magika's (make_fixtures.sh checks them).
    for (const json& info : read_json("middle.json")["pdf_info"]) {
        for (const json& para : info["para_blocks"]) {
            if (para["type"] != "code") continue;
            const std::string code = text_of(para["blocks"][0]);
            INFO(code);
            CHECK(assemble::detail::code_language(code) == para["guess_lang"].get<std::string>());
        }
    }
    // More of Magika 0.6.3's answers (MinerU's guess_language_by_text, run on these).
    const std::vector<std::pair<std::string, std::string>> samples = {
        {"sudo apt-get install libtasn1-dev\nexport PATH=/usr/bin:$PATH", "shell"},
        {"if [ -f /etc/x ]; then\n  echo yes\nfi", "shell"},
        {"int main() {\n    int x = 1;\n\n    return x;\n}", "txt"},
        {"#include <libtasn1.h>\nint asn1_create_element (asn1_node definitions, const char "
         "*source_name, asn1_node *element);",
         "c"},
        {"int asn1_create_element (asn1_node definitions, const char *source_name, asn1_node "
         "*element);",
         "c"},
        {"#include <iostream>\nint main() {\n    std::cout << \"hi\" << std::endl;\n}", "cpp"},
        {"public class Hello {\n    public static void main(String[] args) {\n        "
         "System.out.println(\"hi\");\n    }\n}",
         "java"},
        {"package main\n\nimport \"fmt\"\n\nfunc main() {\n    fmt.Println(\"hi\")\n}", "go"},
        {"fn main() {\n    let mut x = 1;\n    println!(\"{}\", x);\n}", "rust"},
        {"SELECT name, price FROM items WHERE price > 3;", "sql"},
        {"function add(a, b) {\n  return a + b;\n}\nconsole.log(add(1, 2));", "javascript"},
        {"<?xml version=\"1.0\"?>\n<mime-info xmlns=\"http://www.freedesktop.org/standards/"
         "shared-mime-info\">\n</mime-info>",
         "xml"},
        {"all: rop\n\nrop: main.o\n\t$(CC) -o $@ main.o", "makefile"},
        {"#define ASN1_SUCCESS 0\n#define ASN1_FILE_NOT_FOUND 1", "c"},
        {"{\n  \"name\": \"rop\",\n  \"pages\": [1, 2]\n}", "json"},
        {"$ ./configure\n$ make\n$ make check", "txt"},
        {"Apples 3", "txt"},
    };
    for (const auto& [code, label] : samples) {
        INFO(code);
        CHECK(assemble::detail::code_language(code) == label);
    }
}
