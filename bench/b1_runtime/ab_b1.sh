#!/usr/bin/env bash
# A/B of two bench_b1 binaries, run alternately (old new, new old, ...) so that a shared,
# noisy machine's load hits both alike. One line per run: shape, executor, binary, child
# grains/s (wall), child grains per CPU-second, lineage heap B/child, lineage self B/entity, load.
#   bench/b1_runtime/ab_b1.sh OLD_BENCH_B1 NEW_BENCH_B1      # REPS (default 4), SHAPES, EXECUTORS
set -euo pipefail
OLD=$1 NEW=$2
REPS=${REPS:-4}
SHAPES=${SHAPES:-"10000:100 100000:10 100:10000"}
EXECUTORS=${EXECUTORS:-"one inline"}
for shape in $SHAPES; do
    roots=${shape%%:*} children=${shape##*:}
    for executor in $EXECUTORS; do
        for i in $(seq 1 "$REPS"); do
            if ((i % 2)); then order="old new"; else order="new old"; fi
            for which in $order; do
                bin=$OLD
                [[ $which == new ]] && bin=$NEW
                "$bin" --roots "$roots" --children "$children" --executor "$executor" --repeat 3 |
                    python3 -c 'import json, sys
j = json.load(sys.stdin)
print(j["child_grains_per_s"], j["child_grains_per_cpu_s"], j["lineage_heap_bytes_per_live_child"],
      j["lineage_self_bytes_per_entity"])' |
                    sed "s|^|$roots x $children $executor $which |; s|\$| load=$(cut -d' ' -f1 /proc/loadavg)|"
            done
        done
    done
done
