// rop/stdlib/video.h: video files on FFmpeg's libraries — open a video (duration, streams, codec,
// fps), cut it into clips (fixed stride or scene changes), sample frames, resample audio,
// transcode clips, and score motion (per clip) and sharpness (per frame) to filter them.
// rop-link: rop_stdlib_video avformat avcodec swscale swresample avutil
//
// Broken inputs fail their own video, never the run: a file FFmpeg cannot open or decode (empty,
// truncated, corrupt, audio-only, an unsupported codec) throws rop::RecordFailure with a reason
// that starts with the file's name and ends with what FFmpeg said.
#pragma once

#include <rop/stdlib/types.h>
#include <rop/udf.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace rop::stdlib::video {

// An opened video (std.video.open): what its container and streams say. Times are seconds.
struct Video {
    std::string path;
    std::string name;
    double duration = 0;  // the container's duration, else the video stream's
    int streams = 0;      // streams in the container, of every kind
    std::string codec;    // the video stream's decoder ("h264", "mpeg4", ...)
    double fps = 0;       // the video stream's average frame rate
    int width = 0;        // coded picture size
    int height = 0;
    bool has_audio = false;   // an audio stream with a decoder is present
    std::string audio_codec;  // its decoder, when has_audio
    int sample_rate = 0;      // its rate and channels, when has_audio
    int channels = 0;
    std::string format;  // the container ("mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm")
    Metadata metadata;   // the File's metadata, carried along
};

// A span of a video (std.video.clips): everything frames, audio, motion and transcode need to
// decode it again (they reopen the file and seek to `start`).
struct Clip {
    std::string video_path;
    std::string video_name;
    int index = 0;     // zero-based, in time order
    double start = 0;  // seconds, inclusive
    double end = 0;    // seconds, exclusive
    double fps = 0;    // the video's
    int width = 0;
    int height = 0;
    bool has_audio = false;
    std::string cut;     // "stride" or "scene": how its start was found
    double motion = -1;  // set by with_motion (mean absolute difference, 0..255); -1: not yet
};

// One sampled frame of a clip (std.video.frames). `image` is 8-bit gray or RGB, rows packed.
struct Frame {
    std::string video_path;
    std::string video_name;
    int clip_index = 0;
    int index = 0;         // zero-based within the clip
    double timestamp = 0;  // seconds from the start of the video
    Image image;
    double sharpness = -1;  // set by with_sharpness (variance of the Laplacian); -1: not yet
};

// A clip's audio (std.video.audio): interleaved float PCM in [-1, 1]. Empty when the video has
// no audio stream.
struct Audio {
    std::string video_path;
    std::string video_name;
    int clip_index = 0;
    double start = 0;
    double end = 0;
    int sample_rate = 0;
    int channels = 0;
    std::shared_ptr<const std::vector<float>> samples;

    std::size_t frames() const {  // samples per channel
        return samples && channels > 0 ? samples->size() / static_cast<std::size_t>(channels) : 0;
    }
};

// What a clip's sampled frames say (reduce Frame -> Clip, std.video.frame_stats).
struct FrameStats {
    int frames = 0;             // frames that reached the reduce (the sharp ones, after a filter)
    double mean_sharpness = 0;  // over those frames; 0 when none
    double min_sharpness = 0;
    double max_sharpness = 0;
    std::vector<double> timestamps;
};

// One clip of the per-video record (map (clip, path, stats) -> ClipRecord, std.video.record).
struct ClipRecord {
    int index = 0;
    double start = 0;
    double end = 0;
    std::string cut;
    double motion = -1;
    std::string path;  // the transcoded file
    FrameStats stats;
    std::string caption;  // empty when none was asked for
};

enum class Color { gray, rgb };

// map File -> Video: opens the container, finds the best video stream and its decoder, decodes
// the first frame to prove it can, and reads the packets of the last second (a truncated file
// fails here). Failures name the file and FFmpeg's reason: "cannot open: <av_strerror>", "empty
// file", "no video stream (audio only)", "no decoder for codec X", "cannot decode a frame:
// <av_strerror>", "truncated: no frame after 4 s of 5 s (End of file)".
Video open(const File& file);

// expand Video -> Clip (streaming). Fixed: clips of `length` seconds every `stride` seconds
// (stride 0: stride = length), the last one cut at the end of the video. `scenes: true`: a clip
// ends where the content changes, as PySceneDetect's ContentDetector finds it: consecutive
// frames downscaled to 64 px wide, in HSV, a cut where the mean of the mean absolute differences
// of H, S and V (OpenCV's ranges: H 0..179, S and V 0..255) is at least `threshold` and the
// scene so far is at least `min_length` seconds long. Each clip is emitted as soon as its end is
// known. A file that stops decoding half-way fails the video (clips emitted before are doomed).
void clips(const Video& video, rop::Emitter<Clip>& out, double length = 10, double stride = 0,
           bool scenes = false, double threshold = 27, double min_length = 0.5);

// expand Clip -> Frame (streaming): seeks to the clip's start and decodes it once, keeping the
// first frame at or after each of start, start + 1/fps, ... (fps 0: every frame), converted
// with swscale to `color`, scaled to `width` (0: the video's; height keeps the aspect ratio).
void frames(const Clip& clip, rop::Emitter<Frame>& out, double fps = 1, Color color = Color::rgb,
            int width = 0);

// map Clip -> Audio: the clip's audio resampled with libswresample to `sample_rate` Hz and
// `channels` channels (mono 16 kHz by default). A video without audio gives an empty Audio.
Audio audio(const Clip& clip, int sample_rate = 16000, int channels = 1);

// map Clip -> std::string: writes the clip's video (no audio) to `dir`/<stem>-clip<index>.mp4
// with libx264 when FFmpeg has it, else MPEG-4 part 2 ("mpeg4"); a temp file renamed into
// place, so a clip file is absent or complete. Returns the path. `codec` forces an encoder.
std::string transcode(const Clip& clip, std::string dir = "clips", std::string codec = "");

// map Clip -> double: the clip's motion, the mean absolute difference of consecutive frames
// downscaled to `width` px gray (0..255; a still clip is ~0).
double motion(const Clip& clip, int width = 64);

// map Clip -> Clip: the clip with `motion` set, for a later filter and record.
Clip with_motion(const Clip& clip, int width = 64);

// filter Clip: keeps clips whose motion is at least `min` (measured here when not yet set).
bool moving(const Clip& clip, double min = 1);

// map Frame -> double: the variance of the Laplacian (3x3, 4-neighbour) of the frame's luma, on
// the CPU. Blurry frames score low.
double sharpness(const Frame& frame);

// map Frame -> Frame: the frame with `sharpness` set.
Frame with_sharpness(const Frame& frame);

// filter Frame: keeps frames whose sharpness is at least `min` (computed when not yet set).
bool sharp(const Frame& frame, double min = 100);

// reduce Frame -> Clip: how many frames, their sharpness (mean, min, max) and timestamps.
FrameStats frame_stats(std::span<const Frame> frames);

// map (Clip, std::string path, FrameStats) -> ClipRecord: one clip's line of the video record.
ClipRecord record(const Clip& clip, const std::string& path, const FrameStats& stats);

// reduce Frame -> Clip: up to `max_frames` of the clip's frames (evenly spaced, in time order)
// tiled `columns` to a row into one RGB image, a Page (doc_path/doc_name: the video, index: the
// clip) for a vision-language model: std.model.ChatPages sends several frames in one request so.
// No frames (all dropped as blurry): a Page without an image.
Page contact_sheet(std::span<const Frame> frames, const rop::Parent<Clip>& clip, int columns = 2,
                   int max_frames = 4);

// map (ClipRecord, std::string? caption) -> ClipRecord: the record with its caption, when the
// model gave one (an optional input: a clip without a caption keeps an empty one).
ClipRecord with_caption(const ClipRecord& record, std::optional<std::string> caption);

// reduce ClipRecord -> Video: one JSON object per video, clips in time order: {"video", "name",
// "duration", "codec", "fps", "width", "height", "has_audio", "clips": [{"index", "start",
// "end", "cut", "motion", "path", "frames", "sharpness": {"mean", "min", "max"}, "caption"?}]}.
JsonText video_json(std::span<const ClipRecord> clips, const rop::Parent<Video>& video);

// reduce Audio -> Video: {"video", "clips", "seconds", "sample_rate", "channels", "rms", "peak"}
// over the clips' audio (rms and peak of every sample; 0 without audio).
JsonText audio_json(std::span<const Audio> audio, const rop::Parent<Video>& video);

}  // namespace rop::stdlib::video
