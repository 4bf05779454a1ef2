#!/usr/bin/env bash
# B4: documents end to end on real PDFs. Builds examples/mineru/mineru.rop with ropc and runs it
# three ways on the same corpus (bundled test PDFs + real PDFs from Debian documentation):
#   serial      one OCR actor, one document at a time; its CPU time (user + sys) per page is
#               t_page, the single-page render+OCR cost
#   rop         the pipeline as written (OCR batches mix pages of every document)
#   per-doc     the per-document strategy: NPROC workers, each owning whole documents
#               (xargs -P over documents, each a 1-actor run of the same binary)
# The machine's limit is nproc / t_page pages/s; the target for rop is >= 90% of it.
# Knobs (environment): ROPC (default build/release/bin/ropc), OUT (default bench/results/b4),
# PDFS (space-separated list; default: examples/mineru/in/*.pdf + the two Debian PDFs).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
ROPC=${ROPC:-$ROOT/build/release/bin/ropc}
OUT=${OUT:-$ROOT/bench/results/b4}
CORES=$(nproc)
[ -x "$ROPC" ] || {
    echo "b4: no ropc at $ROPC (bash tools/build.sh release first)" >&2
    exit 2
}
rm -rf "$OUT/work" "$OUT/b4.json"
mkdir -p "$OUT/work" # keeps peer.json (run_b4_peer.sh)
export OMP_THREAD_LIMIT=1

if [ -z "${PDFS:-}" ]; then
    PDFS="$(ls "$ROOT"/examples/mineru/in/*.pdf) /usr/share/doc/libtasn1-doc/libtasn1.pdf \
/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf"
fi
manifest=$OUT/work/corpus.jsonl
: >"$manifest"
for f in $PDFS; do
    [ -r "$f" ] || {
        echo "b4: cannot read $f (tools/setup.sh installs libtasn1-doc)" >&2
        exit 2
    }
    printf '{"path": "%s"}\n' "$f" >>"$manifest"
done

echo "== ropc build examples/mineru/mineru.rop (text: ocr, so every page is OCR'd as B4 measures)"
sed 's/text: detect/text: ocr/' "$ROOT/examples/mineru/mineru.rop" >"$OUT/work/mineru.rop"
grep -q 'text: ocr' "$OUT/work/mineru.rop" || {
    echo "b4: mineru.rop has no 'text: detect'" >&2
    exit 2
}
"$ROPC" build "$OUT/work/mineru.rop" -o "$OUT/work/mineru"
bin=$OUT/work/mineru

run() { # run LABEL MANIFEST EXTRA... : one run, its report in $OUT/work/LABEL.json
    local label=$1 input=$2
    shift 2
    rm -rf "$OUT/work/$label-out"
    "$bin" --input "files=$input" --output "md=$OUT/work/$label-out/md" \
        --output "list=$OUT/work/$label-out/list" --report "$OUT/work/$label.json" \
        --no-progress "$@" || [ $? -eq 3 ]
}

echo "== serial (1 OCR actor, 1 document in flight): t_page = its CPU time per page"
start=$(date +%s%N)
TIMEFORMAT='%3U %3S'
cpu=$({ time run serial "$manifest" --set ocr.actors=1 --max-inflight-roots 1 >/dev/null 2>&1; } 2>&1)
serial_s=$((($(date +%s%N) - start) / 1000000))
serial_cpu_ms=$(awk -v t="$cpu" 'BEGIN { split(t, a, " "); printf "%d", (a[1] + a[2]) * 1000 }')

echo "== rop (as written: OCR batches across documents)"
start=$(date +%s%N)
run rop "$manifest"
rop_s=$((($(date +%s%N) - start) / 1000000))

echo "== per-document ($CORES workers, each owns whole documents)"
i=0
while read -r line; do
    echo "$line" >"$OUT/work/doc$i.jsonl"
    i=$((i + 1))
done <"$manifest"
export bin OUT
start=$(date +%s%N)
echo "$start" >"$OUT/work/perdoc.start"
ls "$OUT"/work/doc*.jsonl | xargs -P "$CORES" -I{} sh -c \
    'n=$(basename {} .jsonl); date +%s%N > "$OUT/work/perdoc-$n.start"
     "$bin" --input "files={}" --output "md=$OUT/work/perdoc-$n/md" \
        --output "list=$OUT/work/perdoc-$n/list" --report "$OUT/work/perdoc-$n.json" \
        --no-progress --set ocr.actors=1 || [ $? -eq 3 ]'
perdoc_s=$((($(date +%s%N) - start) / 1000000))

python3 - "$OUT" "$CORES" "$serial_s" "$rop_s" "$perdoc_s" "$serial_cpu_ms" <<'PY'
import glob, json, os, sys
out, cores = sys.argv[1], int(sys.argv[2])
serial_s, rop_s, perdoc_s, serial_cpu = (float(v) / 1000 for v in sys.argv[3:7])  # ms -> s
def pages(report):
    return next((c["grains"] for c in report["calls"] if c["name"] == "ocr"), 0)
serial = json.load(open(f"{out}/work/serial.json"))
rop = json.load(open(f"{out}/work/rop.json"))
perdoc = [json.load(open(p)) for p in sorted(glob.glob(f"{out}/work/perdoc-*.json"))]
n_pages = pages(rop)
assert pages(serial) == n_pages == sum(pages(r) for r in perdoc), "page counts differ"
docs = len(rop["roots"])
t_page = serial_cpu / n_pages  # CPU seconds (user + sys) per page, render + OCR + assembly
limit = cores / t_page
rows = []
for name, wall in [("serial (1 OCR actor)", serial_s), ("rop", rop_s), ("per-document", perdoc_s)]:
    rate = n_pages / wall
    rows.append({"strategy": name, "wall_s": round(wall, 2), "pages_per_s": round(rate, 3),
                 "of_limit": round(rate / limit, 3)})
# Time to commit: when each document's output was written, from the start of the strategy's
# run. rop and serial admit every document at once (fewer than --max-inflight-roots; serial: one
# at a time, so its later documents wait for admission: their latency from admission is not
# enough, the admission waits are added), so a root's latency_s is its time to commit there;
# a per-document run's is its own latency plus when xargs started it.
def nearest_rank(values, percent):
    values = sorted(values)
    return values[max(0, (percent * len(values) + 99) // 100 - 1)]
def commit_times_serial(report):
    t, out = 0.0, []
    for r in report["roots"]:  # admitted one after another, in source order
        t += r["latency_s"]
        out.append(t)
    return out
perdoc_start = int(open(f"{out}/work/perdoc.start").read()) / 1e9
perdoc_ttc = []
for path in sorted(glob.glob(f"{out}/work/perdoc-*.json")):
    began = int(open(path[:-len(".json")] + ".start").read()) / 1e9 - perdoc_start
    perdoc_ttc += [began + r["latency_s"] for r in json.load(open(path))["roots"]]
ttc = {"serial (1 OCR actor)": commit_times_serial(serial),
       "rop": [r["latency_s"] for r in rop["roots"]], "per-document": perdoc_ttc}
for row in rows:
    times = ttc[row["strategy"]]
    row["commit_p50_s"] = round(nearest_rank(times, 50), 2)
    row["commit_p99_s"] = round(nearest_rank(times, 99), 2)
failed = [r["name"] for r in rop["roots"] if r["status"] == "failed"]
result = {"cores": cores, "documents": docs, "pages": n_pages, "t_page_s": round(t_page, 3),
          "limit_pages_per_s": round(limit, 3), "rows": rows, "failed": failed,
          "load_before": os.getloadavg()[0]}
json.dump(result, open(f"{out}/b4.json", "w"), indent=2)
print(f"\n{docs} documents, {n_pages} pages; t_page = {t_page:.3f} CPU-s; "
      f"limit = {cores} / t_page = {limit:.2f} pages/s")
print("| strategy | wall s | pages/s | of the limit | time to commit p50 / p99 s |\n"
      "|---|---|---|---|---|")
for r in rows:
    print(f"| {r['strategy']} | {r['wall_s']} | {r['pages_per_s']} | {100 * r['of_limit']:.0f}% "
          f"| {r['commit_p50_s']} / {r['commit_p99_s']} |")
if failed:
    print("failed documents:", ", ".join(failed))
PY
echo "results: $OUT/b4.json"
