#!/usr/bin/env python3
"""B4's machine limit measured directly: Tesseract alone on pre-rendered pages, on every core.

Renders every page of the PDFs with `pdftoppm -r DPI -gray` (poppler, the rasterizer rop's
std.pdf.pages uses) into WORK, untimed, loads them into memory, then forks WORKERS processes,
each with one Tesseract engine (tesserocr on the system's libtesseract, PSM auto, LSTM, LANG,
the source resolution set as rop sets it) that take pages from one queue. Timed: from the moment
every engine is loaded to the last page's text. Nothing else runs: no rendering, no assembly,
no writing. Prints one JSON line: pages, wall_s, pages_per_s, cpu_s_per_page (the render CPU
of poppler and pypdfium2 per page, measured before, beside them), and writes
WORK/texts.jsonl (doc, page, text) for the agreement check.
"""

import argparse
import glob
import json
import multiprocessing as mp
import os
import subprocess
import sys
import tempfile
import time

os.environ["OMP_THREAD_LIMIT"] = "1"


def render_factor(ocr_cpu, render_cpu):
    """Render + OCR, the limit with poppler's render counted in, is Tesseract alone's rate times
    this: its OCR CPU per page over OCR plus render CPU per page, spread over the same cores."""
    return ocr_cpu / (ocr_cpu + render_cpu)


def render_cpu(pdfs, dpi):
    """CPU-s of rendering every page at dpi, gray: poppler (pdftoppm, to files) and pypdfium2
    (in memory, as raydata_ocr.py renders). For the report only: not part of the limit."""
    import pypdfium2

    before = os.times()
    for path in pdfs:
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(
                ["pdftoppm", "-r", str(dpi), "-gray", path, os.path.join(tmp, "p")], check=True
            )
    after = os.times()
    poppler = (
        after.children_user + after.children_system - before.children_user - before.children_system
    )
    cpu = time.process_time()
    for path in pdfs:
        pdf = pypdfium2.PdfDocument(path)
        for index in range(len(pdf)):
            pdf[index].render(scale=dpi / 72.0, grayscale=True).to_numpy()
        pdf.close()
    return poppler, time.process_time() - cpu


def prerender(pdfs, work, dpi):
    pages = []  # (doc, index, width, height, pixels)
    for path in pdfs:
        doc = os.path.basename(path)
        prefix = os.path.join(work, doc)
        subprocess.run(["pdftoppm", "-r", str(dpi), "-gray", path, prefix], check=True)
        files = sorted(
            glob.glob(glob.escape(prefix) + "-*.pgm"),
            key=lambda f: int(f.rsplit("-", 1)[1].split(".")[0]),
        )
        for index, name in enumerate(files):
            with open(name, "rb") as f:
                data = f.read()
            # Binary PGM: "P5\n<w> <h>\n<max>\n" then w*h bytes.
            fields = data.split(maxsplit=4)
            width, height = int(fields[1]), int(fields[2])
            pages.append((doc, index, width, height, data[len(data) - width * height :]))
    return pages


def worker(pages, lang, dpi, todo, done, barrier):
    import tesserocr

    api = tesserocr.PyTessBaseAPI(lang=lang, psm=tesserocr.PSM.AUTO, oem=tesserocr.OEM.LSTM_ONLY)
    barrier.wait()
    while True:
        i = todo.get()
        if i is None:
            break
        doc, index, width, height, pixels = pages[i]
        cpu = time.process_time()
        api.SetImageBytes(pixels, width, height, 1, width)
        api.SetSourceResolution(dpi)
        text = api.GetUTF8Text()
        done.put((i, text, time.process_time() - cpu))
    api.End()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", required=True)
    parser.add_argument("--dpi", type=int, default=150)
    parser.add_argument("--lang", default="eng")
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    parser.add_argument("pdfs", nargs="+")
    args = parser.parse_args()

    os.makedirs(args.work, exist_ok=True)
    pages = prerender(args.pdfs, args.work, args.dpi)
    poppler_cpu, pdfium_cpu = render_cpu(args.pdfs, args.dpi)
    ctx = mp.get_context("fork")  # the children share the loaded pages
    todo, done = ctx.Queue(), ctx.Queue()
    for i in range(len(pages)):
        todo.put(i)
    for _ in range(args.workers):
        todo.put(None)
    barrier = ctx.Barrier(args.workers + 1)
    procs = [
        ctx.Process(target=worker, args=(pages, args.lang, args.dpi, todo, done, barrier))
        for _ in range(args.workers)
    ]
    for p in procs:
        p.start()
    barrier.wait()  # every engine is loaded
    start = time.monotonic()
    texts, cpu = {}, 0.0
    for _ in pages:
        i, text, seconds = done.get()
        texts[i] = text
        cpu += seconds
    wall = time.monotonic() - start
    for p in procs:
        p.join()
    with open(os.path.join(args.work, "texts.jsonl"), "w") as f:
        for i, (doc, index, *_rest) in enumerate(pages):
            f.write(json.dumps({"doc": doc, "page": index, "text": texts[i]}) + "\n")
    print(
        json.dumps(
            {
                "pages": len(pages),
                "workers": args.workers,
                "wall_s": round(wall, 3),
                "pages_per_s": round(len(pages) / wall, 4),
                "cpu_s_per_page": round(cpu / len(pages), 4),
                "render_poppler_cpu_s_per_page": round(poppler_cpu / len(pages), 4),
                "render_pdfium_cpu_s_per_page": round(pdfium_cpu / len(pages), 4),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
