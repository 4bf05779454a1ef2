"""Collects B1 results (JSON lines from bench_b1 and rayorch_noop.py) into bench/results/b1.json,
prints a Markdown table and the rop/RayOrch ratio, and draws bench/results/b1.svg with gnuplot.

  python3 report_b1.py RESULTS_DIR
"""

import json
import pathlib
import shutil
import subprocess
import sys


def load(path):
    rows = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if line.startswith("{"):
            rows.append(json.loads(line))
    return rows


def label(r):
    return r["system"] + ("/" + r["executor"] if "executor" in r else "")


def table(rows):
    out = [
        "| system | roots x children | child grains | wall s | child grains/s | "
        "grains/CPU-s | ns/child | expand ns/child | map ns | reduce ns/member | "
        "lineage B/child (heap) | lineage B/entity (self) | peak RSS MiB |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        g = r.get("ns_per_grain", {})
        rss = r.get("peak_rss_kib", r.get("driver_peak_rss_kib", 0)) / 1024

        def f(key, fmt="{:.0f}"):
            return fmt.format(r[key]) if key in r else "-"

        def n(key):
            return "{:.0f}".format(g[key]) if key in g else "-"

        out.append(
            f"| {label(r)} | {r['roots']} x {r['children']} | {r['child_grains']:.0f} | "
            f"{r['wall_s']:.3f} | {r['child_grains_per_s']:,.0f} | "
            f"{f('child_grains_per_cpu_s', '{:,.0f}')} | {r['ns_per_child_end_to_end']:,.0f} | "
            f"{n('expand_per_child')} | {n('map')} | {n('reduce_per_member')} | "
            f"{f('lineage_heap_bytes_per_live_child', '{:.1f}')} | "
            f"{f('lineage_self_bytes_per_entity', '{:.1f}')} | {rss:.0f}"
            + (" (driver only)" if r["system"] == "rayorch" else "")
            + " |"
        )
    return "\n".join(out)


def ratios(rows):
    """RayOrch / rop (one worker thread) ns per child grain, on the same shapes, same run."""
    rop = {
        (r["roots"], r["children"]): r
        for r in rows
        if r["system"] == "rop" and r.get("executor") == "one"
    }
    pairs = []
    for r in rows:
        twin = rop.get((r["roots"], r["children"]))
        if r["system"] == "rayorch" and twin:
            pairs.append(
                {
                    "shape": f"{r['roots']} x {r['children']}",
                    "rayorch_ns_per_child": r["ns_per_child_end_to_end"],
                    "rop_ns_per_child": twin["ns_per_child_end_to_end"],
                    "ratio": r["ns_per_child_end_to_end"] / twin["ns_per_child_end_to_end"],
                }
            )
    return pairs


def plot(rows, out_dir):
    if not shutil.which("gnuplot"):
        return None
    data = out_dir / "b1.dat"
    series = {}
    for r in rows:
        series.setdefault(label(r), []).append((r["child_grains"], r["ns_per_child_end_to_end"]))
    blocks = []
    for name, points in series.items():
        blocks.append(f"# {name}\n" + "\n".join(f"{x} {y}" for x, y in sorted(points)))
    data.write_text("\n\n\n".join(blocks) + "\n")
    svg = out_dir / "b1.svg"
    plots = ", ".join(
        f"'{data}' index {i} with linespoints title '{name}'" for i, name in enumerate(series)
    )
    script = (
        f"set terminal svg size 800,500 font 'sans,11'\nset output '{svg}'\n"
        "set logscale xy\nset key top right\nset grid\nset xrange [5000:6e6]\n"
        "set xlabel 'child grains (roots x children)'\n"
        "set ylabel 'wall ns per child grain, end to end'\n"
        "set title 'B1: no-op expand -> map -> reduce, batch 64 (flat = linear cost)'\n"
        f"plot {plots}\n"
    )
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    return svg


def main():
    out_dir = pathlib.Path(sys.argv[1])
    rows = load(out_dir / "b1.jsonl")
    rows.sort(
        key=lambda r: (r["system"], r.get("executor", ""), r["roots"] * r["children"], r["roots"])
    )
    ratio = ratios(rows)
    (out_dir / "b1.json").write_text(json.dumps({"runs": rows, "ratios": ratio}, indent=1) + "\n")
    print(table(rows))
    print()
    for p in ratio:
        print(
            f"RayOrch / rop (one worker) at {p['shape']}: {p['rayorch_ns_per_child']:,.0f} / "
            f"{p['rop_ns_per_child']:,.0f} ns per child grain = {p['ratio']:,.0f}x"
        )
    svg = plot(rows, out_dir)
    if svg:
        print(f"plot: {svg}")


if __name__ == "__main__":
    main()
