"""B8's tables (docs/benchmarks.md, "B8"): reads run_b8.sh's runs.jsonl, the runs' reports and
the stores' sizes under WORK, writes OUT/b8.json and prints the tables and the targets.

usage: report.py WORK OUT REPEAT COMMIT PART..."""

import json
import os
import platform
import statistics
import sys


def load_runs(work):
    runs = {}
    for line in open(os.path.join(work, "runs.jsonl")):
        j = json.loads(line)
        runs[(j["part"], j["label"])] = j
    return runs


def report(work, part, label):
    return json.load(open(os.path.join(work, part, f"{label}.json")))


def cache_of(rep):
    """{call: (hits, misses, miss_reasons)} of a run with the store."""
    return {
        c["name"]: (c["cache"]["hits"], c["cache"]["misses"], c["cache"]["miss_reasons"])
        for c in rep["calls"]
        if "cache" in c
    }


def grains(rep, call):
    return next(c["grains"] for c in rep["calls"] if c["name"] == call)


def read_int(path):
    return int(open(path).read().split()[0])


def part_result(work, part, repeat, runs):
    page_call = {"b4": "ocr", "study": "texts"}[part]
    wall = lambda label: runs[(part, label)]["wall_ms"] / 1000
    cpu = lambda label: runs[(part, label)]["cpu_s"]
    cold = [wall(f"cold-{r}") for r in range(1, repeat + 1)]
    T = statistics.median(cold)
    T_cpu = statistics.median(cpu(f"cold-{r}") for r in range(1, repeat + 1))
    pages = grains(report(work, part, "cold-1"), page_call)
    rows, checks = [], []

    def row(label, what, base=None, **extra):
        w = wall(label)
        r = {
            "run": label,
            "what": what,
            "wall_s": round(w, 3),
            "of_T": round(w / T, 4),
            "cpu_s": cpu(label),
            "load_before": runs[(part, label)]["load"],
        }
        if base is not None:
            r["vs_" + base] = round(w / wall(base) - 1, 4)
            r["cpu_vs_" + base] = round(cpu(label) / cpu(base) - 1, 4)
        rep = report(work, part, label)
        assert rep["summary"]["ok"] == rep["summary"]["roots"], (label, rep["summary"])
        cache = cache_of(rep)
        if cache:
            r["misses"] = {k: v[1] for k, v in cache.items()}
            r["hits"] = {k: v[0] for k, v in cache.items()}
            reasons = {k: v[2] for k, v in cache.items() if v[2]}
            if reasons:
                r["miss_reasons"] = reasons
        r.update(extra)
        rows.append(r)
        return r

    def check(name, values, limit, ok=None):
        met = all(v <= limit for v in values) if ok is None else ok
        checks.append({"target": name, "met": bool(met), "values": values, "limit": limit})

    by = {}
    for rnd in range(1, repeat + 1):
        row(f"cold-{rnd}", "cold, no store")
        store = os.path.join(work, part, f"store-{rnd}")
        size = read_int(store + ".bytes")
        by.setdefault("store", []).append(
            row(
                f"store-cold-{rnd}",
                "cold, fresh store",
                base=f"cold-{rnd}",
                store_bytes=size,
                store_disk_bytes=read_int(store + ".disk"),
                store_entries=read_int(store + ".entries"),
                store_bytes_per_page=round(size / pages),
            )
        )
        by.setdefault("rerun", []).append(row(f"rerun-{rnd}", "unchanged re-run, store"))
        if part == "b4":
            by.setdefault("changed", []).append(row(f"changed-md-{rnd}", "md's UDF changed, store"))
            alone = row(f"new-alone-{rnd}", "the new PDF alone, no store")
            new = row(f"new-docs-{rnd}", "corpus + the new PDF, store")
            new["limit_s"] = round(0.02 * T + alone["wall_s"], 3)
            new["over_own_work_of_T"] = round((new["wall_s"] - alone["wall_s"]) / T, 4)
            by.setdefault("new", []).append(new)

    check(
        "cold with store at most 3% slower (wall)",
        [r[k] for r in by["store"] for k in r if k.startswith("vs_")],
        0.03,
    )
    check("unchanged re-run at most 2% of T", [r["of_T"] for r in by["rerun"]], 0.02)
    check(
        "unchanged re-run runs no UDF (every Call's misses 0)",
        [sum(r["misses"].values()) for r in by["rerun"]],
        0,
    )
    result = {"T_s": round(T, 3), "T_cpu_s": T_cpu, "pages": pages, "rows": rows}
    if part == "b4":
        check("changed md at most 10% of T", [r["of_T"] for r in by["changed"]], 0.10)
        check(
            "changed md: only md re-runs (OCR 100% hits)",
            [r["misses"] for r in by["changed"]],
            "md only",
            ok=all(
                r["misses"]["md"] > 0 and sum(v for k, v in r["misses"].items() if k != "md") == 0
                for r in by["changed"]
            ),
        )
        check(
            "new documents at most 2% of T over their own work (the new PDF alone)",
            [r["over_own_work_of_T"] for r in by["new"]],
            0.02,
        )
        result["new_pdf_pages"] = read_int(os.path.join(work, part, "new.pages"))
    result["checks"] = checks
    return result


def main():
    work, out, repeat, commit = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    parts = sys.argv[5:]
    runs = load_runs(work)
    cpu = next(
        (l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")),
        platform.processor(),
    )
    result = {"commit": commit, "cores": os.cpu_count(), "cpu": cpu, "repeat": repeat}
    for part in parts:
        result[part] = part_result(work, part, repeat, runs)
    json.dump(result, open(os.path.join(out, "b8.json"), "w"), indent=2)
    for part in parts:
        r = result[part]
        print(
            f"\n{part}: T = {r['T_s']} s, {r['T_cpu_s']} CPU-s (medians of the cold runs "
            f"without the store), {r['pages']} pages"
        )
        print(
            "| run | wall s | of T | vs its cold run (wall / CPU) | CPU-s | load before "
            "| Calls that ran (misses) |"
        )
        print("|---|---|---|---|---|---|---|")
        for x in r["rows"]:
            vs = " / ".join(
                f"{100 * v:+.1f}%" for k, v in x.items() if k.startswith(("vs_", "cpu_vs_"))
            )
            ran = x.get("misses")
            ran = (", ".join(f"{k} {v}" for k, v in ran.items() if v) or "none") if ran else "-"
            if "store_bytes" in x:
                ran += (
                    f"; store {x['store_bytes'] / 1e6:.1f} MB "
                    f"({x['store_disk_bytes'] / 1e6:.1f} MB on disk), "
                    f"{x['store_entries']} entries, {x['store_bytes_per_page']} B/page"
                )
            print(
                f"| {x['run']} | {x['wall_s']:.2f} | {100 * x['of_T']:.1f}% | {vs} "
                f"| {x['cpu_s']:.2f} | {x['load_before']} | {ran} |"
            )
        for c in r["checks"]:
            print(
                f"- {'MET' if c['met'] else 'MISSED'} {c['target']}: {c['values']} "
                f"(limit {c['limit']})"
            )
    print(f"\nresults: {out}/b8.json")


if __name__ == "__main__":
    main()
