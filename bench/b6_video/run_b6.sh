#!/usr/bin/env bash
# B6: video decode + clip + frame extraction, frames/s, against the machine limit: the `ffmpeg`
# command decoding the same videos on every core (`ffmpeg -threads N -i X -f null -`, one video
# after another; also N single-threaded ffmpeg processes at once, whichever is faster).
#   rop stride   b6_stride.rop: 5 s clips (no decoding to cut), every frame decoded once and
#                converted to RGB at full size by std.video.frames (2 actors)
#   rop scenes   b6_scenes.rop: scene detection decodes every frame once (64 px HSV), then
#                frames decodes every clip again (RGB, full size): two decodes per frame
# Videos: VIDEOS (default 4) H.264 640x360 25 fps, VIDEO_SECONDS (default 20) long, a scene cut every
# VIDEO_SECONDS / 4 s (testsrc2, mandelbrot, life, cellauto), made once with ffmpeg in $OUT/work/videos.
# Knobs: ROPC (default build/release/bin/ropc, else build/ci/bin/ropc), OUT (default
# bench/results/b6), REPEAT (median of, default 3). Prints a table; writes $OUT/b6.json.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/bench/b6_video
ROPC=${ROPC:-$ROOT/build/release/bin/ropc}
[ -x "$ROPC" ] || ROPC=$ROOT/build/ci/bin/ropc
OUT=${OUT:-$ROOT/bench/results/b6}
REPEAT=${REPEAT:-3}
VIDEOS=${VIDEOS:-4}
SECONDS_EACH=${VIDEO_SECONDS:-20}
CORES=$(nproc)
work=$OUT/work
mkdir -p "$work/videos"
cp -r "$HERE/udfs" "$HERE"/*.rop "$work/"

seg=$((SECONDS_EACH / 4))
for i in $(seq 1 "$VIDEOS"); do
    v=$work/videos/v$i.mp4
    [ -e "$v" ] && continue
    ffmpeg -nostdin -hide_banner -loglevel error -y \
        -f lavfi -i "testsrc2=size=640x360:rate=25:duration=$seg" \
        -f lavfi -i "mandelbrot=size=640x360:rate=25:maxiter=200:start_scale=$i,trim=duration=$seg" \
        -f lavfi -i "life=size=640x360:rate=25:mold=10:seed=$i,trim=duration=$seg,format=yuv420p" \
        -f lavfi -i "cellauto=size=640x360:rate=25:rule=$((18 + i)),trim=duration=$seg,format=yuv420p" \
        -filter_complex "[0:v][1:v][2:v][3:v]concat=n=4:v=1:a=0,format=yuv420p[v]" -map "[v]" \
        -c:v libx264 -preset veryfast -g 50 "$v.tmp.mp4"
    mv "$v.tmp.mp4" "$v"
done
frames_total=0
for v in "$work"/videos/*.mp4; do
    n=$(ffprobe -v error -count_packets -select_streams v:0 -show_entries stream=nb_read_packets \
        -of csv=p=0 "$v")
    frames_total=$((frames_total + n))
done

echo "== ropc build (b6_stride, b6_scenes) with $ROPC"
(cd "$work" && "$ROPC" build b6_stride.rop -o ./b6_stride -O2 && "$ROPC" build b6_scenes.rop -o ./b6_scenes -O2)

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
now() { date +%s%N; }
results=$work/runs.txt
: >"$results"
load_before=$(cut -d' ' -f1 /proc/loadavg)
for r in $(seq 1 "$REPEAT"); do
    start=$(now)
    for v in "$work"/videos/*.mp4; do
        ffmpeg -nostdin -hide_banner -loglevel error -threads "$CORES" -i "$v" -f null -
    done
    echo "ffmpeg_threads $((($(now) - start) / 1000000))" >>"$results"
    start=$(now)
    ls "$work"/videos/*.mp4 | xargs -P "$CORES" -I{} \
        ffmpeg -nostdin -hide_banner -loglevel error -threads 1 -i {} -f null -
    echo "ffmpeg_procs $((($(now) - start) / 1000000))" >>"$results"
    for p in stride scenes; do
        rm -rf "$work/out"
        start=$(now)
        (cd "$work" && "./b6_$p" --no-progress --report "report-$p.json" >/dev/null)
        echo "rop_$p $((($(now) - start) / 1000000))" >>"$results"
        got=$(python3 -c "import json,sys; print(sum(json.loads(l)['frames'] for l in open(sys.argv[1])))" \
            "$work/out/$p.jsonl")
        [ "$got" = "$frames_total" ] || {
            echo "b6: rop $p counted $got frames, not $frames_total" >&2
            exit 1
        }
    done
done
load_after=$(cut -d' ' -f1 /proc/loadavg)

python3 - "$results" "$frames_total" "$CORES" "$load_before" "$load_after" "$OUT/b6.json" <<'PY'
import json, statistics, sys
runs, frames, cores = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ms = {}
for line in open(runs):
    label, value = line.split()
    ms.setdefault(label, []).append(int(value))
median = {k: statistics.median(v) / 1000 for k, v in ms.items()}
fps = {k: frames / s for k, s in median.items()}
limit = max(fps["ffmpeg_threads"], fps["ffmpeg_procs"])
print(f"B6: {frames} frames (H.264 640x360), {cores} cores, load {sys.argv[4]} -> {sys.argv[5]}, "
      f"median of {len(ms['rop_stride'])}")
print(f"{'run':34s} {'wall s':>7s} {'frames/s':>9s} {'of limit':>8s}")
names = {"ffmpeg_threads": f"ffmpeg -threads {cores}, one by one",
         "ffmpeg_procs": f"ffmpeg -threads 1, {cores} at once",
         "rop_stride": "rop stride clips + frames",
         "rop_scenes": "rop scene clips + frames"}
for k in ["ffmpeg_threads", "ffmpeg_procs", "rop_stride", "rop_scenes"]:
    print(f"{names[k]:34s} {median[k]:7.2f} {fps[k]:9.0f} {100 * fps[k] / limit:7.0f}%")
json.dump({"frames": frames, "cores": cores, "load_before": float(sys.argv[4]),
           "load_after": float(sys.argv[5]), "wall_s": median, "frames_per_s": fps,
           "limit_frames_per_s": limit, "runs_ms": ms}, open(sys.argv[6], "w"), indent=1)
PY
