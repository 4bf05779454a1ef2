// std.video.open: a video's container and streams, checked by decoding its first frame and a
// frame near its end (a truncated file fails here, not half-way through its clips).
#include <rop/stdlib/video.h>

#include <algorithm>

#include "reader.h"

namespace rop::stdlib::video {

Video open(const File& file) {
    const std::string& name = file.name.empty() ? file.path : file.name;
    detail::VideoReader reader(file.path, name);
    Video video;
    video.path = file.path;
    video.name = name;
    video.metadata = file.metadata;
    video.duration = reader.duration();
    video.streams = static_cast<int>(reader.format()->nb_streams);
    video.codec = reader.codec()->codec->name;
    video.fps = reader.fps();
    video.width = reader.codec()->width;
    video.height = reader.codec()->height;
    video.format = reader.format()->iformat->name;
    const AVCodec* audio_decoder = nullptr;
    const int audio =
        av_find_best_stream(reader.format(), AVMEDIA_TYPE_AUDIO, -1, -1, &audio_decoder, 0);
    if (audio >= 0 && audio_decoder != nullptr) {
        const AVCodecParameters* p = reader.format()->streams[audio]->codecpar;
        video.has_audio = true;
        video.audio_codec = audio_decoder->name;
        video.sample_rate = p->sample_rate;
        video.channels = p->ch_layout.nb_channels;
    }

    const AVFrame* first = reader.next();
    if (first == nullptr) {
        detail::fail(name, "cannot decode a frame: " + detail::ffmpeg_error(AVERROR_EOF));
    }
    if (video.width <= 0 || video.height <= 0) {
        video.width = first->width;
        video.height = first->height;
    }
    if (video.duration <= 0) {
        detail::fail(name, "unknown duration");
    }
    // The end check: the packets of the last second are all there (demuxed, not decoded: a
    // cut file's demuxer stops early). Decoding errors are the decoding operators' to report.
    // The video stream's own duration when the container knows it: an audio track may be longer.
    const AVStream* stream = reader.stream();
    const double video_end = stream->duration > 0 && stream->duration != AV_NOPTS_VALUE
                                 ? static_cast<double>(stream->duration) * av_q2d(stream->time_base)
                                 : video.duration;
    const double tail_start = std::max(0.0, video_end - 1.0);
    double last = -1;
    try {
        last = reader.last_packet_after(tail_start);
    } catch (const rop::RecordFailure& failure) {
        const std::string reason = failure.reason();
        detail::fail(name, "truncated or corrupt near the end (" + detail::seconds(tail_start) +
                               " of " + detail::seconds(video.duration) +
                               "): " + reason.substr(std::min(reason.size(), name.size() + 2)));
    }
    if (last < tail_start - 2 * reader.half_frame()) {
        // The reader met the end of the file (plus what the demuxer logged, if anything).
        detail::fail(name, "truncated: no frame after " + detail::seconds(tail_start) + " of " +
                               detail::seconds(video.duration) + " (" +
                               detail::ffmpeg_error(AVERROR_EOF) + ")");
    }
    return video;
}

}  // namespace rop::stdlib::video
