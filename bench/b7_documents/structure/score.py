#!/usr/bin/env python3
"""B7 structure scores: headings, list items, code blocks and tables against a known truth.

Reads what bench/b7_documents/structure/run.sh left in --work (the corpus with one
NAME.truth.json per document, written by make_corpus.py, and each mode's content lists) and
writes the JSON given by --out; prints Markdown tables.

Text. As bench/b7_documents/score.py: Unicode NFKC, case-folded, a word is a maximal run of
letters and digits (every other character separates words). A bag is a multiset of words;
common(a, b) = the sum over words of min(count in a, count in b); Dice(a, b) = 2 common /
(|a| + |b|).

What a mode's content list holds (per page_idx):
  heading    an item of type text with a text_level (or of type title); its level the text_level
  list item  each entry of a list item's list_items, its marker ("•", "-", "1.", "a)", "(iv)")
             dropped
  code block a code item's code_body (MinerU 3's ``` fences dropped)
  table      a table item's table_body, its cells the <td> of each <tr>

Matching. A truth item and a tool item can match only on the same page (the truth's page is
where the item lies in the PDF's text layer); each matches at most one, pairs taken best score
first.
  headings    Dice >= 0.8 of the two titles' words after the leading numbering is dropped
              (numbers, single letters, roman numerals, "chapter", "appendix", "part",
              "section": score.py's title_key), so "2.1 Installing" matches "Installing";
              level agreement = matched headings whose text_level is the truth's level
  list items  Dice >= 0.8 of the item texts' words (marker dropped on both sides)
  code, tables  overlapping words: common >= half the truth item's words and >= half the tool
              item's words (the block is mostly the other one; a block split in two matches
              with at most one half, a block merged with its neighbours with none)
precision = matched tool items / tool items, recall = matched truth items / truth items, summed
over the documents before dividing; F1 = 2PR / (P + R).
  code lines  the truth's non-blank code lines found verbatim in the matched tool block: NFKC,
              trailing spaces dropped, the indentation relative to the block's least indented
              line kept, each tool line used once; lines of an unmatched block count as missed
  table cells the truth's non-empty cells (as words joined by one space) found as a cell of
              the matched tool table, each tool cell used once; cells of an unmatched table
              count as missed. A table without a grid (rop writes one cell per line of its
              text) finds no cell of several columns.
  cells in place  the same, but a cell counts only in its row and column: truth and tool rows
              are paired as blocks are (overlapping words), and the paired row's cell in the
              same column must have the cell's words (a table read column by column, one cell
              per line, finds its cells' texts but none in place)
For every truth item left unmatched the JSON names what the mode made of its words: the tool
item on that page holding most of them (its type, and "merged" when it holds twice as many
words or more), or "absent" when no single item holds half of them.
"""
import argparse
import collections
import glob
import html
import json
import os
import re
import subprocess
import sys
import unicodedata

# Text, titles and the content list's items as B7's scorer reads them (one definition there).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from score import ROWS, f1, item_text, ratio, title_key, words  # noqa: E402

# B7's three pipelines, and docling under OCR (std.ocr.RegionText reads every region: the path
# a scanned page takes), which only this corpus scores.
STRUCTURE_ROWS = ROWS + [("docling_ocr", "docling (rop, text: ocr)")]

MARKER = re.compile(
    r"^\s*(?:[\u2022\u25cf\u25aa\u25a0\u25e6\u00b7\u2013*-]|\(?(?:\d{1,3}|[A-Za-z]|[ivxlc]{2,6})"
    r"[.)])\s+"
)


def bag(text):
    return collections.Counter(words(text))


def common(a, b):
    return sum((a & b).values())


def size(a):
    return sum(a.values())


def dice(a, b):
    total = size(a) + size(b)
    return 2 * common(a, b) / total if total else 0.0


def code_body(body):
    lines = body.split("\n")
    if lines and lines[0].startswith("```"):
        lines = lines[1:]
        if lines and lines[-1].strip() == "```":
            lines = lines[:-1]
    return "\n".join(lines)


def table_rows(body):
    rows = []
    for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S):
        cells = re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", tr, re.S)
        rows.append([html.unescape(re.sub(r"<[^>]+>", " ", c)).strip() for c in cells])
    return rows


def code_lines(text):
    """Non-blank lines, NFKC, trailing spaces dropped, indentation relative to the least."""
    lines = [unicodedata.normalize("NFKC", x).rstrip() for x in text.split("\n")]
    lines = [x for x in lines if x.strip()]
    if not lines:
        return collections.Counter()
    least = min(len(x) - len(x.lstrip(" ")) for x in lines)
    return collections.Counter(x[least:] for x in lines)


def cells_in_place(truth_rows, tool_rows):
    """Truth cells found at their place: truth and tool rows paired one to one by overlapping
    words (as blocks are), then a cell counts when the paired row's cell in the same column
    has the same words."""
    key = lambda c: " ".join(words(c))
    t_rows = [{"page": 0, "bag": bag(" ".join(r)), "cells": r} for r in truth_rows]
    u_rows = [{"page": 0, "bag": bag(" ".join(r)), "cells": r} for r in tool_rows]
    pairs = match(t_rows, u_rows, overlapping, lambda t, u: common(t["bag"], u["bag"]))
    found = 0
    for i, j in pairs.items():
        tc, uc = t_rows[i]["cells"], u_rows[j]["cells"]
        found += sum(1 for k, c in enumerate(tc) if key(c) and k < len(uc) and key(uc[k]) == key(c))
    return found


def cell_keys(rows):
    return collections.Counter(" ".join(words(c)) for row in rows for c in row if words(c))


def truth_items(truth):
    out = {"heading": [], "list_item": [], "code": [], "table": []}
    for b in truth["blocks"]:
        t = b["type"]
        if t == "heading":
            out[t].append({**b, "bag": collections.Counter(title_key(b["text"]).split())})
        elif t == "list_item":
            out[t].append({**b, "bag": bag(b["text"])})
        elif t == "code":
            out[t].append({**b, "bag": bag(b["text"])})
        elif t == "table":
            text = " ".join(c for row in b["rows"] for c in row)
            out[t].append({**b, "bag": bag(text)})
    return out


def tool_items(items):
    out = {"heading": [], "list_item": [], "code": [], "table": [], "all": []}
    for it in items:
        p = it.get("page_idx", 0)
        t = it.get("type")
        level = it.get("text_level") or (1 if t == "title" else 0)
        label = "heading" if t in ("text", "title") and level else t
        out["all"].append({"page": p, "type": label, "bag": bag(item_text(it)), "item": it})
        if label == "heading":
            text = it.get("text", "")
            out["heading"].append(
                {
                    "page": p,
                    "level": level,
                    "text": text,
                    "bag": collections.Counter(title_key(text).split()),
                }
            )
        elif t == "list":
            for s in it.get("list_items", []):
                text = MARKER.sub("", s, count=1)
                out["list_item"].append({"page": p, "text": text, "bag": bag(text)})
        elif t == "code":
            text = code_body(it.get("code_body", ""))
            out["code"].append({"page": p, "text": text, "bag": bag(text)})
        elif t == "table":
            rows = table_rows(it.get("table_body", ""))
            text = " ".join(c for row in rows for c in row)
            out["table"].append({"page": p, "rows": rows, "text": text, "bag": bag(text)})
    return out


def close_text(t, u):
    return dice(t["bag"], u["bag"]) >= 0.8


def overlapping(t, u):
    c = common(t["bag"], u["bag"])
    return c > 0 and c >= 0.5 * size(t["bag"]) and c >= 0.5 * size(u["bag"])


def match(truth, tool, ok, score):
    """{truth index: tool index}, one to one, same page, best score first."""
    pairs = []
    for i, t in enumerate(truth):
        for j, u in enumerate(tool):
            if t["page"] == u["page"] and ok(t, u):
                pairs.append((score(t, u), i, j))
    pairs.sort(key=lambda x: (-x[0], x[1], x[2]))
    used, out = set(), {}
    for _, i, j in pairs:
        if i in out or j in used:
            continue
        out[i] = j
        used.add(j)
    return out


def where(t, all_items):
    """What the mode made of an unmatched truth item's words (the item's whole text, its
    numbering included): the one tool item on its page that holds 80% of them, one that holds
    its first words in order before others ("merged" when it has twice as many words or more); else the items whose words are 70% its own, when there
    are several and together they hold half of them ("split"); else one item that holds half;
    else "absent"."""
    want = bag(t["text"]) if t["type"] == "heading" else t["bag"]
    n = size(want)
    held = [(common(want, u["bag"]), u) for u in all_items if u["page"] == t["page"]]
    held = [(c, u) for c, u in held if c > 0]

    def one(c, u):
        text = item_text(u["item"]).replace("\n", " / ")
        merged = size(u["bag"]) >= 2 * n
        return {
            "as": u["type"] + (" (merged)" if merged else ""),
            "held": c,
            "of": n,
            "tool_text": text[:100],
        }

    def in_order(u):  # the item holds the truth's first words one after another
        first = words(t["text"] if t["type"] != "table" else " ".join(t["rows"][0]))[:8]
        return f" {' '.join(first)} " in f" {' '.join(words(item_text(u['item'])))} "

    whole = [(c, u) for c, u in held if c >= 0.8 * n]
    if whole:
        return one(*max(whole, key=lambda x: (in_order(x[1]), x[0], -size(x[1]["bag"]))))
    parts = [(c, u) for c, u in held if c >= 0.7 * size(u["bag"])]
    together = common(want, sum((u["bag"] for _, u in parts), collections.Counter()))
    if len(parts) > 1 and together >= 0.5 * n:
        types = collections.Counter(u["type"] for _, u in parts)
        return {
            "as": types.most_common(1)[0][0] + " (split)",
            "held": together,
            "of": n,
            "parts": len(parts),
            "tool_text": " || ".join(item_text(u["item"])[:40] for _, u in parts),
        }
    half = [(c, u) for c, u in held if c >= 0.5 * n]
    if half:
        return one(*max(half, key=lambda x: x[0]))
    return {"as": "absent", "held": max((c for c, _ in held), default=0), "of": n}


KINDS = ("heading", "list_item", "code", "table")


def score_doc(truth, items):
    """Counts for one document and one mode, and its misses and extras."""
    T = truth_items(truth)
    U = tool_items(items)
    res = {"counts": {}, "misses": [], "extras": [], "breakdown": collections.defaultdict(list)}
    for kind in KINDS:
        ok = close_text if kind in ("heading", "list_item") else overlapping
        score = (
            (lambda t, u: dice(t["bag"], u["bag"]))
            if kind in ("heading", "list_item")
            else (lambda t, u: common(t["bag"], u["bag"]))
        )
        m = match(T[kind], U[kind], ok, score)
        c = {"truth": len(T[kind]), "tool": len(U[kind]), "matched": len(m)}
        if kind == "heading":
            c["same_level"] = sum(
                1 for i, j in m.items() if T[kind][i]["level"] == U[kind][j]["level"]
            )
        if kind == "code":
            c["lines"] = sum(size(code_lines(t["text"])) for t in T[kind])
            c["lines_found"] = sum(
                common(code_lines(T[kind][i]["text"]), code_lines(U[kind][j]["text"]))
                for i, j in m.items()
            )
        if kind == "table":
            c["cells"] = sum(size(cell_keys(t["rows"])) for t in T[kind])
            c["cells_found"] = sum(
                common(cell_keys(T[kind][i]["rows"]), cell_keys(U[kind][j]["rows"]))
                for i, j in m.items()
            )
            c["cells_in_place"] = sum(
                cells_in_place(T[kind][i]["rows"], U[kind][j]["rows"]) for i, j in m.items()
            )
            c["same_shape"] = sum(
                1
                for i, j in m.items()
                if len(U[kind][j]["rows"]) == len(T[kind][i]["rows"])
                and all(len(r) == len(T[kind][i]["rows"][0]) for r in U[kind][j]["rows"])
            )
        res["counts"][kind] = c
        for i, t in enumerate(T[kind]):
            found = i in m
            # per attribute: headings by level and numbering, items by list style, tables by rules
            if kind == "heading":
                res["breakdown"][f"heading L{t['level']}"].append(found)
                res["breakdown"][
                    "heading " + ("numbered" if t["numbered"] else "unnumbered")
                ].append(found)
            elif kind == "list_item":
                res["breakdown"][f"list {t['list']}"].append(found)
            elif kind == "table":
                res["breakdown"][f"table {t['rules']}"].append(found)
                n_cells = size(cell_keys(t["rows"]))
                got = common(cell_keys(t["rows"]), cell_keys(U[kind][m[i]]["rows"])) if found else 0
                placed = cells_in_place(t["rows"], U[kind][m[i]]["rows"]) if found else 0
                res["breakdown"][f"table cells {t['rules']}"] += [True] * got + [False] * (
                    n_cells - got
                )
                res["breakdown"][f"table cells in place {t['rules']}"] += [True] * placed + [
                    False
                ] * (n_cells - placed)
            if not found:
                text = t.get("text") or " | ".join(t["rows"][0])
                res["misses"].append(
                    {
                        "kind": kind,
                        "page": t["page"],
                        "text": text.replace("\n", " / ")[:80],
                        **({"level": t["level"]} if kind == "heading" else {}),
                        **({"rules": t["rules"]} if kind == "table" else {}),
                        **where(t, U["all"]),
                    }
                )
            elif kind == "heading" and t["level"] != U[kind][m[i]]["level"]:
                res["misses"].append(
                    {
                        "kind": "heading level",
                        "page": t["page"],
                        "text": t["text"][:80],
                        "level": t["level"],
                        "tool_level": U[kind][m[i]]["level"],
                    }
                )
        used = set(m.values())
        for j, u in enumerate(U[kind]):
            if j not in used:
                text = u.get("text", "")
                res["extras"].append(
                    {"kind": kind, "page": u["page"], "text": text.replace("\n", " / ")[:80]}
                )
    return res


def rates(c):
    """Precision, recall and the rest from summed counts."""
    out = {}
    h, li, co, ta = (c[k] for k in KINDS)
    hp, hr = ratio(h["matched"], h["tool"]), ratio(h["matched"], h["truth"])
    out.update(
        {
            "heading_precision": hp,
            "heading_recall": hr,
            "heading_f1": f1(hp, hr),
            "heading_level_agreement": ratio(h["same_level"], h["matched"]),
            "list_precision": ratio(li["matched"], li["tool"]),
            "list_recall": ratio(li["matched"], li["truth"]),
            "code_precision": ratio(co["matched"], co["tool"]),
            "code_recall": ratio(co["matched"], co["truth"]),
            "code_line_recall": ratio(co["lines_found"], co["lines"]),
            "table_precision": ratio(ta["matched"], ta["tool"]),
            "table_recall": ratio(ta["matched"], ta["truth"]),
            "table_cell_recall": ratio(ta["cells_found"], ta["cells"]),
            "table_cells_in_place": ratio(ta["cells_in_place"], ta["cells"]),
            "table_same_shape": ta["same_shape"],
        }
    )
    return out


def add_counts(total, c):
    for kind, d in c.items():
        for k, v in d.items():
            total.setdefault(kind, collections.Counter())[k] += v


def git(root, *args):
    try:
        return subprocess.run(
            ["git", "-C", root, *args], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--ropc", default="")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    work = args.work
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

    truths = [
        json.load(open(f))
        for f in sorted(glob.glob(f"{work}/corpus/*.truth.json"), key=lambda f: order_of(work, f))
    ]
    times = {}
    if os.path.exists(f"{work}/runs/times.txt"):
        for line in open(f"{work}/runs/times.txt"):
            label, wall_ms, rc = line.split()
            times[label] = {"wall_s": int(wall_ms) / 1000, "rc": int(rc)}

    rows, per_doc, breakdown = [], {t["name"]: {} for t in truths}, {}
    for label, title in STRUCTURE_ROWS:
        total = {}
        kinds = collections.defaultdict(list)
        missed_as = collections.defaultdict(collections.Counter)
        failed = []
        for truth in truths:
            files = glob.glob(f"{work}/{label}/out/list/{truth['name']}*.json")
            if not files:
                failed.append(truth["name"])
                items = []
            else:
                items = json.load(open(files[0]))
            r = score_doc(truth, items)
            add_counts(total, r["counts"])
            for k, v in r["breakdown"].items():
                kinds[k] += v
            for x in r["misses"]:
                missed_as[x["kind"]][x.get("as", f"tool level {x.get('tool_level')}")] += 1
            per_doc[truth["name"]][label] = {
                "ok": bool(files),
                **rates(r["counts"]),
                "counts": r["counts"],
                "misses": r["misses"],
                "extras": r["extras"],
            }
        rows.append(
            {
                "mode": title,
                "key": label,
                **rates(total),
                "counts": {k: dict(v) for k, v in total.items()},
                "missed_as": {k: dict(v) for k, v in sorted(missed_as.items())},
                "failed_documents": failed,
                **times.get(label, {}),
            }
        )
        breakdown[label] = {k: [sum(v), len(v)] for k, v in sorted(kinds.items())}

    corpus = []
    for t in truths:
        n = collections.Counter(b["type"] for b in t["blocks"])
        corpus.append(
            {
                "name": t["name"],
                "pages": t["pages"],
                "font_family": t["font_family"],
                "outline": t["outline"],
                "heading_sizes_pt": t["heading_sizes_pt"],
                "headings": n["heading"],
                "list_items": n["list_item"],
                "code_blocks": n["code"],
                "tables": n["table"],
                "table_cells": sum(
                    size(cell_keys(b["rows"])) for b in t["blocks"] if b["type"] == "table"
                ),
            }
        )
    result = {
        "command": "bash bench/b7_documents/structure/run.sh",
        "date_utc": subprocess.run(
            ["date", "-u", "+%Y-%m-%d %H:%M"], capture_output=True, text=True
        ).stdout.strip(),
        "commit": git(root, "rev-parse", "--short", "HEAD"),
        "ropc": args.ropc,
        "machine": {"cores": os.cpu_count(), "loadavg_after": os.getloadavg()},
        "corpus": corpus,
        "rows": rows,
        "breakdown": breakdown,
        "per_document": per_doc,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    print_tables(result)


def order_of(work, path):
    """The corpus's order (corpus.jsonl), else by name."""
    names = []
    manifest = f"{work}/corpus/corpus.jsonl"
    if os.path.exists(manifest):
        names = [os.path.basename(json.loads(x)["path"])[:-4] for x in open(manifest)]
    name = os.path.basename(path)[: -len(".truth.json")]
    return (names.index(name) if name in names else len(names), name)


def fmt(v):
    return "-" if v is None else f"{v:.3f}"


def print_tables(res):
    c = res["corpus"]
    print(
        f"\n{len(c)} documents, {sum(d['pages'] for d in c)} pages: "
        f"{sum(d['headings'] for d in c)} headings, {sum(d['list_items'] for d in c)} list "
        f"items, {sum(d['code_blocks'] for d in c)} code blocks, {sum(d['tables'] for d in c)} "
        f"tables ({sum(d['table_cells'] for d in c)} cells)"
    )
    print(
        "\n| mode | heading P / R / F1 | level agreement | list items P / R | code blocks P / R "
        "| code lines found | tables P / R | table cells found | cells in place |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in res["rows"]:
        print(
            f"| {r['mode']} | {fmt(r['heading_precision'])} / {fmt(r['heading_recall'])} / "
            f"{fmt(r['heading_f1'])} | {fmt(r['heading_level_agreement'])} | "
            f"{fmt(r['list_precision'])} / {fmt(r['list_recall'])} | "
            f"{fmt(r['code_precision'])} / {fmt(r['code_recall'])} | {fmt(r['code_line_recall'])} "
            f"| {fmt(r['table_precision'])} / {fmt(r['table_recall'])} | "
            f"{fmt(r['table_cell_recall'])} | {fmt(r['table_cells_in_place'])} |"
        )
    print("\nfound / in the truth, by kind:")
    keys = sorted({k for b in res["breakdown"].values() for k in b})
    print("| kind | " + " | ".join(r["key"] for r in res["rows"]) + " |")
    print("|---|" + "---|" * len(res["rows"]))
    for k in keys:
        cells = []
        for r in res["rows"]:
            v = res["breakdown"][r["key"]].get(k)
            cells.append("-" if v is None else f"{v[0]}/{v[1]}")
        print(f"| {k} | " + " | ".join(cells) + " |")
    print(
        "\nwhat the misses became (truth items left unmatched, by the tool item holding most words):"
    )
    for r in res["rows"]:
        print(
            f"- {r['key']}: "
            + "; ".join(
                f"{k}: " + ", ".join(f"{n} {a}" for a, n in sorted(v.items(), key=lambda x: -x[1]))
                for k, v in r["missed_as"].items()
            )
        )
    print("\nper document: heading F1, list R, code R, table R, cells found")
    print("| document | pages | " + " | ".join(r["key"] for r in res["rows"]) + " |")
    print("|---|---|" + "---|" * len(res["rows"]))
    for d in c:
        cells = []
        for r in res["rows"]:
            t = res["per_document"][d["name"]][r["key"]]
            cells.append(
                f"{fmt(t['heading_f1'])}, {fmt(t['list_recall'])}, {fmt(t['code_recall'])}, "
                f"{fmt(t['table_recall'])}, {fmt(t['table_cell_recall'])}"
            )
        print(f"| {d['name']} | {d['pages']} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
