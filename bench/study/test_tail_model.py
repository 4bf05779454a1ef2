"""ctest "bench: study: the regroup tail model" (issue 17): bench_study's --tail knobs, the ideal
bound with the lineage gather, flat-regroup's shuffle over N partitions after the last OCR batch.
Timing is checked only from below (a sleep never returns early), so a loaded machine cannot fail
it.

  python3 test_tail_model.py BENCH_STUDY
"""

import json
import subprocess
import sys

S = sys.argv[1]


def out(*args):
    return json.loads(subprocess.run([S, *args], check=True, capture_output=True, text=True).stdout)


def check(cond, what):
    if not cond:
        sys.exit(f"FAIL: {what}")
    print(f"ok: {what}")


# The knobs: --tail sets a mean page's move to that fraction of its OCR work (a quarter per row,
# three quarters per byte); the explicit costs override it.
c = out("corpus", "--scale", "0.02", "--tail", "0.2")["cost"]
ocr_per_page = (c["ocr_batch"] + c["ocr_page"] * c["cap"]) / c["cap"]
check(abs(c["tail_fraction"] - 0.2) < 1e-6, "--tail 0.2 gives tail_fraction 0.2")
check(abs(c["shuffle_row"] - 0.25 * 0.2 * ocr_per_page) < 1e-9, "a quarter of it per row")
check(
    abs(c["shuffle_byte"] * c["page_bytes"] - 0.75 * 0.2 * ocr_per_page) < 1e-9,
    "three quarters per byte",
)
c2 = out(
    "corpus", "--scale", "0.02", "--tail", "0.2", "--shuffle-row", "0.5", "--shuffle-fixed", "3"
)["cost"]
check(c2["shuffle_row"] == 0.5 and c2["shuffle_fixed"] == 3, "explicit costs override --tail")
check(out("corpus", "--scale", "0.02")["cost"]["tail_fraction"] == 0, "no tail by default")
bad = subprocess.run([S, "run", "--tail"], capture_output=True, text=True)
check(
    bad.returncode == 2 and "--tail needs a value" in bad.stderr, "--tail without a value: exit 2"
)

# The ideal bound includes the lineage gather: at 64 actors the largest root's critical path
# (render, last OCR batch, gather, assemble) bounds it, and its gather grows with the tail.
i0 = out("corpus", "--scale", "0.02")["ideal_modelled_s"]["64"]
i2 = out("corpus", "--scale", "0.02", "--tail", "0.2")["ideal_modelled_s"]["64"]
check(
    i2 > i0 + 0.9 * 0.2 * ocr_per_page * 100,
    f"the gather lengthens the critical path ({i0:.1f} -> {i2:.1f} s)",
)

# flat-regroup: the shuffle runs after the last OCR batch, over `actors` partitions; no root is
# assembled before it; its partitions together move every page.
compress, fixed, tail, actors = 20000, 10, 0.3, 4
common = [
    "--actors",
    str(actors),
    "--scale",
    "0.02",
    "--compress",
    str(compress),
    "--tail",
    str(tail),
    "--shuffle-fixed",
    str(fixed),
]
flat = out("run", "--strategy", "flat-regroup", *common)
lin = out("run", "--strategy", "lineage", *common)
pages = flat["corpus_pages"]
f = flat["flat"]
check(f["partitions"] == actors, f"{actors} regroup partitions")
mean_part = (fixed + tail * ocr_per_page * pages / actors) / compress
check(
    f["shuffle_s"] >= 0.9 * mean_part,
    f"the shuffle takes at least a mean partition's cost ({f['shuffle_s']:.4f} >= 0.9 x {mean_part:.4f} s)",
)
first_commit = min(r[2] for r in flat["roots"])
check(
    first_commit >= f["barrier_s"] + fixed / compress,
    "flat-regroup commits no root before the barrier plus a partition's fixed cost",
)
check(
    all(r[3] == 1 for r in flat["roots"]) and all(r[3] == 1 for r in lin["roots"]),
    "every root ok in both",
)
check(
    all(a[4] == b[4] for a, b in zip(flat["roots"], lin["roots"])),
    "flat-regroup's documents equal lineage's (digests)",
)


# lineage pays the gather per root: a root commits no sooner than its render, an OCR batch, its
# gather (per row, and per byte: a page holds at least half the mean bytes) and assemble + upload.
def lineage_floor(p):
    gather = tail * ocr_per_page * p * (0.25 + 0.75 * 0.5)
    return (
        c["render_root"]
        + c["render_page"] * p
        + c["ocr_batch"]
        + c["ocr_page"]
        + gather
        + c["assemble_root"]
        + c["assemble_page"] * p
        + c["upload_root"]
    ) / compress


check(
    all(r[2] - r[1] >= lineage_floor(r[0]) for r in lin["roots"]),
    "each lineage root pays render + OCR + its gather + assemble + upload",
)
print("all ok")
