"""The corpus histogram (issue 6: publish it): pages per root in log-2 bins, as a text table
(stdout and corpus_histogram.txt), plot data (corpus_histogram.dat) and an SVG (gnuplot)."""

import json
import os
import subprocess
import sys


def main():
    corpus = json.load(open(sys.argv[1]))
    out = sys.argv[2]
    pages = corpus["pages"]
    bins = [
        (1, 1),
        (2, 3),
        (4, 7),
        (8, 15),
        (16, 31),
        (32, 63),
        (64, 127),
        (128, 255),
        (256, 426),
        (427, 427),
    ]
    total = sum(pages)
    s = sorted(pages)
    lines = [
        f"corpus: {len(pages)} roots, {total} pages, {min(pages)}-{max(pages)} pages per root, "
        f"mean {total / len(pages):.1f}, median {s[len(s) // 2]}, p90 {s[int(0.9 * len(s))]}, "
        f"p99 {s[int(0.99 * len(s))]}; largest 5% of roots hold "
        f"{100 * sum(s[-max(1, len(s) // 20):]) / total:.1f}% of pages (seed {corpus['seed']})",
        "| pages per root | roots | % roots | pages | % pages |",
        "|---|---|---|---|---|",
    ]
    with open(os.path.join(out, "corpus_histogram.dat"), "w") as f:
        for lo, hi in bins:
            n = sum(1 for p in pages if lo <= p <= hi)
            pg = sum(p for p in pages if lo <= p <= hi)
            label = f"{lo}" if lo == hi else f"{lo}-{hi}"
            lines.append(
                f"| {label} | {n} | {100 * n / len(pages):.1f} | {pg} | {100 * pg / total:.1f} |"
            )
            f.write(f'"{label}" {n} {pg}\n')
    text = "\n".join(lines)
    print(text)
    open(os.path.join(out, "corpus_histogram.txt"), "w").write(text + "\n")
    script = """set terminal svg size 900,480 font 'sans,12'
set output 'corpus_histogram.svg'
set title 'Corpus: roots and pages by pages per root (log-2 bins)'
set style data histograms
set style fill solid 0.8 border -1
set ylabel 'roots'
set y2label 'pages'
set ytics nomirror
set y2tics
set grid ytics
plot 'corpus_histogram.dat' using 2:xtic(1) title 'roots' axes x1y1, '' using 3 title 'pages' axes x1y2
"""
    open(os.path.join(out, "histogram.gp"), "w").write(script)
    try:
        subprocess.run(["gnuplot", "histogram.gp"], cwd=out, check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"(gnuplot failed: {e})", file=sys.stderr)


if __name__ == "__main__":
    main()
