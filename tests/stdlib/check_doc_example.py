"""check_doc_example.py NAME WORK_DIR: checks a document example's outputs after a run on the
generated PDFs (docs/report.pdf, docs/letter.pdf) and the corrupt folder."""
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
reasons = {
    "in/empty.pdf": "in/empty.pdf: empty file",
    "in/garbage.pdf": "in/garbage.pdf: not a PDF (no %PDF- header)",
    "in/truncated.pdf": "in/truncated.pdf: truncated PDF (no %%EOF at the end)",
    "in/encrypted.pdf": "in/encrypted.pdf: encrypted PDF (needs a password)",
    "in/no_pages.pdf": "in/no_pages.pdf: PDF has no pages",
}
for root, reason in reasons.items():
    got = roots.get(root, {})
    check(got.get("status") == "failed" and got.get("reason") == reason,
          f"{root}: expected failed({reason!r}), got {got}")

# Exactly one Markdown and one content list per good document.
def listing(folder):  # the outputs, without the sink's .rop-names index
    return sorted(n for n in os.listdir(os.path.join(work, folder)) if not n.startswith("."))


check(listing("out/markdown") == ["letter.md", "report.md"],
      "out/markdown holds " + str(listing("out/markdown")))
check(listing("out/content_list") == ["letter.json", "report.json"],
      "out/content_list holds " + str(listing("out/content_list")))

report_md = read("out/markdown/report.md")
letter_md = read("out/markdown/letter.md")
in_order(letter_md, ["Dear reader, This letter has two pages.", "Kind regards from the second page."],
         "letter.md")
if name == "mineru":
    in_order(report_md, [
        "# Quarterly Report\n\n",
        "The quick brown fox jumps over the lazy dog. Revenue grew in every region this quarter.",
        "Second paragraph about costs and margins.", "## Results Table",
        "Units sold per region are listed below.", "North", "120", "South",
        "Totals are shown above.", "## Conclusion", "Growth will continue next year.\n"], "report.md")
else:
    expected = ("# Quarterly Report\n\n"
                "The quick brown fox jumps over the lazy dog. Revenue grew in every region this "
                "quarter.\n\n"
                "Second paragraph about costs and margins.\n\n"
                "## Results Table\n\n"
                "Units sold per region are listed below.\n\n"
                "| Region | Units | Price |\n| --- | --- | --- |\n| North | 120 | 4.50 |\n"
                "| South | 80 | 3.25 |\n\n"
                "Totals are shown above.\n\n"
                "## Conclusion\n\n"
                "Growth will continue next year.\n")
    check(report_md == expected, "report.md differs:\n" + report_md)

content = json.loads(read("out/content_list/report.json"))
check(isinstance(content, list) and len(content) >= 6, "content list too short")
pages = [item["page_idx"] for item in content]
check(pages == sorted(pages) and pages[0] == 0 and pages[-1] == 2, f"page_idx order {pages}")
for item in content:
    check(set(item) >= {"type", "text", "page_idx", "bbox"} and len(item["bbox"]) == 4,
          f"content item lacks fields: {item}")
check(content[0]["text"] == "Quarterly Report" and content[0].get("text_level") == 1,
      f"first content item {content[0]}")
if name == "docling":
    tables = [item for item in content if item["type"] == "table"]
    check(len(tables) == 1 and "<td>North</td><td>120</td><td>4.50</td>" in tables[0].get("table_body", ""),
          f"tables {tables}")
    summary = [json.loads(line) for line in read("out/summary.jsonl").splitlines()]
    check(sorted((s["name"], s["title"], s["pages"]) for s in summary) ==
          [("in/letter.pdf", "Short Letter", 2), ("in/report.pdf", "Quarterly Report", 3)],
          f"summary.jsonl {summary}")

if failures:
    print("\n".join("FAIL: " + f for f in failures))
    sys.exit(1)
print(f"ok: {name}")
