"""Checks examples/video's outputs (tests/examples/video.sh): argv[1] is the work folder."""
import json
import os
import subprocess
import sys

work = sys.argv[1]
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def near(value, expected, tolerance):
    return abs(value - expected) <= tolerance


FRAME = 1 / 25
videos = {}
with open(os.path.join(work, "out/videos.jsonl")) as lines:
    for line in lines:
        record = json.loads(line)
        videos[record["name"]] = record
check(
    sorted(videos) == ["in/blurry.mp4", "in/moving.mkv", "in/scenes.mp4"],
    f"video records: {sorted(videos)}",
)

scenes = videos.get("in/scenes.mp4", {"clips": []})
check(
    scenes.get("codec") == "h264" and scenes.get("has_audio") is True,
    f"scenes.mp4 header: {scenes}",
)
clips = scenes["clips"]
# Cuts at 2.0 and 3.6 s; the third scene (smptebars, still) is dropped by the motion filter.
check(len(clips) == 2, f"scenes.mp4: {len(clips)} clips, expected 2")
if len(clips) == 2:
    for clip, (start, end) in zip(clips, [(0.0, 2.0), (2.0, 3.6)]):
        check(
            near(clip["start"], start, FRAME) and near(clip["end"], end, FRAME),
            f"scenes.mp4 clip {clip['index']}: {clip['start']}..{clip['end']}, "
            f"expected {start}..{end}",
        )
        check(clip["frames"] == 4, f"scenes.mp4 clip {clip['index']}: {clip['frames']} frames")
        check(clip["motion"] >= 0.5, f"scenes.mp4 clip {clip['index']}: motion {clip['motion']}")
        check(clip["sharpness"]["min"] >= 50, f"a blurry frame kept: {clip['sharpness']}")
        check(clip["cut"] == "scene", f"cut {clip['cut']}")
        path = os.path.join(work, clip["path"])
        probe = subprocess.run(
            ["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path],
            capture_output=True,
            text=True,
        )
        check(probe.returncode == 0, f"ffprobe {path}: {probe.stderr.strip()}")
        if probe.returncode == 0:
            duration = float(probe.stdout.strip())
            check(
                near(duration, end - start, FRAME / 2),
                f"{clip['path']}: {duration} s, expected {end - start}",
            )
    check(clips[0]["start"] < clips[1]["start"], "clips out of time order")

blurry = videos.get("in/blurry.mp4", {"clips": [{}]})["clips"]
check(
    len(blurry) == 1 and blurry[0].get("frames") == 0,
    f"blurry.mp4: every frame should be dropped as blurry: {blurry}",
)
moving = videos.get("in/moving.mkv", {"clips": [{}]})["clips"]
check(
    len(moving) == 1 and moving[0].get("frames") == 6 and near(moving[0].get("end", 0), 3.0, 0.04),
    f"moving.mkv: one 3 s clip with 6 frames at 2 fps: {moving}",
)
clip_files = sorted(f for f in os.listdir(os.path.join(work, "out/clips")))
check(
    clip_files == ["blurry-clip0.mp4", "moving-clip0.mp4", "scenes-clip0.mp4", "scenes-clip1.mp4"],
    f"clip files: {clip_files}",
)

audio = {}
with open(os.path.join(work, "out/audio.jsonl")) as lines:
    for line in lines:
        record = json.loads(line)
        audio[record["name"]] = record
sound = audio.get("in/scenes.mp4", {})
check(
    near(sound.get("seconds", 0), 3.6, 0.01)
    and sound.get("sample_rate") == 16000
    and sound.get("channels") == 1,
    f"scenes.mp4 audio: {sound}",
)
# lavfi's sine has amplitude 1/8: RMS 0.0884.
check(near(sound.get("rms", 0), 0.0884, 0.01), f"scenes.mp4 audio RMS: {sound}")
check(audio.get("in/moving.mkv", {}).get("seconds") == 0, "moving.mkv has no audio")

report = json.load(open(os.path.join(work, "report.json")))
reasons = {r["name"]: r.get("reason") for r in report["roots"] if r["status"] == "failed"}
expected = {
    "in/audio_only.mp4": "in/audio_only.mp4: no video stream (audio only)",
    "in/corrupt.mp4": "in/corrupt.mp4: cannot open: Invalid data found when processing input "
    "(moov atom not found)",
    "in/empty.mp4": "in/empty.mp4: empty file",
    "in/text.mp4": "in/text.mp4: cannot open: Invalid data found when processing input "
    "(moov atom not found)",
    "in/truncated.mp4": "in/truncated.mp4: truncated: no frame after 4 s of 5 s " "(End of file)",
    "in/unsupported.mp4": "in/unsupported.mp4: no decoder for codec none, tag zzzz",
}
check(reasons == expected, f"failure reasons: {json.dumps(reasons, indent=1)}")

if failures:
    print("FAIL:\n  " + "\n  ".join(failures))
    sys.exit(1)
print("example video: ok")
