// The per-video records of a video pipeline: clip records folded into one JSON object per video,
// and the audio of its clips summed up.
#include <rop/stdlib/video.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace rop::stdlib::video {
namespace {

using nlohmann::json;

// Scores and times with three decimals, so the JSON reads well and is byte-stable.
double rounded(double value) { return std::round(value * 1000.0) / 1000.0; }

}  // namespace

ClipRecord record(const Clip& clip, const std::string& path, const FrameStats& stats) {
    ClipRecord out;
    out.index = clip.index;
    out.start = clip.start;
    out.end = clip.end;
    out.cut = clip.cut;
    out.motion = clip.motion;
    out.path = path;
    out.stats = stats;
    return out;
}

JsonText video_json(std::span<const ClipRecord> clips, const rop::Parent<Video>& video) {
    std::vector<const ClipRecord*> ordered;
    for (const ClipRecord& clip : clips) {
        ordered.push_back(&clip);
    }
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const ClipRecord* a, const ClipRecord* b) { return a->start < b->start; });
    json list = json::array();
    for (const ClipRecord* clip : ordered) {
        json entry = {{"index", clip->index},
                      {"start", rounded(clip->start)},
                      {"end", rounded(clip->end)},
                      {"cut", clip->cut},
                      {"motion", rounded(clip->motion)},
                      {"path", clip->path},
                      {"frames", clip->stats.frames},
                      {"sharpness",
                       {{"mean", rounded(clip->stats.mean_sharpness)},
                        {"min", rounded(clip->stats.min_sharpness)},
                        {"max", rounded(clip->stats.max_sharpness)}}}};
        if (!clip->caption.empty()) {
            entry["caption"] = clip->caption;
        }
        list.push_back(std::move(entry));
    }
    const Video& v = video.get();
    const json out = {
        {"video", v.path},    {"name", v.name},           {"duration", rounded(v.duration)},
        {"codec", v.codec},   {"fps", rounded(v.fps)},    {"width", v.width},
        {"height", v.height}, {"has_audio", v.has_audio}, {"clips", std::move(list)}};
    return JsonText{out.dump()};
}

JsonText audio_json(std::span<const Audio> audio, const rop::Parent<Video>& video) {
    double seconds = 0;
    double sum_sq = 0;
    double peak = 0;
    std::size_t count = 0;
    int rate = 0;
    int channels = 0;
    for (const Audio& clip : audio) {
        if (clip.sample_rate > 0) {
            seconds += static_cast<double>(clip.frames()) / clip.sample_rate;
            rate = clip.sample_rate;
            channels = clip.channels;
        }
        if (clip.samples) {
            for (const float sample : *clip.samples) {
                sum_sq += static_cast<double>(sample) * sample;
                peak = std::max(peak, static_cast<double>(std::fabs(sample)));
            }
            count += clip.samples->size();
        }
    }
    const json out = {{"video", video->path},
                      {"name", video->name},
                      {"clips", audio.size()},
                      {"seconds", rounded(seconds)},
                      {"sample_rate", rate},
                      {"channels", channels},
                      {"rms", rounded(count == 0 ? 0.0 : std::sqrt(sum_sq / count))},
                      {"peak", rounded(peak)}};
    return JsonText{out.dump()};
}

}  // namespace rop::stdlib::video
