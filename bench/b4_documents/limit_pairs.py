#!/usr/bin/env python3
"""B4's rop row against Tesseract alone in back-to-back pairs (docs/benchmarks.md, "B4 against
a peer"): the machine's speed moves by up to 20% between minutes, so each pair runs rop's
binary, then tesseract_limit.py right after it, and the ratio is taken within the pair.

Usage: limit_pairs.py --bin BINARY [--pairs N] [--python VENV_PYTHON] [--work DIR] [PDF...]
  BINARY   the mineru binary with `text: ocr` that run_b4_peer.sh builds
           (bench/results/b4/work/mineru-peer)
  PDF...   default: B4's corpus (examples/mineru/in/*.pdf and two of Debian's manuals)
Prints one line per pair (rop's wall and CPU, Tesseract alone's wall and CPU per page, the
ratio alone / rop, and the same against render + OCR) and the median ratios. Same settings as
run_b4_peer.sh: 150 dpi gray, eng, OMP_THREAD_LIMIT=1, 2 engines.
"""

import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import time

from tesseract_limit import render_factor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--python", default=os.path.join(ROOT, "bench", ".venv", "bin", "python"))
    parser.add_argument(
        "--work", default=os.path.join(ROOT, "bench", "results", "b4", "work", "pairs")
    )
    parser.add_argument("pdfs", nargs="*")
    args = parser.parse_args()
    pdfs = [os.path.abspath(p) for p in args.pdfs] or (
        sorted(glob.glob(os.path.join(ROOT, "examples", "mineru", "in", "*.pdf")))
        + [
            "/usr/share/doc/libtasn1-doc/libtasn1.pdf",
            "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf",
        ]
    )
    work = args.work
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    manifest = os.path.join(work, "inputs.jsonl")
    with open(manifest, "w") as f:
        for pdf in pdfs:
            f.write(json.dumps({"path": pdf}) + "\n")
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    print("load before: %.2f %.2f %.2f" % os.getloadavg(), flush=True)
    ratios, render_ratios = [], []
    for i in range(args.pairs):
        out = os.path.join(work, "out")
        shutil.rmtree(out, ignore_errors=True)
        start = time.monotonic()
        proc = subprocess.Popen(
            [
                args.bin,
                "--input",
                "files=" + manifest,
                "--output",
                f"md={out}/md",
                "--output",
                f"list={out}/list",
                "--no-progress",
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _, status, usage = os.wait4(proc.pid, 0)
        rop_wall = time.monotonic() - start
        if os.waitstatus_to_exitcode(status) not in (0, 3):
            raise SystemExit(f"limit_pairs: {args.bin} exited {status}")
        result = subprocess.run(
            [
                args.python,
                os.path.join(HERE, "tesseract_limit.py"),
                "--work",
                os.path.join(work, "limit"),
                "--dpi",
                "150",
                "--lang",
                "eng",
                "--workers",
                "2",
                *pdfs,
            ],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        alone = json.loads(result.stdout.strip().splitlines()[-1])
        ratio = alone["wall_s"] / rop_wall
        ratios.append(ratio)
        ocr = alone["cpu_s_per_page"]
        render_ratio = ratio / render_factor(ocr, alone["render_poppler_cpu_s_per_page"])
        render_ratios.append(render_ratio)
        print(
            f"pair {i + 1}: rop {rop_wall:.2f} s ({usage.ru_utime + usage.ru_stime:.1f} CPU-s), "
            f"Tesseract alone {alone['wall_s']:.2f} s ({ocr:.3f} CPU-s/page), rop at "
            f"{ratio:.1%} of it, {render_ratio:.1%} of render + OCR",
            flush=True,
        )
    load = "%.2f %.2f %.2f" % os.getloadavg()
    print(
        f"median: rop at {statistics.median(ratios):.1%} of Tesseract alone "
        f"({min(ratios):.1%}-{max(ratios):.1%}), {statistics.median(render_ratios):.1%} of "
        f"render + OCR; load after: {load}"
    )


if __name__ == "__main__":
    main()
