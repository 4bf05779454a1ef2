#!/usr/bin/env bash
# B9 on the video example (issue 30): --estimate's makespan and peak memory against the real run
# of examples/video/video.rop over generated videos of mixed lengths.
#   bench/b9_estimates/run_b9_video.sh
# Knobs (environment): ROPC (default build/ci/bin/ropc), OUT (default bench/results/b9), SAMPLES
# (default "2% 10%"), ROUNDS (default 2: each sample's estimate and the real run, back to back).
# Makes 40 videos (2-20 s, 320x180, testsrc2 then mandelbrot) once in $OUT/video-work/videos.
# Appends one JSON line per estimate to $OUT/b9_video.jsonl: predicted and actual makespan and
# peak resident memory (the real run's under /usr/bin/time, the estimate's peak_rss_bytes).
set -euo pipefail
# shellcheck source=estimate_vs_run.sh
source "$(dirname "$0")/estimate_vs_run.sh"
ROUNDS=${ROUNDS:-2}
work=$OUT/video-work
mkdir -p "$work/videos"
i=0
for d in 2 3 4 5 6 8 10 12 3 4 6 9 15 2 5 7 11 4 3 6 8 20 2 5 3 4 7 10 6 3 5 4 2 9 6 12 3 4 5 8; do
    i=$((i + 1))
    v=$work/videos/v$(printf %02d $i).mp4
    [[ -e $v ]] && continue
    ffmpeg -nostdin -hide_banner -loglevel error -y \
        -f lavfi -i "testsrc2=size=320x180:rate=25:duration=$((d / 2 + 1))" \
        -f lavfi -i "mandelbrot=size=320x180:rate=25:maxiter=100:start_scale=$((i % 5 + 1)),trim=duration=$(((d + 1) / 2))" \
        -filter_complex "[0:v][1:v]concat=n=2:v=1:a=0,format=yuv420p[v]" -map "[v]" \
        -c:v libx264 -preset ultrafast -g 50 "$v.tmp.mp4"
    mv "$v.tmp.mp4" "$v"
done
for v in "$work"/videos/*.mp4; do printf '{"path":"%s"}\n' "$v"; done >"$work/corpus.jsonl"
"$ROPC" build "$ROOT/examples/video/video.rop" -o "$work/video" >"$work/build.log" 2>&1 || {
    echo "ropc build failed: $work/build.log" >&2
    exit 1
}
cd "$work"
args=(--input files=corpus.jsonl --output summary=out/videos.jsonl --output levels=out/audio.jsonl
    --no-progress)
for round in $(seq 1 "$ROUNDS"); do
    for sample in $SAMPLES; do
        estimate_vs_run "$OUT/b9_video.jsonl" "{\"pipeline\": \"video\", \"round\": $round}" \
            "$sample" ./video "${args[@]}"
    done
done
