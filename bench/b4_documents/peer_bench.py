#!/usr/bin/env python3
"""B4 against a peer: rop's mineru (text: ocr) beside the same work as a Ray Data pipeline and
beside Tesseract alone on pre-rendered pages (the machine's limit), interleaved in one run.

Called by run_b4_peer.sh (which installs bench/.venv and builds the rop binary); see that file
and docs/benchmarks.md (B4) for what each row is. Standard library only.
"""

import argparse
import html
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
import unicodedata

from tesseract_limit import render_factor


def busy_jiffies():
    """(busy, total) jiffies of all CPUs since boot, from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return sum(fields) - idle, sum(fields)


def timed(cmd, log, env=None):
    """Runs cmd; returns (wall s, children CPU s, machine busy cores, stdout)."""
    ticks = os.sysconf("SC_CLK_TCK")
    busy0, _ = busy_jiffies()
    start = time.monotonic()
    with open(log, "a") as err:
        err.write("$ " + " ".join(cmd) + "\n")
        err.flush()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, env=env, text=True)
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    busy1, _ = busy_jiffies()
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 3):  # 3: rop's "some roots failed", reported in the row
        raise SystemExit(f"b4-peer: {' '.join(cmd)} exited {code} (see {log})")
    return wall, usage.ru_utime + usage.ru_stime, (busy1 - busy0) / ticks / wall, out


def words(text):
    """B7's words: NFKC, case-folded, runs of letters and digits."""
    return re.findall(r"[^\W_]+", unicodedata.normalize("NFKC", text).casefold())


def bags_from_rop(list_dir):
    pages = {}
    for name in sorted(os.listdir(list_dir)):
        if name.startswith(".") or not name.endswith(".json"):
            continue  # the sink's own bookkeeping (.rop-names)
        doc = name[: -len(".json")] + ".pdf"
        for item in json.load(open(os.path.join(list_dir, name))):
            key = (doc, item.get("page_idx", -1))
            # MinerU's shape: a list's, code's or table's words are in its own field, no "text"
            text = (
                item.get("text")
                or "\n".join(item.get("list_items", []))
                or item.get("code_body", "")
                or re.sub(r"<[^>]+>", " ", item.get("table_body", ""))
            )
            pages.setdefault(key, []).extend(words(html.unescape(text)))
    return pages


def bags_from_jsonl(paths):
    pages = {}
    for path in paths:
        for line in open(path):
            if line.strip():
                row = json.loads(line)
                pages.setdefault((row["doc"], row["page"]), []).extend(words(row["text"]))
    return pages


def agreement(reference, other):
    """Word agreement over pages: matched = sum over pages and words of min counts."""
    from collections import Counter

    matched = ref_total = other_total = 0
    for key in set(reference) | set(other):
        a, b = Counter(reference.get(key, [])), Counter(other.get(key, []))
        matched += sum((a & b).values())
        ref_total += sum(a.values())
        other_total += sum(b.values())
    return {
        "recall": round(matched / max(ref_total, 1), 4),
        "precision": round(matched / max(other_total, 1), 4),
        "f1": round(2 * matched / max(ref_total + other_total, 1), 4),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="the rop mineru binary (text: ocr)")
    parser.add_argument("--python", required=True, help="bench/.venv's python")
    parser.add_argument("--work", required=True)
    parser.add_argument("--result", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--serial", type=int, default=1, help="run B4's serial row (t_page)")
    parser.add_argument("--dpi", type=int, default=150)
    parser.add_argument("--lang", default="eng")
    parser.add_argument("pdfs", nargs="+")
    args = parser.parse_args()

    here = os.path.dirname(os.path.abspath(__file__))
    cores = os.cpu_count()
    work = args.work
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    log = os.path.join(work, "runs.log")
    manifest = os.path.join(work, "corpus.jsonl")
    with open(manifest, "w") as f:
        for pdf in args.pdfs:
            f.write(json.dumps({"path": os.path.abspath(pdf)}) + "\n")
    env = dict(os.environ, OMP_THREAD_LIMIT="1", RAY_DATA_DISABLE_PROGRESS_BARS="1")

    def rop(label, *extra):
        out = os.path.join(work, label)
        shutil.rmtree(out, ignore_errors=True)
        report = out + ".json"
        wall, cpu, busy, _ = timed(
            [
                args.bin,
                "--input",
                "files=" + manifest,
                "--output",
                f"md={out}/md",
                "--output",
                f"list={out}/list",
                "--report",
                report,
                "--no-progress",
                *extra,
            ],
            log,
            env,
        )
        calls = {c["name"]: c["grains"] for c in json.load(open(report))["calls"]}
        return {"wall_s": wall, "cpu_s": cpu, "busy_cores": busy, "pages": calls.get("ocr", 0)}

    def ray(label, block_pages):
        out = os.path.join(work, label)
        shutil.rmtree(out, ignore_errors=True)
        wall, cpu, busy, stdout = timed(
            [
                args.python,
                os.path.join(here, "raydata_ocr.py"),
                "--out",
                out,
                "--dpi",
                str(args.dpi),
                "--lang",
                args.lang,
                "--cores",
                str(cores),
                "--actors",
                "2",
                "--batch",
                "4",
                "--block-pages",
                str(block_pages),
                *args.pdfs,
            ],
            log,
            env,
        )
        inner = json.loads(stdout.strip().splitlines()[-1])
        return {
            "wall_s": wall,
            "cpu_s": cpu,
            "busy_cores": busy,
            "pages": inner["pages"],
            "init_s": inner["init_s"],
            "pipeline_s": inner["pipeline_s"],
        }

    def limit(label):
        out = os.path.join(work, label)
        shutil.rmtree(out, ignore_errors=True)
        _, _, busy, stdout = timed(
            [
                args.python,
                os.path.join(here, "tesseract_limit.py"),
                "--work",
                out,
                "--dpi",
                str(args.dpi),
                "--lang",
                args.lang,
                "--workers",
                str(cores),
                *args.pdfs,
            ],
            log,
            env,
        )
        inner = json.loads(stdout.strip().splitlines()[-1])
        # wall_s is the OCR alone (engines loaded, pages rendered), the process's is not used.
        return {
            "wall_s": inner["wall_s"],
            "cpu_s_per_page": inner["cpu_s_per_page"],
            "pages": inner["pages"],
            "render_poppler_cpu_s_per_page": inner["render_poppler_cpu_s_per_page"],
            "render_pdfium_cpu_s_per_page": inner["render_pdfium_cpu_s_per_page"],
        }

    rows = {"rop": [], "ray_default": [], "ray_page_blocks": [], "tesseract_alone": []}
    runs = {
        "rop": lambda r: rop(f"rop-{r}"),
        "ray_default": lambda r: ray(f"ray-default-{r}", 0),
        "ray_page_blocks": lambda r: ray(f"ray-pages-{r}", 1),
        "tesseract_alone": lambda r: limit(f"limit-{r}"),
    }
    load_before = os.getloadavg()
    serial = None
    if args.serial:
        print("== serial (1 OCR actor, 1 document in flight): B4's t_page", flush=True)
        serial = rop("serial", "--set", "ocr.actors=1", "--max-inflight-roots", "1")
    order = list(runs)
    for r in range(args.rounds):
        for name in order[r % len(order) :] + order[: r % len(order)]:  # rotate the order
            print(f"== round {r + 1}: {name}", flush=True)
            row = runs[name](r)
            print("   " + json.dumps({k: round(v, 3) for k, v in row.items()}), flush=True)
            rows[name].append(row)
    load_after = os.getloadavg()

    pages = rows["rop"][0]["pages"]
    counts = {name: sorted({row["pages"] for row in rs}) for name, rs in rows.items()}
    assert all(c == [pages] for c in counts.values()), f"page counts differ: {counts}"

    ref = bags_from_rop(os.path.join(work, "rop-0", "list"))

    def jsonl(d):
        return [os.path.join(d, n) for n in sorted(os.listdir(d)) if n.endswith("json")]

    agree = {
        "ray_vs_rop": agreement(ref, bags_from_jsonl(jsonl(os.path.join(work, "ray-default-0")))),
        "tesseract_alone_vs_rop": agreement(
            ref, bags_from_jsonl([os.path.join(work, "limit-0", "texts.jsonl")])
        ),
        "ray_vs_tesseract_alone": agreement(
            bags_from_jsonl([os.path.join(work, "limit-0", "texts.jsonl")]),
            bags_from_jsonl(jsonl(os.path.join(work, "ray-default-0"))),
        ),
    }

    def med(name, key):
        return statistics.median(row[key] for row in rows[name])

    limit_rate = pages / med("tesseract_alone", "wall_s")
    # The same limit with the render counted in: Tesseract alone's rate scaled by its OCR CPU
    # per page over OCR + poppler's render CPU per page, both measured in the same rounds (the
    # work every row must do; rop also assembles and writes, Ray writes).
    render_limit_rate = limit_rate * render_factor(
        med("tesseract_alone", "cpu_s_per_page"),
        med("tesseract_alone", "render_poppler_cpu_s_per_page"),
    )
    commit = subprocess.run(
        ["git", "-C", here, "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    result = {
        "commit": commit,
        "cores": cores,
        "documents": len(args.pdfs),
        "pages": pages,
        "rounds": args.rounds,
        "dpi": args.dpi,
        "lang": args.lang,
        "load_before": [round(v, 2) for v in load_before],
        "load_after": [round(v, 2) for v in load_after],
        "limit_tesseract_alone_pages_per_s": round(limit_rate, 3),
        "limit_render_and_ocr_pages_per_s": round(render_limit_rate, 3),
        "tesseract_alone_cpu_s_per_page": med("tesseract_alone", "cpu_s_per_page"),
        "render_cpu_s_per_page": {
            "poppler": med("tesseract_alone", "render_poppler_cpu_s_per_page"),
            "pdfium": med("tesseract_alone", "render_pdfium_cpu_s_per_page"),
        },
        "agreement": agree,
        "runs": rows,
        "rows": [],
    }
    if serial:
        t_page = serial["cpu_s"] / pages
        result["serial"] = serial
        result["t_page_s"] = round(t_page, 3)
        result["limit_b4_pages_per_s"] = round(cores / t_page, 3)
    for name in ("rop", "ray_default", "ray_page_blocks", "tesseract_alone"):
        wall = med(name, "wall_s")
        row = {
            "name": name,
            "wall_s": round(wall, 2),
            "walls": [round(r["wall_s"], 2) for r in rows[name]],
            "pages_per_s": round(pages / wall, 3),
            "of_tesseract_alone": round(pages / wall / limit_rate, 3),
            "of_render_and_ocr": round(pages / wall / render_limit_rate, 3),
        }
        if serial:
            row["of_b4_limit"] = round(pages / wall / result["limit_b4_pages_per_s"], 3)
        if name != "tesseract_alone":
            row["busy_cores"] = round(med(name, "busy_cores"), 2)
            row["machine_cpu_s_per_page"] = round(
                statistics.median(r["busy_cores"] * r["wall_s"] for r in rows[name]) / pages, 3
            )
        if name.startswith("ray"):
            row["init_s"] = round(med(name, "init_s"), 2)
            row["pipeline_s"] = round(med(name, "pipeline_s"), 2)
            row["pipeline_pages_per_s"] = round(pages / med(name, "pipeline_s"), 3)
            row["rop_speedup"] = round(med(name, "wall_s") / med("rop", "wall_s"), 3)
        result["rows"].append(row)
    json.dump(result, open(args.result, "w"), indent=2)

    print(
        f"\n{len(args.pdfs)} documents, {pages} pages, {cores} cores, median of {args.rounds}; "
        f"load {load_before[0]:.2f} before, {load_after[0]:.2f} after"
    )
    if serial:
        print(
            f"B4's limit: {cores} / t_page {result['t_page_s']} CPU-s = "
            f"{result['limit_b4_pages_per_s']} pages/s"
        )
    print(
        f"Tesseract alone on pre-rendered pages, {cores} processes: {limit_rate:.3f} pages/s, "
        f"{result['tesseract_alone_cpu_s_per_page']} CPU-s/page; render CPU-s/page: "
        + json.dumps(result["render_cpu_s_per_page"])
    )

    def pct(v):
        return "-" if v is None else f"{100 * v:.0f}%"

    print(
        f"render (poppler) + OCR, the same limit with the render counted in: "
        f"{render_limit_rate:.3f} pages/s"
    )
    print(
        "| row | wall s (runs) | pages/s | of Tesseract alone | of render + OCR | of B4's limit "
        "| busy cores |"
    )
    print("|---|---|---|---|---|---|---|")
    for row in result["rows"]:
        print(
            f"| {row['name']} | {row['wall_s']} ({', '.join(map(str, row['walls']))}) | "
            f"{row['pages_per_s']} | {pct(row['of_tesseract_alone'])} | "
            f"{pct(row['of_render_and_ocr'])} | {pct(row.get('of_b4_limit'))} | "
            f"{row.get('busy_cores', '-')} |"
        )
    for row in result["rows"]:
        if "rop_speedup" in row:
            print(
                f"rop / {row['name']}: {row['rop_speedup']}x end to end; Ray's own pipeline "
                f"time {row['pipeline_s']} s (+ {row['init_s']} s ray.init)"
            )
    print("word agreement:", json.dumps(agree))
    return 0


if __name__ == "__main__":
    sys.exit(main())
