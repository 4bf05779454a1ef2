"""B2/B3 peers (issue 6): the study pipeline on RayOrch, Ray Data and Daft, on the corpus and cost
model that `bench_study corpus` wrote, with the same batch cap and actors per stage. Every UDF
sleeps the modelled cost / compress, like the C++ strategies. Prints one JSON line in the format
of `bench_study run`.

  python peers.py --system rayorch|raydata|daft --corpus corpus.json --actors 8
  python peers.py --system rop-pipeline --binary BIN --corpus corpus.json --actors 8
    (BIN: bench/study/rop/study.rop built by `ropc build`; the same logs, from C++)

Timing: the makespan is first render start -> last root committed (actor start-up before the
first UDF call is excluded for every system); `wall_s` is the whole timed call, start-up included.
Render starts and root commits are logged by the UDFs themselves (files under a temporary
directory: the UDFs run in other processes), as are OCR batch sizes.
"""

import argparse
import datetime
import glob
import json
import os
import re
import shutil
import sys
import tempfile
import time

M = (1 << 64) - 1


def mix(x):
    x = (x + 0x9E3779B97F4A7C15) & M
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M
    return x ^ (x >> 31)


def page_text(root, page):
    return mix((root << 32) | page)


def digest_step(h, t):
    return (mix(h ^ t) + 1) & M


class Cost:
    def __init__(self, c):
        self.__dict__.update(c)

    def render(self, pages):
        return (self.render_root + self.render_page * pages) / self.compress

    def ocr(self, n):
        return (self.ocr_batch + self.ocr_page * n) / self.compress

    def finish(self, pages):
        return (self.assemble_root + self.assemble_page * pages + self.upload_root) / self.compress


class Log:
    """Append-only per-process log files under one directory (UDFs run in other processes)."""

    def __init__(self, directory):
        self.dir = directory
        self.files = {}

    def write(self, kind, line):
        f = self.files.get(kind)
        if f is None:
            f = self.files[kind] = open(
                os.path.join(self.dir, f"{kind}_{os.getpid()}.txt"), "a", buffering=1
            )
        f.write(line + "\n")

    def render_start(self, root):
        self.write("r", f"{root} {time.time():.6f}")

    def batch(self, n):
        self.write("b", str(n))

    def done(self, root, ok, digest, reason=""):
        self.write("a", f"{root} {time.time():.6f} {1 if ok else 2} {digest:016x} {reason}")


def assemble_digest(root, texts):
    h = root
    for t in texts:
        h = digest_step(h, int(t))
    return h


# ---------------------------------------------------------------------------------------------
def run_rayorch(corpus, cost, actors, logdir, init):
    import rayorch as ro

    cap = cost.cap

    class Render:
        def __init__(self, c, d):
            self.cost, self.log = Cost(c), Log(d)

        def run(self, docs):
            out = []
            for root, pages, poisoned in docs:
                self.log.render_start(root)
                time.sleep(self.cost.render(pages))
                out.append([(root, k, poisoned) for k in range(pages)])
            return out

    class Ocr:
        def __init__(self, c, d):
            self.cost, self.log = Cost(c), Log(d)

        def run(self, pages):
            time.sleep(self.cost.ocr(len(pages)))
            self.log.batch(len(pages))
            return [
                ro.GroupFailure(f"poisoned page 0 of root {r}")
                if (p and k == 0)
                else page_text(r, k)
                for r, k, p in pages
            ]

    class Assemble:
        def __init__(self, c, d):
            self.cost, self.log = Cost(c), Log(d)

        def run(self, groups, roots):
            out = []
            for texts, (root, pages, _) in zip(groups, roots):
                h = assemble_digest(root, texts)
                time.sleep(self.cost.finish(len(texts)))
                self.log.done(root, True, h)
                out.append(h)
            return out

    opts = dict(num_cpus=0.01)
    c = cost.__dict__

    class Study(ro.Pipeline):
        def __init__(self):
            self.render = (
                ro.RayModule(Render)
                .pre_init(c, logdir)
                .ray_options(replicas=actors, batch_size=1, **opts)
            )
            self.ocr = (
                ro.RayModule(Ocr)
                .pre_init(c, logdir)
                .ray_options(replicas=actors, batch_size=cap, **opts)
            )
            self.assemble = (
                ro.RayModule(Assemble)
                .pre_init(c, logdir)
                .ray_options(replicas=actors, batch_size=1, **opts)
            )

        def forward(self, docs):
            pages = ro.F.expand(self.render(docs))
            return self.assemble(ro.F.reduce(self.ocr(pages)), docs)

    docs = [(i, p, bool(z)) for i, (p, z) in enumerate(zip(corpus["pages"], corpus["poisoned"]))]
    t_setup = time.time()
    with ro.Executor(Study(), ray_init_kwargs=init) as executor:
        setup = time.time() - t_setup
        t0 = time.time()
        result = executor.run(docs, input_batch_size=24, max_active_input_batches=24)
        wall = time.time() - t0
        failed = {}
        for i, o in enumerate(result.outputs):
            if isinstance(o, ro.OutputIssue):
                failed[i] = (time.time(), f"{o.outcome.name}: {o.cause}")
    return t0, wall, setup, failed, {"input_batch_size": 24, "max_active_input_batches": 24}


# ---------------------------------------------------------------------------------------------
def run_raydata(corpus, cost, actors, logdir, init):
    import numpy as np
    import ray

    ray.init(**init)
    c = cost.__dict__
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    log = Log(logdir)

    def render(row):
        cst, lg = Cost(c), Log(logdir)
        lg.render_start(row["id"])
        time.sleep(cst.render(row["pages"]))
        return [{"id": row["id"], "page": k, "poison": row["poison"]} for k in range(row["pages"])]

    class Ocr:
        def __init__(self):
            self.cost, self.log = Cost(c), Log(logdir)

        def __call__(self, batch):
            n = len(batch["id"])
            time.sleep(self.cost.ocr(n))
            self.log.batch(n)
            batch["text"] = np.array(
                [page_text(int(r), int(k)) for r, k in zip(batch["id"], batch["page"])],
                dtype=np.uint64,
            )
            batch["error"] = np.array(
                [bool(p) and int(k) == 0 for p, k in zip(batch["poison"], batch["page"])]
            )
            return batch

    def assemble(group):
        cst, lg = Cost(c), Log(logdir)
        root = int(group["id"][0])
        order = np.argsort(group["page"], kind="stable")
        if bool(np.any(group["error"])):  # error column, filtered after the regroup
            lg.done(root, False, 0, f"poisoned page 0 of root {root}")
            return {"id": np.array([root]), "ok": np.array([False])}
        h = assemble_digest(root, group["text"][order])
        time.sleep(cst.finish(len(order)))
        lg.done(root, True, h)
        return {"id": np.array([root]), "ok": np.array([True])}

    items = [
        {"id": i, "pages": p, "poison": bool(z)}
        for i, (p, z) in enumerate(zip(corpus["pages"], corpus["poisoned"]))
    ]
    # warm the cluster's worker processes (not the pipeline's actors) outside the timed region
    ray.data.range(4).map(lambda r: r).take_all()
    t0 = time.time()
    ds = ray.data.from_items(items, override_num_blocks=len(items))
    ds = ds.flat_map(render, concurrency=actors, num_cpus=1)
    ds = ds.map_batches(
        Ocr, batch_size=cost.cap, concurrency=actors, num_cpus=1, batch_format="numpy"
    )
    ds = ds.groupby("id", num_partitions=actors).map_groups(
        assemble, batch_format="numpy", num_cpus=1, concurrency=actors
    )
    rows = ds.take_all()
    wall = time.time() - t0
    assert len(rows) == len(items), len(rows)
    ray.shutdown()
    return t0, wall, 0.0, {}, {"override_num_blocks": len(items), "groupby_partitions": actors}


# ---------------------------------------------------------------------------------------------
def run_daft(corpus, cost, actors, logdir, init):
    import daft
    import pyarrow as pa
    from daft import DataType, col

    c = cost.__dict__

    @daft.cls(max_concurrency=actors, use_process=True)
    class Render:
        def __init__(self):
            self.cost, self.log = Cost(c), Log(logdir)

        @daft.method(return_dtype=DataType.list(DataType.int64()))
        def __call__(self, root: int, pages: int):
            self.log.render_start(root)
            time.sleep(self.cost.render(pages))
            return list(range(pages))

    @daft.cls(max_concurrency=actors, use_process=True)
    class Ocr:
        def __init__(self):
            self.cost, self.log = Cost(c), Log(logdir)

        @daft.method.batch(return_dtype=DataType.uint64(), batch_size=cost.cap)
        def __call__(self, roots, pages):
            r, k = roots.to_pylist(), pages.to_pylist()
            time.sleep(self.cost.ocr(len(r)))
            self.log.batch(len(r))
            # an explicit uint64 array: a plain list of Python ints > 2**63 comes back as float64
            return pa.array([page_text(a, b) for a, b in zip(r, k)], type=pa.uint64())

    @daft.cls(max_concurrency=actors, use_process=True)
    class Assemble:
        def __init__(self):
            self.cost, self.log = Cost(c), Log(logdir)

        @daft.method(return_dtype=DataType.bool())
        def __call__(self, root: int, pages: list, texts: list, poison: bool):
            order = sorted(range(len(pages)), key=lambda i: pages[i])
            if poison and 0 in pages:  # error column, filtered after the regroup
                self.log.done(root, False, 0, f"poisoned page 0 of root {root}")
                return False
            h = assemble_digest(root, [texts[i] for i in order])
            time.sleep(self.cost.finish(len(order)))
            self.log.done(root, True, h)
            return True

    n = len(corpus["pages"])
    df0 = daft.from_pydict(
        {
            "id": list(range(n)),
            "pages": corpus["pages"],
            "poison": [bool(z) for z in corpus["poisoned"]],
        }
    )
    t0 = time.time()
    df = df0.with_column("page", Render()(col("id"), col("pages"))).explode("page")
    df = df.with_column("text", Ocr()(col("id"), col("page")))
    df = df.groupby("id").agg(
        col("page").list_agg().alias("page_list"),
        col("text").list_agg().alias("texts"),
        col("poison").any_value().alias("poison"),
    )
    df = df.with_column("ok", Assemble()(col("id"), col("page_list"), col("texts"), col("poison")))
    out = df.collect().to_pydict()
    wall = time.time() - t0
    assert len(out["id"]) == n, len(out["id"])
    return t0, wall, 0.0, {}, {"runner": "native", "daft": daft.__version__}


# ---------------------------------------------------------------------------------------------
def run_rop_pipeline(
    corpus, cost, actors, logdir, init, binary=None, corpus_path=None, inflight=None, extra=()
):
    """The lineage strategy as a real rop pipeline: bench/study/rop/study.rop built by `ropc
    build`, run as its own process with --set for the actor counts."""
    import subprocess

    c = cost
    env = dict(
        os.environ,
        STUDY_LOG=logdir,
        STUDY_COST=" ".join(
            str(x)
            for x in (
                c.compress,
                c.render_root,
                c.render_page,
                c.ocr_batch,
                c.ocr_page,
                c.assemble_root,
                c.assemble_page,
                c.upload_root,
                getattr(c, "shuffle_row", 0),
                getattr(c, "shuffle_byte", 0),
                getattr(c, "page_bytes", 4000),
            )
        ),
    )
    out = os.path.join(logdir, "out")
    os.makedirs(out, exist_ok=True)
    cmd = [
        binary,
        "--input",
        corpus_path,
        "--output",
        os.path.join(out, "roots.log"),
        "--set",
        f"pages.actors={actors}",
        "--set",
        f"texts.actors={actors}",
        "--set",
        f"texts.batch={cost.cap}",
        "--set",
        f"documents.actors={actors}",
        "--max-inflight-roots",
        str(inflight or max(64, 4 * actors)),
        "--no-progress",
        "--report",
        os.path.join(out, "report.json"),
    ] + list(extra)
    t0 = time.time()
    # exit 3: some roots failed (B3's poisoned ones); each is logged at once, time-stamped (ms)
    proc = subprocess.run(cmd, env=env, stderr=subprocess.PIPE, text=True)
    wall = time.time() - t0
    sys.stderr.write(proc.stderr)
    if proc.returncode not in (0, 3):
        raise RuntimeError(f"{binary} exited {proc.returncode}")
    report = json.load(open(os.path.join(out, "report.json")))
    failed = {}
    for line in proc.stderr.splitlines():
        m = re.match(r"(\S+)Z ERROR \S+ root (\d+) failed: (.*)$", line)
        if m:
            t = (
                datetime.datetime.fromisoformat(m.group(1))
                .replace(tzinfo=datetime.timezone.utc)
                .timestamp()
            )
            failed[int(m.group(2))] = (t, m.group(3))
    suppressed = sum(
        c.get("suppressed", 0) for c in report.get("calls", []) if c.get("name") == "texts"
    )
    return (
        t0,
        wall,
        0.0,
        failed,
        {
            "binary": binary,
            "command": " ".join(cmd[1:]),
            "rop_report_wall_s": report.get("wall_s"),
            "suppressed": suppressed,
        },
    )


# ---------------------------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--system", required=True, choices=["rayorch", "raydata", "daft", "rop-pipeline"]
    )
    ap.add_argument("--binary", help="rop-pipeline: the binary ropc built from study.rop")
    ap.add_argument("--system-name", help="the system's name in the output (default --system)")
    ap.add_argument(
        "--binary-args",
        default="",
        help="rop-pipeline: more flags for the binary (split on spaces)",
    )
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--actors", type=int, default=8)
    ap.add_argument("--label", default="")
    args = ap.parse_args()
    corpus = json.load(open(args.corpus))
    cost = Cost(corpus["cost"])
    logdir = tempfile.mkdtemp(prefix="study_peer_")
    init = dict(
        num_cpus=3 * args.actors + 4,
        include_dashboard=False,
        log_to_driver=False,
        configure_logging=False,
    )
    strategy = {
        "rayorch": "lineage",
        "raydata": "flat-regroup",
        "daft": "flat-regroup",
        "rop-pipeline": "lineage",
    }[args.system]
    run = {
        "rayorch": run_rayorch,
        "raydata": run_raydata,
        "daft": run_daft,
        "rop-pipeline": run_rop_pipeline,
    }[args.system]
    try:
        if args.system == "rop-pipeline":
            t0, wall, setup, failed, extra = run(
                corpus,
                cost,
                args.actors,
                logdir,
                init,
                args.binary,
                os.path.abspath(args.corpus),
                extra=args.binary_args.split(),
            )
        else:
            t0, wall, setup, failed, extra = run(corpus, cost, args.actors, logdir, init)
        time.sleep(0.2)  # let the last log lines land
        start, end = {}, {}
        for f in glob.glob(os.path.join(logdir, "r_*.txt")):
            for line in open(f):
                r, t = line.split()
                start[int(r)] = min(start.get(int(r), 1e300), float(t))
        for f in glob.glob(os.path.join(logdir, "a_*.txt")):
            for line in open(f):
                parts = line.rstrip("\n").split(" ", 4)
                end[int(parts[0])] = (
                    float(parts[1]),
                    int(parts[2]),
                    parts[3],
                    parts[4] if len(parts) > 4 else "",
                )
        for r, (t, reason) in failed.items():
            if r not in end:
                end[r] = (t, 2, "0" * 16, reason)
        batches = {}
        for f in glob.glob(os.path.join(logdir, "b_*.txt")):
            for line in open(f):
                batches[line.strip()] = batches.get(line.strip(), 0) + 1
        first = min(start.values()) if start else t0
        roots = []
        for i, p in enumerate(corpus["pages"]):
            e = end.get(i, (t0 - 1, 0, "0" * 16, "lost"))
            roots.append([p, start.get(i, t0) - first, e[0] - first, e[1], e[2], e[3]])
        makespan = max(r[2] for r in roots)
        ideal = corpus["ideal_modelled_s"].get(str(args.actors))
        print(
            json.dumps(
                {
                    "system": args.system_name or args.system,
                    "strategy": strategy,
                    "label": args.label,
                    "bench": corpus["kind"] == "b3" and "b3" or "b2",
                    "actors": args.actors,
                    "cap": cost.cap,
                    "scale": corpus["scale"],
                    "poison": any(corpus["poisoned"]),
                    "corpus_roots": len(corpus["pages"]),
                    "corpus_pages": sum(corpus["pages"]),
                    "ideal_s": ideal / cost.compress if ideal else None,
                    "load_before": os.getloadavg()[0],
                    "cost": corpus["cost"],
                    "makespan_s": makespan,
                    "wall_s": wall,
                    "setup_s": setup,
                    "startup_before_first_render_s": first - t0,
                    "ocr_pages": sum(int(k) * v for k, v in batches.items()),
                    "suppressed": extra.get("suppressed", 0),
                    "batches": batches,
                    "peer": extra,
                    "roots": roots,
                }
            )
        )
    finally:
        shutil.rmtree(logdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
