#!/usr/bin/env python3
"""B4's peer: the render + Tesseract OCR of B4's rop pipeline, written as a Ray Data pipeline.

PDF paths -> flat_map: render every page (pypdfium2, gray, DPI) -> map_batches: OCR on an actor
pool (tesserocr, one engine per actor, PSM auto, LSTM, LANG) -> one JSON line per page
(doc, page, text) under OUT. This is how a Ray Data user writes it; `--block-pages N` is the one
tuning knob (DataContext.target_max_block_size so that a rendered block holds about N pages and
reaches the actors while its document is still rendering; 0 keeps Ray's default of 128 MiB, where
a document's pages travel as one block and so go to one actor).

Prints one JSON line: pages, init_s (ray.init), pipeline_s (dataset built, executed, written).
Runs in bench/.venv (bench/b4_documents/run_b4_peer.sh installs it); rop does not depend on it.
"""

import argparse
import json
import os
import sys
import time

os.environ.setdefault("OMP_THREAD_LIMIT", "1")
os.environ.setdefault("RAY_DATA_DISABLE_PROGRESS_BARS", "1")

import numpy as np  # noqa: E402
import ray  # noqa: E402


def render_pages(row, dpi):
    import pypdfium2

    path = row["path"]
    pdf = pypdfium2.PdfDocument(path)
    try:
        for index in range(len(pdf)):
            page = pdf[index]
            bitmap = page.render(scale=dpi / 72.0, grayscale=True)
            yield {
                "doc": os.path.basename(path),
                "page": index,
                "image": np.ascontiguousarray(bitmap.to_numpy()),
            }
            page.close()
    finally:
        pdf.close()


class Ocr:
    def __init__(self, lang, dpi):
        import tesserocr

        self.dpi = dpi
        self.api = tesserocr.PyTessBaseAPI(
            lang=lang, psm=tesserocr.PSM.AUTO, oem=tesserocr.OEM.LSTM_ONLY
        )

    def __call__(self, batch):
        from PIL import Image

        texts = []
        for image in batch["image"]:
            self.api.SetImage(Image.fromarray(image))
            self.api.SetSourceResolution(self.dpi)
            texts.append(self.api.GetUTF8Text())
        return {"doc": batch["doc"], "page": batch["page"], "text": np.array(texts, dtype=object)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--dpi", type=int, default=150)
    parser.add_argument("--lang", default="eng")
    parser.add_argument("--cores", type=int, default=os.cpu_count())
    parser.add_argument("--actors", type=int, default=2)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--block-pages", type=int, default=0)
    parser.add_argument("pdfs", nargs="+")
    args = parser.parse_args()

    start = time.monotonic()
    ray.init(
        num_cpus=args.cores,
        include_dashboard=False,
        log_to_driver=False,
        object_store_memory=1 << 30,
        runtime_env={"env_vars": {"OMP_THREAD_LIMIT": "1"}},
    )
    ready = time.monotonic()
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    if args.block_pages > 0:
        # A gray page at 150 dpi is about 2 MB: blocks of about block_pages pages.
        page_bytes = (args.dpi * 8.5) * (args.dpi * 11)
        context.target_max_block_size = int(args.block_pages * page_bytes)

    # Both cores are the OCR actors'; rendering gets the small share left (as in rop, where
    # the render runs beside the OCR actors on the same cores).
    render_cpus = 0.25
    ocr_cpus = (args.cores - render_cpus) / args.actors
    ds = ray.data.from_items([{"path": os.path.abspath(p)} for p in args.pdfs])
    ds = ds.flat_map(render_pages, fn_kwargs={"dpi": args.dpi}, num_cpus=render_cpus)
    ds = ds.map_batches(
        Ocr,
        fn_constructor_kwargs={"lang": args.lang, "dpi": args.dpi},
        batch_size=args.batch,
        num_cpus=ocr_cpus,
        compute=ray.data.ActorPoolStrategy(size=args.actors),
    )
    ds.write_json(args.out)
    done = time.monotonic()
    pages = 0
    for name in os.listdir(args.out):
        with open(os.path.join(args.out, name)) as f:
            pages += sum(1 for line in f if line.strip())
    ray.shutdown()
    print(
        json.dumps(
            {
                "pages": pages,
                "init_s": round(ready - start, 3),
                "pipeline_s": round(done - ready, 3),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
