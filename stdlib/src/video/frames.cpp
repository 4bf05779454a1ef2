// std.video.frames (a clip's frames sampled at a rate) and the per-frame sharpness score.
#include <rop/stdlib/video.h>

#include <cmath>

#include "reader.h"
#include "scene.h"

namespace rop::stdlib::video {

namespace {

std::string clip_label(const Clip& clip) {
    return "clip " + std::to_string(clip.index) + " (" + detail::seconds(clip.start) + " to " +
           detail::seconds(clip.end) + ")";
}

}  // namespace

void frames(const Clip& clip, rop::Emitter<Frame>& out, double fps, Color color, int width) {
    if (fps < 0) {
        detail::fail(clip.video_name, "fps " + std::to_string(fps) + " is negative");
    }
    if (width < 0) {
        detail::fail(clip.video_name, "width " + std::to_string(width) + " is negative");
    }
    detail::VideoReader reader(clip.video_path, clip.video_name);
    detail::FrameConverter converter(color, width);
    const double tolerance = reader.half_frame();
    double next_target = clip.start;
    int index = 0;
    detail::decode_range(reader, clip.start, clip.end, [&](const AVFrame* decoded, double t) {
        if (fps > 0 && t < next_target - tolerance) {
            return;
        }
        Frame frame;
        frame.video_path = clip.video_path;
        frame.video_name = clip.video_name;
        frame.clip_index = clip.index;
        frame.index = index++;
        frame.timestamp = t;
        frame.image = converter.convert(decoded);
        out.emit(std::move(frame));
        if (fps > 0) {  // the next target after this frame: one per 1/fps step, none skipped twice
            const double step = 1.0 / fps;
            next_target = clip.start + (std::floor((t + tolerance - clip.start) / step) + 1) * step;
        }
    });
    if (index == 0) {
        detail::fail(clip.video_name, clip_label(clip) + ": no frame decodes");
    }
}

double sharpness(const Frame& frame) {
    if (frame.image.empty()) {
        detail::fail(frame.video_name, "frame " + std::to_string(frame.index) + " of clip " +
                                           std::to_string(frame.clip_index) + " has no image");
    }
    const std::vector<std::uint8_t> gray = detail::luma(frame.image);
    return detail::laplacian_variance(gray.data(), frame.image.width, frame.image.height);
}

Frame with_sharpness(const Frame& frame) {
    Frame scored = frame;
    scored.sharpness = sharpness(frame);
    return scored;
}

bool sharp(const Frame& frame, double min) {
    return (frame.sharpness >= 0 ? frame.sharpness : sharpness(frame)) >= min;
}

FrameStats frame_stats(std::span<const Frame> frames) {
    FrameStats stats;
    stats.frames = static_cast<int>(frames.size());
    double sum = 0;
    for (const Frame& frame : frames) {
        const double score = frame.sharpness >= 0 ? frame.sharpness : sharpness(frame);
        sum += score;
        stats.min_sharpness =
            stats.timestamps.empty() ? score : std::min(stats.min_sharpness, score);
        stats.max_sharpness = std::max(stats.max_sharpness, score);
        stats.timestamps.push_back(frame.timestamp);
    }
    stats.mean_sharpness = frames.empty() ? 0 : sum / static_cast<double>(frames.size());
    return stats;
}

}  // namespace rop::stdlib::video
