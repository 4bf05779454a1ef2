"""B1 on RayOrch (PyPI `rayorch`, the paper's system): the same no-op expand -> map -> reduce,
batch 64, one replica per stage. Prints one JSON object, like bench_b1.

  python rayorch_noop.py --roots 100 --children 100 [--batch 64] [--repeat 3]

Actor start-up (Ray init, UDF construction) is excluded: rayorch's Executor starts its actor
pools in its constructor, and the timed part is Executor.run() on warm actors. Timings are the
median of --repeat runs on the same Executor.
"""

import argparse
import json
import resource
import statistics
import time

import rayorch as ro


class NoopExpand:
    def __init__(self, children):
        self.children = children

    def run(self, values):
        return [[0] * self.children for _ in values]


class NoopMap:
    def run(self, values):
        return values


class NoopReduce:
    def run(self, groups):
        return [2 for _ in groups]


class B1(ro.Pipeline):
    def __init__(self, children, batch, cpus):
        opts = dict(replicas=1, batch_size=batch, num_cpus=cpus)
        self.expand = ro.RayModule(NoopExpand).pre_init(children).ray_options(**opts)
        self.map = ro.RayModule(NoopMap).ray_options(**opts)
        self.reduce = ro.RayModule(NoopReduce).ray_options(**opts)

    def forward(self, roots):
        children = ro.F.expand(self.expand(roots))
        return self.reduce(ro.F.reduce(self.map(children)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--roots", type=int, default=100)
    ap.add_argument("--children", type=int, default=100)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--input-batch", type=int, default=None, help="roots per rayorch input batch (default: all)"
    )
    args = ap.parse_args()

    pipeline = B1(args.children, args.batch, cpus=0.5)
    init = dict(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    walls, engine = [], []
    with ro.Executor(pipeline, ray_init_kwargs=init) as executor:
        roots = list(range(args.roots))
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            result = executor.run(roots, input_batch_size=args.input_batch)
            walls.append(time.perf_counter() - t0)
            engine.append(result.elapsed_s)
            outputs = list(result.outputs)
            assert len(outputs) == args.roots and all(o == 2 for o in outputs), outputs[:5]
        calls = [
            {
                "udf": c.udf_name,
                "rpcs": c.rpcs,
                "grains": c.grain_dispatches,
                "average_batch": round(c.average_batch, 2),
            }
            for c in result.calls
        ]
    wall = statistics.median(walls)
    child_grains = args.roots * args.children
    print(
        json.dumps(
            {
                "system": "rayorch",
                "version": ro.__version__ if hasattr(ro, "__version__") else "",
                "roots": args.roots,
                "children": args.children,
                "batch": args.batch,
                "repeat": args.repeat,
                "child_grains": child_grains,
                "wall_s": wall,
                "engine_elapsed_s": statistics.median(engine),
                "child_grains_per_s": child_grains / wall,
                "ns_per_child_end_to_end": wall * 1e9 / child_grains,
                "driver_peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                "calls": calls,
            }
        )
    )


if __name__ == "__main__":
    main()
