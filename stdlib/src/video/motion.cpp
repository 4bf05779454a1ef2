// std.video.motion: how much a clip moves, from consecutive downscaled gray frames.
#include <rop/stdlib/video.h>

#include "reader.h"
#include "scene.h"

namespace rop::stdlib::video {

double motion(const Clip& clip, int width) {
    if (width <= 0) {
        detail::fail(clip.video_name, "motion width " + std::to_string(width) + " is not positive");
    }
    detail::VideoReader reader(clip.video_path, clip.video_name);
    detail::FrameConverter converter(Color::gray, width);
    std::vector<std::uint8_t> previous;
    double sum = 0;
    int pairs = 0;
    const int frames =
        detail::decode_range(reader, clip.start, clip.end, [&](const AVFrame* decoded, double) {
            auto gray = converter.convert(decoded).pixels;
            if (!previous.empty()) {
                sum += detail::mean_abs_difference(previous, *gray);
                ++pairs;
            }
            previous = *gray;
        });
    if (frames == 0) {
        detail::fail(clip.video_name, "clip " + std::to_string(clip.index) + " (" +
                                          detail::seconds(clip.start) + " to " +
                                          detail::seconds(clip.end) + "): no frame decodes");
    }
    return pairs == 0 ? 0 : sum / pairs;
}

Clip with_motion(const Clip& clip, int width) {
    Clip scored = clip;
    scored.motion = motion(clip, width);
    return scored;
}

bool moving(const Clip& clip, double min) {
    return (clip.motion >= 0 ? clip.motion : motion(clip)) >= min;
}

}  // namespace rop::stdlib::video
