// std.video.clips: a video cut into clips by a fixed stride or at scene changes, streamed.
#include <rop/stdlib/video.h>

#include <cmath>

#include "reader.h"
#include "scene.h"

namespace rop::stdlib::video {
namespace {

constexpr int kSceneWidth = 64;  // PySceneDetect downscales too; 64 px keeps a cut a cut

Clip make_clip(const Video& video, int index, double start, double end, const char* cut) {
    Clip clip;
    clip.video_path = video.path;
    clip.video_name = video.name;
    clip.index = index;
    clip.start = start;
    clip.end = end;
    clip.fps = video.fps;
    clip.width = video.width;
    clip.height = video.height;
    clip.has_audio = video.has_audio;
    clip.cut = cut;
    return clip;
}

void fixed_clips(const Video& video, rop::Emitter<Clip>& out, double length, double stride) {
    if (!(length > 0)) {
        detail::fail(video.name, "clip length " + detail::seconds(length) + " is not positive");
    }
    if (stride <= 0) {
        stride = length;
    }
    // A clip shorter than half a frame at the end is no clip.
    const double tolerance = video.fps > 0 ? 0.5 / video.fps : 0.02;
    int index = 0;
    for (double start = 0; start < video.duration - tolerance; start = ++index * stride) {
        out.emit(
            make_clip(video, index, start, std::min(start + length, video.duration), "stride"));
    }
}

void scene_clips(const Video& video, rop::Emitter<Clip>& out, double threshold, double min_length) {
    detail::VideoReader reader(video.path, video.name);
    detail::FrameConverter converter(Color::rgb, kSceneWidth);
    std::vector<std::uint8_t> previous;
    double scene_start = 0;
    double last = 0;
    int index = 0;
    bool first = true;
    while (const AVFrame* frame = reader.next()) {
        const double t = reader.time_of(frame);
        std::vector<std::uint8_t> hsv = detail::rgb_to_hsv(*converter.convert(frame).pixels);
        if (first) {
            scene_start = t > reader.half_frame() ? t : 0;
            first = false;
        } else if (detail::content_value(previous, hsv) >= threshold &&
                   t - scene_start >= min_length) {
            out.emit(make_clip(video, index++, scene_start, t, "scene"));
            scene_start = t;
        }
        last = t;
        previous = std::move(hsv);
    }
    if (first) {
        detail::fail(video.name, "no frame decodes");
    }
    const double end = std::max(last + (video.fps > 0 ? 1.0 / video.fps : 0.0), scene_start);
    out.emit(make_clip(video, index, scene_start, std::min(end, std::max(video.duration, last)),
                       "scene"));
}

}  // namespace

void clips(const Video& video, rop::Emitter<Clip>& out, double length, double stride, bool scenes,
           double threshold, double min_length) {
    if (scenes) {
        scene_clips(video, out, threshold, min_length);
    } else {
        fixed_clips(video, out, length, stride);
    }
}

}  // namespace rop::stdlib::video
