#!/usr/bin/env bash
# video.sh ROPC SOURCE_DIR WORK_DIR CACHE_DIR
# examples/video end to end: makes the test videos with the `ffmpeg` command
# (tests/data/make_test_videos.sh), builds the pipeline with ropc, runs it on the good and the
# broken videos, and checks its exit code, the per-video JSONL records (clip spans at the known
# scene cuts, still clips dropped, frame counts after the blur filter, scores), the transcoded
# clips (ffprobe reads their duration), the audio records and each broken file's reason.
set -euo pipefail
ropc=$1 src=$2 work=$3 cache=$4
rm -rf "$work"
mkdir -p "$work/in"
bash "$src/tests/data/make_test_videos.sh" "$work/videos"
cp "$work"/videos/*.mp4 "$work"/videos/*.mkv "$work"/videos/broken/*.mp4 "$work/in/"
cp "$src/examples/video/video.rop" "$work/"
cd "$work"
export ROP_CACHE_DIR=$cache
"$ropc" build video.rop -o ./video -O1
set +e
./video --report report.json >stdout.txt 2>stderr.txt
code=$?
set -e
if [ "$code" != 3 ]; then # 3: some roots failed (the broken ones), the rest ok
    echo "FAIL: exit $code, expected 3"
    cat stderr.txt
    exit 1
fi
python3 "$src/tests/examples/check_video.py" "$work"
