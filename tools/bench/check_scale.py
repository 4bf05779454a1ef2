#!/usr/bin/env python3
"""Generates a deep and wide N-stage pipeline and times `ropc check` on it.

The pipeline mixes every construct: a chain of nested Domains opened by expands (deep), and at
every level fans of maps and filters, a broadcast from the parent Domain, multi-input maps that
zip the broadcast value with optional inputs, and a reduce back to the parent (wide). It checks
clean, so every phase of sema runs in full.

    tools/bench/check_scale.py --ropc build/release/bin/ropc [--stages 5000] [--runs 5]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def generate(stages: int, depth: int) -> tuple[str, int]:
    lines = ["pipeline scale;", 'source s0 : D0 = std.files(glob: "in/*");']
    count = 1
    per_level = max(8, (stages - depth * 4) // depth)
    prev = "s0"
    sinks = []
    for level in range(1, depth + 1):
        dom = f"D{level}"
        e = f"e{level}"
        lines.append(f"{e} = expand {prev} as {dom} with split batch 16;")
        lines.append(f"b{level} = broadcast {prev} to {dom};")
        count += 2
        width = 4
        heads = [e] * width
        i = 0
        while i < per_level and count < stages - 2 * (depth - level + 1):
            lane = i % width
            m = f"m{level}_{i}"
            if i % 3 == 0:
                lines.append(
                    f"{m} = map ({heads[lane]}, b{level}?) with f{i % 7} batch 32 actors 2;"
                )
            elif i % 3 == 1:
                lines.append(f"{m} = filter {heads[lane]} with keep;")
            else:
                lines.append(f"{m} = map {heads[lane]} with g retries 2 timeout 30s;")
            heads[lane] = m
            i += 1
            count += 1
        joined = f"j{level}"
        lines.append(f"{joined} = map ({', '.join(heads)}) with combine;")
        lines.append(f"r{level} = reduce {joined} to D{level - 1} with fold;")
        count += 2
        sinks.append(f"r{level}")
        prev = e
    # Every reduced level is consumed, level by level, in its parent Domain.
    for level in range(depth, 1, -1):
        lines.append(f"u{level} = reduce r{level} to D{level - 2} with fold;")
        sinks.append(f"u{level}")
        count += 1
    lines.append(f"sink (s0, {sinks[0]}) -> out;")
    for name in sinks[1:]:
        lines.append(f"sink {name} -> out;")
    return "\n".join(lines) + "\n", count


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ropc", default="build/release/bin/ropc")
    parser.add_argument("--stages", type=int, default=5000)
    parser.add_argument("--depth", type=int, default=12)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", help="also write the generated pipeline here")
    args = parser.parse_args()

    text, count = generate(args.stages, args.depth)
    with tempfile.NamedTemporaryFile("w", suffix=".rop", delete=False) as f:
        f.write(text)
        path = f.name
    if args.keep:
        with open(args.keep, "w") as out:
            out.write(text)
    try:
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            result = subprocess.run([args.ropc, "check", path], capture_output=True, text=True)
            times.append(time.perf_counter() - start)
            if result.returncode != 0:
                sys.stderr.write(result.stderr[:4000])
                print(f"check_scale: ropc check failed with exit {result.returncode}")
                return 1
    finally:
        os.unlink(path)
    print(f"check_scale: {count} statements, {args.depth} nested Domains, {len(text)} bytes")
    print(
        f"check_scale: ropc check  min {min(times) * 1000:.1f} ms  "
        f"median {statistics.median(times) * 1000:.1f} ms  over {args.runs} runs"
    )
    return 0 if min(times) < 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
