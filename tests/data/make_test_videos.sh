#!/usr/bin/env bash
# make_test_videos.sh OUT_DIR: the test videos of std.video, made with the `ffmpeg` command from
# FFmpeg's own sources (lavfi testsrc2, mandelbrot, smptebars, sine), plus broken files.
#   scenes.mp4     H.264 320x240 25 fps, 5 s, AAC 44.1 kHz stereo sine: scene cuts at 2.0 s
#                  (testsrc2 -> mandelbrot) and 3.6 s (-> smptebars, which is still)
#   moving.mkv     MPEG-4 part 2 in Matroska, 3 s of testsrc2 at 30 fps, no audio
#   blurry.mp4     H.264, 2 s of testsrc2 through a strong Gaussian blur, no audio
#   broken/        empty.mp4 (0 bytes), text.mp4 (a text file), corrupt.mp4 (random bytes),
#                  truncated.mp4 (scenes.mp4 cut in half: the moov atom at its end is gone),
#                  audio_only.mp4 (AAC only), unsupported.mp4 (scenes.mp4 with its codec tag
#                  renamed, so no decoder takes it)
# Deterministic inputs; rebuilt only when missing (the stamp file is the last one written).
set -euo pipefail
out=$1
[ -e "$out/.complete" ] && exit 0
mkdir -p "$out/broken"
ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }
size=320x240

ff -f lavfi -i "testsrc2=size=$size:rate=25:duration=2" \
    -f lavfi -i "mandelbrot=size=$size:rate=25,trim=duration=1.6" \
    -f lavfi -i "smptebars=size=$size:rate=25:duration=1.4" \
    -f lavfi -i "sine=frequency=440:sample_rate=44100:duration=5" \
    -filter_complex "[0:v][1:v][2:v]concat=n=3:v=1:a=0,format=yuv420p[v];[3:a]aformat=channel_layouts=stereo[a]" \
    -map "[v]" -map "[a]" -c:v libx264 -preset veryfast -g 25 -bf 0 -c:a aac -b:a 64k -movflags +faststart \
    "$out/scenes.mp4"
ff -f lavfi -i "testsrc2=size=$size:rate=30:duration=3" -c:v mpeg4 -q:v 3 "$out/moving.mkv"
ff -f lavfi -i "testsrc2=size=$size:rate=25:duration=2,gblur=sigma=8" -c:v libx264 \
    -preset veryfast -pix_fmt yuv420p "$out/blurry.mp4"

: >"$out/broken/empty.mp4"
printf 'This is not a video.\nJust text with an .mp4 name.\n' >"$out/broken/text.mp4"
python3 -c "import random,sys; random.seed(7); sys.stdout.buffer.write(random.randbytes(65536))" \
    >"$out/broken/corrupt.mp4"
bytes=$(stat -c %s "$out/scenes.mp4")
head -c $((bytes / 2)) "$out/scenes.mp4" >"$out/broken/truncated.mp4"
ff -f lavfi -i "sine=frequency=220:sample_rate=16000:duration=2" -c:a aac "$out/broken/audio_only.mp4"
# The video sample entry's codec tag 'avc1' -> 'zzzz': the container opens, no decoder knows it.
perl -pe 's/avc1/zzzz/g' "$out/scenes.mp4" >"$out/broken/unsupported.mp4"
touch "$out/.complete"
