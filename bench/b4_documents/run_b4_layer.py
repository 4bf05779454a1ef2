#!/usr/bin/env python3
"""B4-layer: born-digital documents read from their text layer, against the machine's limit.

examples/mineru as it is (text: detect, render: needed: std.pdf.Render reads each page and draws
only the images a page needs) on born-digital PDFs, measured side by side in one run with:
  limit    the machine's limit for the same pages, all cores busy: poppler's text layer of every
           page (pdftotext) plus the render at the example's dpi (pdftoppm -r 150 -gray) of the
           share of pages the pipeline rendered (its report's `rendered` count): wall time of
           each over NPROC processes, each a contiguous page range of a document
  text     pdftotext of every page alone (all cores); render+text: pdftoppm + pdftotext of every
           page (all cores), the limit when every page needs its image
  after    the example's binary built by ROPC from this tree
  before   OLD_BIN, the same example built from an older commit (optional): the speedup
and one large document alone (BIG, default a 425-page pdfunite of glpk-doc's and libtasn1's
manuals), before and after. ROUNDS rounds (default 3), rows interleaved, medians reported.
Knobs (environment): ROPC (default build/ci/bin/ropc), OLD_BIN, OUT (default bench/results/b4),
PDFS (space-separated; default libtasn1, shared-mime-info-spec, glpk-doc's graphs and gmpl),
ROUNDS. Needs poppler-utils, libtasn1-doc, shared-mime-info and glpk-doc.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROPC = os.environ.get("ROPC", os.path.join(ROOT, "build/ci/bin/ropc"))
OLD_BIN = os.environ.get("OLD_BIN", "")
OUT = os.environ.get("OUT", os.path.join(ROOT, "bench/results/b4"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))
CORES = os.cpu_count() or 1
WORK = os.path.join(OUT, "layer-work")
DEFAULT_PDFS = [
    "/usr/share/doc/libtasn1-doc/libtasn1.pdf",
    "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf",
    "/usr/share/doc/glpk-doc/graphs.pdf",
    "/usr/share/doc/glpk-doc/gmpl.pdf",
]
BIG_PARTS = [
    "/usr/share/doc/glpk-doc/glpk.pdf",
    "/usr/share/doc/glpk-doc/gmpl.pdf",
    "/usr/share/doc/glpk-doc/graphs.pdf",
    "/usr/share/doc/libtasn1-doc/libtasn1.pdf",
    "/usr/share/doc/glpk-doc/gmpl_es.pdf",
]


def pages_of(pdf):
    info = subprocess.run(["pdfinfo", pdf], capture_output=True, text=True, check=True).stdout
    return next(int(line.split()[1]) for line in info.splitlines() if line.startswith("Pages:"))


def manifest(name, pdfs):
    path = os.path.join(WORK, name + ".jsonl")
    with open(path, "w") as out:
        for pdf in pdfs:
            out.write(json.dumps({"path": pdf}) + "\n")
    return path


def run_pipeline(binary, corpus, label):
    """Wall seconds of one run, and its report."""
    out = os.path.join(WORK, "out-" + label)
    shutil.rmtree(out, ignore_errors=True)
    report = os.path.join(WORK, label + ".json")
    start = time.monotonic()
    subprocess.run(
        [
            binary,
            "--input",
            "files=" + corpus,
            "--output",
            "md=" + out + "/md",
            "--output",
            "list=" + out + "/list",
            "--report",
            report,
            "--no-progress",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wall = time.monotonic() - start
    return wall, json.load(open(report))


def ranges(pdfs):
    """The pages of every document cut into CORES contiguous ranges of about equal size."""
    total = sum(n for _, n in pdfs)
    share = -(-total // CORES)
    out, current, size = [], [], 0
    for pdf, n in pdfs:
        first = 1
        while first <= n:
            take = min(n - first + 1, share - size)
            current.append((pdf, first, first + take - 1))
            size += take
            first += take
            if size == share:
                out.append(current)
                current, size = [], 0
    if current:
        out.append(current)
    return out


def poppler_wall(tool, pdfs):
    """Wall seconds of `tool` (pdftotext, or pdftoppm -r 150 -gray) over every page, CORES
    processes at once, each working through its page ranges."""
    # In memory where it can be: the images are written, as pdftoppm must, but not to a disk.
    scratch = os.path.join("/dev/shm" if os.path.isdir("/dev/shm") else WORK, "rop-b4-layer")
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    scripts = []
    for i, part in enumerate(ranges(pdfs)):
        commands = []
        for j, (pdf, first, last) in enumerate(part):
            target = os.path.join(scratch, f"{i}-{j}")
            if tool == "pdftotext":
                commands.append(f"pdftotext -f {first} -l {last} '{pdf}' '{target}.txt'")
            else:
                commands.append(f"pdftoppm -r 150 -gray -f {first} -l {last} '{pdf}' '{target}'")
        scripts.append(" && ".join(commands))
    start = time.monotonic()
    procs = [subprocess.Popen(["sh", "-c", s]) for s in scripts]
    for p in procs:
        if p.wait() != 0:
            sys.exit(f"b4-layer: {tool} failed")
    wall = time.monotonic() - start
    shutil.rmtree(scratch, ignore_errors=True)
    return wall


def counter(report, call, name):
    for c in report["calls"]:
        if c["name"] == call:
            return c.get("udf_counters", {}).get(name, 0)
    return 0


def main():
    if not os.access(ROPC, os.X_OK):
        sys.exit(f"b4-layer: no ropc at {ROPC}")
    pdfs = os.environ.get("PDFS", "").split() or DEFAULT_PDFS
    for pdf in pdfs + BIG_PARTS:
        if not os.access(pdf, os.R_OK):
            sys.exit(
                f"b4-layer: cannot read {pdf} (apt-get install libtasn1-doc "
                "shared-mime-info glpk-doc poppler-utils)"
            )
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    big = os.environ.get("BIG") or os.path.join(WORK, "big.pdf")
    if not os.environ.get("BIG"):
        subprocess.run(["pdfunite"] + BIG_PARTS + [big], check=True)
    corpus = [(pdf, pages_of(pdf)) for pdf in pdfs]
    n_pages = sum(n for _, n in corpus)
    big_pages = pages_of(big)
    shutil.copy(os.path.join(ROOT, "examples/mineru/mineru.rop"), WORK)
    after = os.path.join(WORK, "mineru")
    subprocess.run([ROPC, "build", "mineru.rop", "-o", after], cwd=WORK, check=True)
    corpus_jsonl = manifest("corpus", pdfs)
    big_jsonl = manifest("big", [big])

    load_before = os.getloadavg()[0]
    t = {k: [] for k in ["text", "render", "after", "before", "big_after", "big_before"]}
    rendered = read = 0
    big_rendered = 0
    for _ in range(ROUNDS):
        t["text"].append(poppler_wall("pdftotext", corpus))
        t["render"].append(poppler_wall("pdftoppm", corpus))
        wall, report = run_pipeline(after, corpus_jsonl, "after")
        t["after"].append(wall)
        rendered = counter(report, "images", "rendered")
        read = counter(report, "images", "read")
        if OLD_BIN:
            t["before"].append(run_pipeline(OLD_BIN, corpus_jsonl, "before")[0])
        wall, report = run_pipeline(after, big_jsonl, "big_after")
        t["big_after"].append(wall)
        big_rendered = counter(report, "images", "rendered")
        if OLD_BIN:
            t["big_before"].append(run_pipeline(OLD_BIN, big_jsonl, "big_before")[0])
    med = {k: statistics.median(v) for k, v in t.items() if v}
    share = rendered / n_pages
    limit_wall = med["text"] + share * med["render"]
    rows = [
        ("limit: text layer of every page + render of the rendered share, all cores", limit_wall),
        ("text layer alone (pdftotext), all cores", med["text"]),
        ("render + text layer of every page, all cores", med["text"] + med["render"]),
        ("rop after (examples/mineru)", med["after"]),
    ]
    if "before" in med:
        rows.append(("rop before (OLD_BIN)", med["before"]))
    result = {
        "cores": CORES,
        "documents": len(corpus),
        "pages": n_pages,
        "pages_read": read,
        "pages_rendered": rendered,
        "rounds": ROUNDS,
        "load_before": load_before,
        "load_after": os.getloadavg()[0],
        "walls": t,
        "limit_pages_per_s": n_pages / limit_wall,
        "after_pages_per_s": n_pages / med["after"],
        "after_of_limit": limit_wall / med["after"],
        "big": {"pages": big_pages, "pages_rendered": big_rendered, "after_s": med["big_after"]},
    }
    if "before" in med:
        result["before_pages_per_s"] = n_pages / med["before"]
        result["after_over_before"] = med["before"] / med["after"]
        result["big"]["before_s"] = med["big_before"]
        result["big"]["before_over_after"] = med["big_before"] / med["big_after"]
    json.dump(result, open(os.path.join(OUT, "b4_layer.json"), "w"), indent=2)
    print(
        f"\n{len(corpus)} documents, {n_pages} pages, {rendered} rendered; {CORES} cores; "
        f"median of {ROUNDS} rounds; load {load_before:.2f} before, "
        f"{result['load_after']:.2f} after"
    )
    print("| row | wall s | pages/s | of the limit |\n|---|---|---|---|")
    for name, wall in rows:
        print(f"| {name} | {wall:.2f} | {n_pages / wall:.1f} | {100 * limit_wall / wall:.0f}% |")
    line = (
        f"\none document of {big_pages} pages ({big_rendered} rendered) alone: after "
        f"{med['big_after']:.2f} s"
    )
    if "big_before" in med:
        line += f", before {med['big_before']:.2f} s: {med['big_before'] / med['big_after']:.2f}x"
    print(line)
    print(f"results: {os.path.join(OUT, 'b4_layer.json')}")


if __name__ == "__main__":
    main()
