"""check_doc_example.py NAME WORK_DIR: checks a document example's outputs after a run on the
generated PDFs (docs/report.pdf, docs/letter.pdf, text/mixed.pdf) and the corrupt folder."""
import json
import os
import sys

name, work = sys.argv[1], sys.argv[2]
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def in_order(text, parts, what):
    at = 0
    for part in parts:
        found = text.find(part, at)
        if found < 0:
            failures.append(f"{what}: missing or out of order: {part!r}")
            return
        at = found + len(part)


def read(path):
    with open(os.path.join(work, path), encoding="utf-8") as f:
        return f.read()


# Every root: the two good documents ok, each broken file failed with its reason.
report = json.loads(read("report.json"))
roots = {root["name"]: root for root in report["roots"]}
check(roots.get("in/report.pdf", {}).get("status") == "ok", "in/report.pdf is not ok")
check(roots.get("in/letter.pdf", {}).get("status") == "ok", "in/letter.pdf is not ok")
check(roots.get("in/mixed.pdf", {}).get("status") == "ok", "in/mixed.pdf is not ok")
reasons = {
    "in/empty.pdf": "in/empty.pdf: empty file",
    "in/garbage.pdf": "in/garbage.pdf: not a PDF (no %PDF- header)",
    "in/truncated.pdf": "in/truncated.pdf: truncated PDF (no %%EOF at the end)",
    "in/encrypted.pdf": "in/encrypted.pdf: encrypted PDF (needs a password)",
    "in/no_pages.pdf": "in/no_pages.pdf: PDF has no pages",
}
for root, reason in reasons.items():
    got = roots.get(root, {})
    check(
        got.get("status") == "failed" and got.get("reason") == reason,
        f"{root}: expected failed({reason!r}), got {got}",
    )


# Exactly one Markdown and one content list per good document.
def listing(folder):  # the outputs, without the sink's .rop-names index
    return sorted(n for n in os.listdir(os.path.join(work, folder)) if not n.startswith("."))


check(
    listing("out/markdown") == ["letter.md", "mixed.md", "report.md"],
    "out/markdown holds " + str(listing("out/markdown")),
)
check(
    listing("out/content_list") == ["letter.json", "mixed.json", "report.json"],
    "out/content_list holds " + str(listing("out/content_list")),
)

report_md = read("out/markdown/report.md")
letter_md = read("out/markdown/letter.md")
in_order(
    letter_md,
    ["Dear reader, This letter has two pages.", "Kind regards from the second page."],
    "letter.md",
)
if name == "mineru":
    in_order(
        report_md,
        [
            "# Quarterly Report\n\n",
            "The quick brown fox jumps over the lazy dog. Revenue grew in every region this quarter.",
            "Second paragraph about costs and margins.",
            "## Results Table",
            "Units sold per region are listed below.",
            "| Region | Units | Price |\n| --- | --- | --- |\n| North | 120 | 4.50 |\n"
            "| South | 80 | 3.25 |\n\n",
            "Totals are shown above.",
            "## Conclusion",
            "Growth will continue next year.\n",
        ],
        "report.md",
    )
else:
    expected = (
        "# Quarterly Report\n\n"
        "The quick brown fox jumps over the lazy dog. Revenue grew in every region this "
        "quarter.\n\n"
        "Second paragraph about costs and margins.\n\n"
        "## Results Table\n\n"
        "Units sold per region are listed below.\n\n"
        "| Region | Units | Price |\n| --- | --- | --- |\n| North | 120 | 4.50 |\n"
        "| South | 80 | 3.25 |\n\n"
        "Totals are shown above.\n\n"
        "## Conclusion\n\n"
        "Growth will continue next year.\n"
    )
    check(report_md == expected, "report.md differs:\n" + report_md)

# text: detect: the born-digital pages of mixed.pdf from their layer, the scan (page 2) by OCR;
# its running header and page numbers stay out of the Markdown.
mixed_md = read("out/markdown/mixed.md")
check(
    mixed_md == "# Born Digital\n\n"
    "This page has a text layer that poppler reads. Its words come with fonts and boxes.\n\n"
    "## Scanned Part\n\n"  # its outline entry is a child of "Born Digital"
    "This page is only a picture of its text. Nothing here can be selected.\n\n"
    "# Back to Text\n\n"
    "The third page is born digital again.\n\n"
    "The last page closes the handbook.\n",
    "mixed.md differs:\n" + mixed_md,
)
mixed = json.loads(read("out/content_list/mixed.json"))
if name == "docling":  # run_doc_example.sh asks docling's content_list for rop's extras
    check(
        all(item["text_source"] == ("ocr" if item["page_idx"] == 1 else "layer") for item in mixed),
        "mixed.json text_source per page: "
        + str([(i["page_idx"], i["text_source"]) for i in mixed]),
    )
headers = [
    item["page_idx"]
    for item in mixed
    if item["type"] == "header" and item["text"] == "Mixed Sources Handbook"
]
check(headers == [0, 1, 2, 3], f"mixed.json headers on pages {headers}")
# (Tesseract does not read the lone "2" on the scan; the layer pages' numbers are all there, in
# docling as a region of words its layout analysis missed.)
numbers = [(item["page_idx"], item["text"]) for item in mixed if item["type"] == "page_number"]
check(numbers == [(0, "1"), (2, "3"), (3, "4")], f"mixed.json page numbers {numbers}")
check(
    [item.get("text_level") for item in mixed if item["type"] == "text"][0] == 1,
    "mixed.json: the first text item is not a level-1 heading",
)

content = json.loads(read("out/content_list/report.json"))
check(isinstance(content, list) and len(content) >= 6, "content list too short")
pages = [item["page_idx"] for item in content]
check(pages == sorted(pages) and pages[0] == 0 and pages[-1] == 2, f"page_idx order {pages}")
# MinerU 2.5's fields, in its writer's order (docs/stdlib.md): bbox as integers 0..1000 of the
# page's width and height, page_idx 0-based; no "text" beside a list, code or a table's body.
# docling's list also has rop's extras text_source and confidence at the end.
KEYS = {
    "text": ["type", "text", "text_level", "bbox", "page_idx"],
    "header": ["type", "text", "bbox", "page_idx"],
    "footer": ["type", "text", "bbox", "page_idx"],
    "page_number": ["type", "text", "bbox", "page_idx"],
    "list": ["type", "sub_type", "list_items", "bbox", "page_idx"],
    "code": ["type", "sub_type", "code_caption", "code_body", "guess_lang", "bbox", "page_idx"],
    "table": [
        "type",
        "img_path",
        "table_caption",
        "table_footnote",
        "table_body",
        "bbox",
        "page_idx",
    ],
    "image": ["type", "img_path", "image_caption", "image_footnote", "bbox", "page_idx"],
    "equation": ["type", "img_path", "text", "bbox", "page_idx"],
}
OPTIONAL = {"text_level", "table_body"}
for item in content + mixed:
    keys = list(item)
    if name == "docling":
        extras = ["text_source"] if item["type"] == "image" else ["text_source", "confidence"]
        check(keys[-len(extras) :] == extras, f"content item lacks rop's extras: {item}")
        keys = keys[: -len(extras)]
    expected = [k for k in KEYS.get(item["type"], []) if k in keys or k not in OPTIONAL]
    check(keys == expected, f"content item's keys {keys}, MinerU's {expected}: {item}")
    check(all(isinstance(v, int) and 0 <= v <= 1000 for v in item["bbox"]), f"bbox of {item}")
    check(
        item["bbox"][0] < item["bbox"][2] and item["bbox"][1] < item["bbox"][3],
        f"empty bbox in {item}",
    )
    if item["type"] == "table":
        check(item.get("img_path") == "" and item.get("table_caption") == [], f"table {item}")
if name == "docling":
    check(all(item["text_source"] == "layer" for item in content), "report.json is not all layer")
# "Quarterly Report": 72 pt from the left of a 612 pt page, int(72 * 1000 / 612) = 117; a
# little less for the layout's region with its margin.
check(content[0]["bbox"][0] in range(110, 118), f"first bbox {content[0]['bbox']}")
check(
    content[0]["text"] == "Quarterly Report" and content[0].get("text_level") == 1,
    f"first content item {content[0]}",
)
# Both pipelines rebuild the ruled table (mineru's from_page, docling's layout regions).
tables = [item for item in content if item["type"] == "table"]
check(
    len(tables) == 1
    and "<td>North</td><td>120</td><td>4.50</td>" in tables[0].get("table_body", ""),
    f"tables {tables}",
)
if name == "docling":
    summary = [json.loads(line) for line in read("out/summary.jsonl").splitlines()]
    check(
        sorted((s["name"], s["title"], s["pages"]) for s in summary)
        == [
            ("in/letter.pdf", "Short Letter", 2),
            ("in/mixed.pdf", "Mixed Sources", 4),
            ("in/report.pdf", "Quarterly Report", 3),
        ],
        f"summary.jsonl {summary}",
    )

if failures:
    print("\n".join("FAIL: " + f for f in failures))
    sys.exit(1)
print(f"ok: {name}")
