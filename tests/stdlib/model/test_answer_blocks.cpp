// std.model.page_content: a VLM's Markdown answer as typed blocks (answer_blocks.h), and what
// std.assemble's two writers make of them.
#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "answer_blocks.h"
#include "rop/stdlib/assemble.h"
#include "rop/stdlib/model.h"

using rop::stdlib::BBox;
using rop::stdlib::Block;
namespace model = rop::stdlib::model;
namespace assemble = rop::stdlib::assemble;

namespace {

const BBox kPage{0, 0, 612, 792};

// A Qwen2.5-VL-style answer for a page: every kind of block, and the answer wrapped whole in a
// ```markdown fence as such models often do.
const std::string kAnswer = R"(```markdown
# Annual Report 2026 #

Revenue grew in every region,
and costs fell.

Results
=======

<!-- page header: ACME Corp -->
- Apples and pears
  for the pie
- Plums
  * ripe ones
1) Wash
2) Cut

```python
def area(r):
    return 3.14 * r * r
```

$$
E = mc^2
$$

\[ a^2 + b^2 = c^2 \]

| Region | Units |
| --- | ---: |
| North \| East | 120 |
| South | 80 |

<table><thead><tr><th>Name</th><th>Q1</th><th>Q2</th></tr></thead>
<tr><td colspan="2">Total &amp; more</td><td>7</td></tr></table>

![chart](images/chart.png)

---

> A quoted
> remark.

Conclusion
----------
The end.
```)";

struct Expected {
    std::string type;
    std::string text;
    int level = 0;
};

}  // namespace

TEST_CASE("a VLM's Markdown answer becomes typed blocks", "[model]") {
    const std::vector<Block> blocks = model::detail::answer_blocks(kAnswer, kPage);
    const std::vector<Expected> expected = {
        {"text", "Annual Report 2026", 1},
        {"text", "Revenue grew in every region, and costs fell."},
        {"text", "Results", 1},
        {"list", "- Apples and pears for the pie\n- Plums\n* ripe ones\n1) Wash\n2) Cut"},
        {"code", "def area(r):\n    return 3.14 * r * r"},
        {"equation", "E = mc^2"},
        {"equation", "a^2 + b^2 = c^2"},
        {"table", "Region | Units\nNorth | East | 120\nSouth | 80"},
        {"table", "Name | Q1 | Q2\nTotal & more |  | 7"},
        {"image", ""},
        {"text", "A quoted remark."},
        {"text", "Conclusion", 2},
        {"text", "The end."},
    };
    REQUIRE(blocks.size() == expected.size());
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        INFO("block " << i);
        CHECK(blocks[i].type == expected[i].type);
        CHECK(blocks[i].text == expected[i].text);
        CHECK(blocks[i].text_level == expected[i].level);
        CHECK(blocks[i].bbox.x1 == 612);
        CHECK(blocks[i].confidence == 0);
    }
    // The pipe table's grid: the escaped '|' stays in its cell, the delimiter row is no row.
    REQUIRE(blocks[7].rows == 3);
    REQUIRE(blocks[7].cols == 2);
    CHECK(blocks[7].cells[2].text == "North | East");
    // The HTML table: <th> cells are a row, a colspan leaves its second column empty.
    REQUIRE(blocks[8].rows == 2);
    REQUIRE(blocks[8].cols == 3);
    CHECK(blocks[8].cells[3].text == "Total & more");
    CHECK(blocks[8].cells[4].text.empty());
    CHECK(blocks[8].cells[5].text == "7");
}

TEST_CASE("answer_blocks: edge cases of a model's Markdown", "[model]") {
    auto types = [](const std::string& markdown) {
        std::vector<std::string> out;
        for (const Block& block : model::detail::answer_blocks(markdown, kPage)) {
            out.push_back(block.type + ":" + std::to_string(block.text_level) + ":" + block.text);
        }
        return out;
    };
    using V = std::vector<std::string>;
    CHECK(types("").empty());
    CHECK(types("#hashtag is no heading") == V{"text:0:#hashtag is no heading"});
    CHECK(types("####### seven") == V{"text:0:####### seven"});
    CHECK(types("## Title ##\n### C# ###") == V{"text:2:Title", "text:3:C#"});
    CHECK(types("* * *\n- - -\n___") == V{});
    CHECK(types("```\nunclosed\n  code") == V{"code:0:unclosed\n  code"});
    CHECK(types("$$ x^2 $$") == V{"equation:0:x^2"});
    // A blank line between items keeps one list; one before text ends it.
    CHECK(types("- a\n\n- b\n\nafter") == V{"list:0:- a\n- b", "text:0:after"});
    // "1." alone on a line is an item with no text, "2024." in prose is a paragraph's start.
    CHECK(types("2024.was a year") == V{"text:0:2024.was a year"});
    CHECK(types("Para\n# Heading") == V{"text:0:Para", "text:1:Heading"});
    CHECK(types("a | b\nno delimiter") == V{"text:0:a | b no delimiter"});
}

TEST_CASE("page_content: both writers see the answer's structure", "[model]") {
    model::Completion answer;
    answer.status = 200;
    answer.text = kAnswer;
    rop::stdlib::Page page;
    page.doc_name = "report.pdf";
    page.index = 0;
    page.width = 612;
    page.height = 792;
    const rop::stdlib::PageContent content = model::page_content(answer, page);
    CHECK(content.text_source == "model");
    const std::vector<rop::stdlib::PageContent> pages = {content};
    // Headings unescaped at their levels, list markers in Markdown's form, tables as grids.
    CHECK(assemble::markdown(pages).text ==
          "# Annual Report 2026\n\n"
          "Revenue grew in every region, and costs fell.\n\n"
          "# Results\n\n"
          "- Apples and pears for the pie\n- Plums\n- ripe ones\n1. Wash\n2. Cut\n\n"
          "```\ndef area(r):\n    return 3.14 * r * r\n```\n\n"
          "$$\nE = mc^2\n$$\n\n"
          "$$\na^2 + b^2 = c^2\n$$\n\n"
          "| Region | Units |\n| --- | --- |\n| North \\| East | 120 |\n| South | 80 |\n\n"
          "| Name | Q1 | Q2 |\n| --- | --- | --- |\n| Total & more |  | 7 |\n\n"
          "A quoted remark.\n\n"
          "## Conclusion\n\n"
          "The end.\n");
    const std::string list = assemble::content_list(pages).text;
    INFO(list);
    for (const std::string& part : {
             std::string(R"("text": "Annual Report 2026",
    "text_level": 1,)"),
             std::string(R"("list_items": [
      "- Apples and pears for the pie",
      "- Plums",
      "* ripe ones",
      "1) Wash",
      "2) Cut"
    ],)"),
             std::string(R"("code_body": "def area(r):\n    return 3.14 * r * r",
    "guess_lang": "python",)"),
             std::string(R"("type": "equation",
    "text": "\n$$\nE = mc^2\n$$\n",
    "text_format": "latex",)"),
             std::string(R"("table_body": "<table><tr><td>Region</td><td>Units</td></tr>)"),
             std::string(R"("text": "Conclusion",
    "text_level": 2,)"),
         }) {
        CHECK(list.find(part) != std::string::npos);
    }
}
