#!/usr/bin/env python3
"""B7 scores: words against the text layer, headings against the outline, speed.

Reads what bench/b7_documents/run.sh left in --work and writes the JSON given by --out.

Words. The reference is `pdftotext -layout`, page by page (pages end with a form feed). Text is
normalised to Unicode NFKC (ligatures such as "fi" become two letters) and case-folded; a word is
a maximal run of letters and digits, so every other character (punctuation, symbols, bullets,
spaces, `_`) separates words: "asn1_create_element()" is three words, "don't" two. Before that,
a line of the reference that ends in a lowercase ASCII letter and "-" is joined to the next line
when that starts with a lowercase letter, dropping the "-" ("exam-" + "ple" = "example"), the rule
std.assemble applies to the lines it joins. Per page the reference and the tool's words are bags
(multisets): matched = sum over words of min(count in reference, count in tool); recall = matched
/ reference words, precision = matched / tool words, summed over the pages of a group before
dividing. A tool's words on a page are every text its content list holds for that page_idx
(text, headers, footers, page numbers, table cells, list items, code), the tesseract command
line's its text file. Pages whose reference has no word (no text layer) are left out of the word
scores and counted.

Headings. The outline is poppler's (`pdftohtml -xml -i`, its <outline> items, depth by nesting).
A heading is a content-list text item with a text_level. Titles are compared as std.assemble
compares them: case-folded, letters and digits only, apostrophes, hyphens and dashes (ASCII or
typographic) dropped without a space (`Non-regular` is `Nonregular`), leading numbering dropped
(tokens that are numbers, single letters or roman numerals, and `chapter`, `appendix`, `part`,
`section`).
Each outline entry matches at most one heading; precision = matched headings / headings, recall
= matched entries / entries; level agreement = matched headings whose text_level is the entry's
depth. Only documents with an outline are scored.
"""
import argparse
import collections
import glob
import html
import json
import os
import re
import subprocess
import unicodedata

WORD = re.compile(r"[^\W_]+")
HYPHEN_BREAK = re.compile(r"([a-z])-[ \t]*\n[ \t]*([a-z])")
NUMBERING = {"chapter", "appendix", "part", "section"}
ROMAN = re.compile(r"^[ivxlc]+$")
ROWS = [
    ("mineru_auto", "mineru (rop, text: detect)"),
    ("mineru_ocr", "mineru (rop, text: ocr)"),
    ("docling_auto", "docling (rop, text: detect)"),
]


def words(text):
    return WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def dehyphenate(text):
    return HYPHEN_BREAK.sub(r"\1\2", text)


JOINERS = re.compile("['\u2018\u2019\u02bc\\-\u2010\u2011\u2012\u2013\u2014]")


def title_key(text):
    tokens = words(JOINERS.sub("", html.unescape(text)))
    rest = list(tokens)
    while len(rest) > 1 and (
        rest[0].isdigit() or len(rest[0]) == 1 or rest[0] in NUMBERING or ROMAN.match(rest[0])
    ):
        rest.pop(0)
    return " ".join(rest or tokens)


def outline(xml_path):
    """[(depth, title)] from pdftohtml -xml's <outline>, depth 1 at the top."""
    if not os.path.exists(xml_path):
        return []
    text = open(xml_path, encoding="utf-8", errors="replace").read()
    start = text.find("<outline>")
    if start < 0:
        return []
    entries, depth = [], 0
    for m in re.finditer(r"<outline>|</outline>|<item[^>]*>(.*?)</item>", text[start:], re.S):
        if m.group(0) == "<outline>":
            depth += 1
        elif m.group(0) == "</outline>":
            depth -= 1
            if depth == 0:
                break
        else:
            entries.append((depth, html.unescape(re.sub(r"<[^>]+>", "", m.group(1))).strip()))
    return entries


def item_text(item):
    if item.get("text"):
        return item["text"]
    if item.get("list_items"):
        return "\n".join(item["list_items"])
    if item.get("code_body"):
        return item["code_body"].replace("```", "")
    if item.get("table_body"):  # MinerU has no "text" beside a table's HTML
        return html.unescape(re.sub(r"<[^>]+>", " ", item["table_body"]))
    return ""


def bag_scores(ref_pages, tool_pages, pages):
    """(matched, reference words, tool words) summed over `pages` (0-based)."""
    matched = n_ref = n_tool = 0
    for p in pages:
        ref, tool = ref_pages[p], tool_pages.get(p, collections.Counter())
        matched += sum(min(count, tool[w]) for w, count in ref.items())
        n_ref += sum(ref.values())
        n_tool += sum(tool.values())
    return matched, n_ref, n_tool


def ratio(a, b):
    return round(a / b, 4) if b else None


def f1(p, r):
    if p is None or r is None:
        return None
    return round(2 * p * r / (p + r), 4) if p + r else 0.0


def heading_scores(entries, headings):
    """headings: [(text_level, text)]. Returns matched counts and level agreement."""
    remaining = collections.defaultdict(list)
    for depth, title in entries:
        remaining[title_key(title)].append(depth)
    matched = same_level = 0
    unmatched = []
    for level, text in headings:
        depths = remaining.get(title_key(text))
        if depths:
            matched += 1
            if level in depths:
                depths.remove(level)
                same_level += 1
            else:
                depths.pop(0)
        else:
            unmatched.append(text[:60])
    return matched, same_level, unmatched


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--cores", type=int, required=True)
    ap.add_argument("--max-pages", type=int, required=True)
    ap.add_argument("--ropc", default="")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    work = args.work

    docs = []
    for line in open(f"{work}/corpus.jsonl"):
        path = json.loads(line)["path"]
        name = os.path.basename(path)[:-4]
        info = subprocess.run(["pdfinfo", path], capture_output=True, text=True).stdout
        n = int(re.search(r"Pages:\s+(\d+)", info).group(1))
        producer = re.search(r"Producer:\s+(.*)", info)
        ref_text = open(f"{work}/ref/{name}.txt", encoding="utf-8", errors="replace").read()
        pages = ref_text.split("\f")[:n]
        pages += [""] * (n - len(pages))
        docs.append(
            {
                "name": name,
                "path": path,
                "pages": n,
                "producer": producer.group(1).strip() if producer else "",
                "ref": [collections.Counter(words(dehyphenate(p))) for p in pages],
                "outline": outline(f"{work}/ref/{name}.xml"),
            }
        )
    total_pages = sum(d["pages"] for d in docs)

    times = {}
    for line in open(f"{work}/runs/times.txt"):
        label, wall_ms, cpu_ms, load = line.split()
        times[label] = {
            "wall_s": int(wall_ms) / 1000,
            "cpu_s": int(cpu_ms) / 1000,
            "load_before": float(load),
        }

    def speed(label, pages):
        t = times[label]
        rate = pages / t["wall_s"] if t["wall_s"] else None
        cpu_page = t["cpu_s"] / pages
        return {
            "pages": pages,
            "wall_s": t["wall_s"],
            "cpu_s": t["cpu_s"],
            "pages_per_s": round(rate, 3),
            "cpu_s_per_page": round(cpu_page, 4),
            "of_machine_limit": round(rate / (args.cores / cpu_page), 3) if cpu_page else None,
            "load_before": t["load_before"],
        }

    # Tools' words and headings per document and page.
    tools = {}
    for label, _ in ROWS:
        report = json.load(open(f"{work}/{label}/report.json"))
        status = {r["name"]: r for r in report.get("roots", [])}
        per_doc = {}
        for d in docs:
            files = glob.glob(f"{work}/{label}/out/list/{d['name']}*.json")
            root = next(
                (r for n, r in status.items() if os.path.basename(n).startswith(d["name"])), {}
            )
            if not files:
                per_doc[d["name"]] = {"ok": False, "reason": root.get("reason", "no content list")}
                continue
            items = json.load(open(files[0]))
            pages = collections.defaultdict(collections.Counter)
            source = {}
            headings = []
            for it in items:
                p = it.get("page_idx", 0)
                pages[p].update(words(item_text(it)))
                if "text_source" in it:
                    source.setdefault(p, it["text_source"])
                if it.get("type") == "text" and it.get("text_level"):
                    headings.append((it["text_level"], it.get("text", "")))
            per_doc[d["name"]] = {
                "ok": True,
                "pages": pages,
                "source": source,
                "headings": headings,
            }
        tools[label] = per_doc
    tess = {}
    sample = []
    if os.path.exists(f"{work}/tesseract/sample.txt"):
        for line in open(f"{work}/tesseract/sample.txt"):
            path, page = line.split()
            name = os.path.basename(path)[:-4]
            sample.append((name, int(page) - 1))
            f = f"{work}/tesseract/{name}-{page}.txt"
            text = open(f, encoding="utf-8", errors="replace").read() if os.path.exists(f) else ""
            tess.setdefault(name, {})[int(page) - 1] = collections.Counter(words(text))

    # Per document.
    doc_rows = []
    totals = {label: [0, 0, 0] for label, _ in ROWS}
    heads = {label: [0, 0, 0, 0] for label, _ in ROWS}  # matched, same level, headings, entries
    no_layer = 0
    for d in docs:
        layer_pages = [p for p in range(d["pages"]) if d["ref"][p]]
        no_layer += d["pages"] - len(layer_pages)
        row = {
            "name": d["name"],
            "pages": d["pages"],
            "text_layer_pages": len(layer_pages),
            "producer": d["producer"],
            "outline_entries": len(d["outline"]),
            "tools": {},
        }
        for label, _ in ROWS:
            t = tools[label][d["name"]]
            if not t["ok"]:
                row["tools"][label] = {"ok": False, "reason": t["reason"]}
                continue
            m, nr, nt = bag_scores(d["ref"], t["pages"], layer_pages)
            for i, v in enumerate((m, nr, nt)):
                totals[label][i] += v
            r = {
                "ok": True,
                "recall": ratio(m, nr),
                "precision": ratio(m, nt),
                "pages_from_layer": sum(1 for s in t["source"].values() if s == "layer"),
                "pages_ocr": sum(1 for s in t["source"].values() if s == "ocr"),
                "headings": len(t["headings"]),
            }
            if d["outline"]:
                hm, same, unmatched = heading_scores(d["outline"], t["headings"])
                hp, hr = ratio(hm, len(t["headings"])), ratio(hm, len(d["outline"]))
                r.update(
                    {
                        "heading_precision": hp,
                        "heading_recall": hr,
                        "heading_f1": f1(hp, hr),
                        "heading_level_agreement": ratio(same, hm),
                        "headings_not_in_outline": unmatched[:10],
                    }
                )
                for i, v in enumerate((hm, same, len(t["headings"]), len(d["outline"]))):
                    heads[label][i] += v
            row["tools"][label] = r
        if d["name"] in tess:
            pages = sorted(tess[d["name"]])
            layer = [p for p in pages if d["ref"][p]]
            m, nr, nt = bag_scores(d["ref"], tess[d["name"]], layer)
            row["tools"]["tesseract"] = {
                "sample_pages": len(pages),
                "recall": ratio(m, nr),
                "precision": ratio(m, nt),
            }
        doc_rows.append(row)

    # Overall rows.
    rows = [
        {
            "tool": "pdftotext -layout (the reference)",
            "recall": 1.0,
            "precision": 1.0,
            **speed("pdftotext", total_pages),
        }
    ]
    for label, title in ROWS:
        m, nr, nt = totals[label]
        hm, same, nh, ne = heads[label]
        hp, hr = ratio(hm, nh), ratio(hm, ne)
        failed = [d["name"] for d in docs if not tools[label][d["name"]]["ok"]]
        rows.append(
            {
                "tool": title,
                "key": label,
                "recall": ratio(m, nr),
                "precision": ratio(m, nt),
                "heading_precision": hp,
                "heading_recall": hr,
                "heading_f1": f1(hp, hr),
                "heading_level_agreement": ratio(same, hm),
                "failed_documents": failed,
                **speed(label, total_pages),
            }
        )
    if sample:
        # tesseract CLI and, for a side by side on the same pages, mineru ocr on the sample
        ref = {d["name"]: d for d in docs}
        tm = tn = tt = om = on = ot = 0
        for name, p in sample:
            if not ref[name]["ref"][p]:
                continue
            a = bag_scores(ref[name]["ref"], tess.get(name, {}), [p])
            tm, tn, tt = tm + a[0], tn + a[1], tt + a[2]
            t = tools["mineru_ocr"][name]
            if t["ok"]:
                b = bag_scores(ref[name]["ref"], t["pages"], [p])
                om, on, ot = om + b[0], on + b[1], ot + b[2]
        rows.append(
            {
                "tool": f"tesseract CLI (pdftoppm 150 dpi gray, {len(sample)} sample pages)",
                "key": "tesseract",
                "recall": ratio(tm, tn),
                "precision": ratio(tm, tt),
                **speed("tesseract", len(sample)),
            }
        )
        rows.append(
            {
                "tool": "mineru (rop, text: ocr) on the same sample pages",
                "key": "mineru_ocr_sample",
                "recall": ratio(om, on),
                "precision": ratio(om, ot),
            }
        )

    by = {r.get("key"): r for r in rows}
    auto, ocr = by["mineru_auto"], by["mineru_ocr"]
    speedup_cpu = round(ocr["cpu_s_per_page"] / auto["cpu_s_per_page"], 1)
    speedup_wall = round(ocr["wall_s"] / auto["wall_s"], 1)
    targets = {
        "words_0.995_on_born_digital": {
            k: (by[k]["recall"] or 0) >= 0.995 and (by[k]["precision"] or 0) >= 0.995
            for k in ("mineru_auto", "docling_auto", "mineru_ocr")
        },
        "heading_f1_0.9_with_outline": {
            k: None if by[k]["heading_f1"] is None else by[k]["heading_f1"] >= 0.9
            for k in ("mineru_auto", "docling_auto", "mineru_ocr")
        },
        "born_digital_20x_faster_than_forced_ocr": {
            "cpu_per_page_ratio": speedup_cpu,
            "wall_ratio": speedup_wall,
            "met": speedup_cpu >= 20,
        },
        "ocr_95pct_of_machine_limit": {
            "of_limit": ocr["of_machine_limit"],
            "met": (ocr["of_machine_limit"] or 0) >= 0.95,
        },
    }
    result = {
        "machine": {"cores": args.cores, "cpu": cpu_model(), "loadavg_after": os.getloadavg()},
        "command": f"bash bench/b7_documents/run.sh {args.max_pages}",
        "ropc": args.ropc,
        "documents": len(docs),
        "pages": total_pages,
        "pages_without_text_layer": no_layer,
        "documents_with_outline": sum(1 for d in docs if d["outline"]),
        "rows": rows,
        "targets": targets,
        "per_document": doc_rows,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    print_tables(result)


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def fmt(v, digits=3):
    return "-" if v is None else f"{v:.{digits}f}"


def print_tables(res):
    print(
        f"\n{res['documents']} documents, {res['pages']} pages "
        f"({res['pages_without_text_layer']} without a text layer), "
        f"{res['documents_with_outline']} with an outline; {res['machine']['cores']} cores"
    )
    print(
        "| tool | word recall | word precision | heading P / R / F1 | level agreement | "
        "pages/s | CPU-s/page | of the machine limit | load before |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in res["rows"]:
        head = "-"
        if r.get("heading_f1") is not None:
            head = (
                f"{fmt(r['heading_precision'])} / {fmt(r['heading_recall'])} / "
                f"{fmt(r['heading_f1'])}"
            )
        limit = r.get("of_machine_limit")
        print(
            f"| {r['tool']} | {fmt(r['recall'])} | {fmt(r['precision'])} | {head} | "
            f"{fmt(r.get('heading_level_agreement'))} | {fmt(r.get('pages_per_s'), 2)} | "
            f"{fmt(r.get('cpu_s_per_page'), 3)} | "
            f"{'-' if limit is None else f'{100 * limit:.0f}%'} | "
            f"{fmt(r.get('load_before'), 2)} |"
        )
    print(
        "\nper document: words recall/precision, heading F1 (mineru auto | mineru ocr | "
        "docling auto | tesseract sample)"
    )
    print("| document | pages | outline | mineru auto | mineru ocr | docling auto | tesseract |")
    print("|---|---|---|---|---|---|---|")
    for d in res["per_document"]:
        cells = []
        for k in ("mineru_auto", "mineru_ocr", "docling_auto", "tesseract"):
            t = d["tools"].get(k)
            if t is None:
                cells.append("-")
            elif t.get("ok") is False:
                cells.append("failed")
            else:
                c = f"{fmt(t['recall'])}/{fmt(t['precision'])}"
                if t.get("heading_f1") is not None:
                    c += f", F1 {fmt(t['heading_f1'])}"
                cells.append(c)
        print(
            f"| {d['name']} | {d['pages']} | {d['outline_entries'] or '-'} | "
            + " | ".join(cells)
            + " |"
        )
    t = res["targets"]
    print("\ntargets:", json.dumps(t))


if __name__ == "__main__":
    main()
