#!/usr/bin/env python3
"""mutate_pdfs.py GOOD.pdf OUTDIR COUNT SEED: writes COUNT mutated copies of GOOD.pdf into OUTDIR
(bad-NNNN.pdf) and GOOD itself as good.pdf. Each copy gets one to three random mutations of the
kinds a damaged download or a hostile file shows: truncation, flipped bytes, a zeroed, deleted,
duplicated or shuffled range, garbage inserted, a number in the xref or an object header bent.
Deterministic for a seed; prints one line per file naming its mutations."""
import os
import random
import re
import sys


def mutate(data: bytes, rng: random.Random) -> tuple[bytes, list[str]]:
    b = bytearray(data)
    done = []
    for _ in range(rng.randint(1, 3)):
        n = len(b)
        if n < 16:
            break
        kind = rng.choice(
            ["truncate", "flip", "zero", "delete", "duplicate", "insert", "xref", "number", "swap"]
        )
        at = rng.randrange(n)
        span = rng.randint(1, max(1, min(4096, n // 4)))
        if kind == "truncate":
            del b[at:]
        elif kind == "flip":
            for _ in range(rng.randint(1, 32)):
                i = rng.randrange(len(b))
                b[i] ^= 1 << rng.randrange(8)
        elif kind == "zero":
            b[at : at + span] = bytes(len(b[at : at + span]))
        elif kind == "delete":
            del b[at : at + span]
        elif kind == "duplicate":
            b[at:at] = b[at : at + span]
        elif kind == "insert":
            b[at:at] = bytes(rng.randrange(256) for _ in range(span))
        elif kind in ("xref", "number"):
            # Bend one number: an xref offset, a /Length, an object id, a count.
            numbers = [m for m in re.finditer(rb"\d+", bytes(b))]
            if not numbers:
                continue
            m = rng.choice(numbers)
            value = rng.choice([0, 1, -1, int(m.group()) * 7 + 3, 2**31, 10**12])
            b[m.start() : m.end()] = str(value).encode()
        elif kind == "swap":
            other = rng.randrange(len(b))
            a1, a2 = sorted((at, other))
            chunk1, chunk2 = b[a1 : a1 + span], b[a2 : a2 + span]
            if a1 + span <= a2:
                b[a2 : a2 + span] = chunk1
                b[a1 : a1 + span] = chunk2
        done.append(f"{kind}@{at}")
    return bytes(b), done


def main() -> None:
    good, outdir, count, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    data = open(good, "rb").read()
    os.makedirs(outdir, exist_ok=True)
    rng = random.Random(seed)
    with open(os.path.join(outdir, "good.pdf"), "wb") as f:
        f.write(data)
    for i in range(count):
        bad, what = mutate(data, rng)
        name = f"bad-{i:04d}.pdf"
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(bad)
        print(name, " ".join(what))


if __name__ == "__main__":
    main()
