// std.video.audio: a clip's audio decoded and resampled with libswresample to float PCM.
#include <rop/stdlib/video.h>

#include <algorithm>
#include <cerrno>
#include <cmath>

#include "ffmpeg.h"

namespace rop::stdlib::video {
namespace {

constexpr int kMaxErrorsInARow = 16;

}  // namespace

Audio audio(const Clip& clip, int sample_rate, int channels) {
    using detail::fail;
    using detail::ffmpeg_error;
    if (sample_rate < 1000 || sample_rate > 384000) {
        fail(clip.video_name,
             "sample rate " + std::to_string(sample_rate) + " is outside 1000..384000");
    }
    if (channels < 1 || channels > 8) {
        fail(clip.video_name, "channels " + std::to_string(channels) + " is outside 1..8");
    }
    Audio out;
    out.video_path = clip.video_path;
    out.video_name = clip.video_name;
    out.clip_index = clip.index;
    out.start = clip.start;
    out.end = clip.end;
    out.sample_rate = sample_rate;
    out.channels = channels;
    auto samples = std::make_shared<std::vector<float>>();
    out.samples = samples;

    detail::quiet_ffmpeg_log();
    detail::take_logged_error();
    std::string path = clip.video_path;
    if (path.rfind("file://", 0) == 0) {
        path = path.substr(7);
    }
    AVFormatContext* raw = nullptr;
    if (const int rc = avformat_open_input(&raw, path.c_str(), nullptr, nullptr); rc < 0) {
        fail(clip.video_name, "cannot open: " + ffmpeg_error(rc));
    }
    detail::FormatPtr format(raw);
    if (const int rc = avformat_find_stream_info(format.get(), nullptr); rc < 0) {
        fail(clip.video_name, "cannot read the stream info: " + ffmpeg_error(rc));
    }
    const AVCodec* decoder = nullptr;
    const int index = av_find_best_stream(format.get(), AVMEDIA_TYPE_AUDIO, -1, -1, &decoder, 0);
    if (index < 0 || decoder == nullptr) {
        return out;  // no audio: an empty Audio, so that a silent video's clips still pass
    }
    const AVStream* stream = format->streams[index];
    detail::CodecPtr codec(avcodec_alloc_context3(decoder));
    detail::FramePtr frame(av_frame_alloc());
    detail::PacketPtr packet(av_packet_alloc());
    if (!codec || !frame || !packet) {
        fail(clip.video_name, "out of memory");
    }
    avcodec_parameters_to_context(codec.get(), stream->codecpar);
    codec->pkt_timebase = stream->time_base;
    if (const int rc = avcodec_open2(codec.get(), decoder, nullptr); rc < 0) {
        fail(clip.video_name,
             std::string("cannot open the ") + decoder->name + " decoder: " + ffmpeg_error(rc));
    }
    const double time_base = av_q2d(stream->time_base);
    const std::int64_t origin = stream->start_time == AV_NOPTS_VALUE ? 0 : stream->start_time;
    if (clip.start > 0) {
        const auto target = static_cast<std::int64_t>(clip.start / time_base) + origin;
        if (av_seek_frame(format.get(), index, target, AVSEEK_FLAG_BACKWARD) < 0) {
            fail(clip.video_name, "cannot seek the audio to " + detail::seconds(clip.start));
        }
    }

    AVChannelLayout layout{};
    av_channel_layout_default(&layout, channels);
    detail::ResamplePtr resampler;
    double first_time = -1;
    std::vector<float> buffer;
    auto convert = [&](const std::uint8_t** input, int count) {
        const int room = swr_get_out_samples(resampler.get(), count) + 32;
        buffer.resize(static_cast<std::size_t>(room) * channels);
        std::uint8_t* output = reinterpret_cast<std::uint8_t*>(buffer.data());
        const int made = swr_convert(resampler.get(), &output, room, input, count);
        if (made < 0) {
            fail(clip.video_name, "cannot resample the audio: " + ffmpeg_error(made));
        }
        samples->insert(samples->end(), buffer.begin(),
                        buffer.begin() + static_cast<std::ptrdiff_t>(made) * channels);
        return made;
    };

    bool draining = false;
    bool done = false;
    int errors = 0;
    while (!done) {
        const int got = avcodec_receive_frame(codec.get(), frame.get());
        if (got == 0) {
            errors = 0;
            std::int64_t pts = frame->best_effort_timestamp;
            const double t = pts == AV_NOPTS_VALUE ? std::max(first_time, 0.0)
                                                   : static_cast<double>(pts - origin) * time_base;
            if (t >= clip.end) {
                break;
            }
            const double frame_end =
                t + static_cast<double>(frame->nb_samples) / frame->sample_rate;
            if (frame_end <= clip.start) {
                continue;
            }
            if (!resampler) {
                SwrContext* context = nullptr;
                if (swr_alloc_set_opts2(&context, &layout, AV_SAMPLE_FMT_FLT, sample_rate,
                                        &frame->ch_layout,
                                        static_cast<AVSampleFormat>(frame->format),
                                        frame->sample_rate, 0, nullptr) < 0 ||
                    swr_init(context) < 0) {
                    swr_free(&context);
                    fail(clip.video_name, "cannot set up the audio resampler");
                }
                resampler.reset(context);
                first_time = t;
            }
            convert(const_cast<const std::uint8_t**>(frame->extended_data), frame->nb_samples);
            continue;
        }
        if (got == AVERROR_EOF || (got == AVERROR(EAGAIN) && draining)) {
            break;
        }
        if (got != AVERROR(EAGAIN)) {
            if (++errors >= kMaxErrorsInARow) {
                fail(clip.video_name, "cannot decode the audio: " + ffmpeg_error(got));
            }
            continue;
        }
        int rc = 0;
        while ((rc = av_read_frame(format.get(), packet.get())) >= 0 &&
               packet->stream_index != index) {
            av_packet_unref(packet.get());
        }
        if (rc == AVERROR_EOF) {
            draining = true;
            avcodec_send_packet(codec.get(), nullptr);
            continue;
        }
        if (rc < 0) {
            fail(clip.video_name, "audio read error: " + ffmpeg_error(rc));
        }
        const int sent = avcodec_send_packet(codec.get(), packet.get());
        av_packet_unref(packet.get());
        if (sent < 0 && sent != AVERROR(EAGAIN) && ++errors >= kMaxErrorsInARow) {
            fail(clip.video_name, "cannot decode the audio: " + ffmpeg_error(sent));
        }
    }
    if (resampler) {
        convert(nullptr, 0);  // what the resampler still holds
    }
    av_channel_layout_uninit(&layout);

    // Trim to [start, end): the first frame fed began at first_time.
    const auto per_channel = static_cast<std::int64_t>(samples->size()) / channels;
    const std::int64_t skip =
        first_time < 0 ? 0
                       : std::clamp<std::int64_t>(
                             std::llround((clip.start - first_time) * sample_rate), 0, per_channel);
    const std::int64_t keep = std::min<std::int64_t>(
        per_channel - skip, std::llround((clip.end - clip.start) * sample_rate));
    std::vector<float> trimmed(
        samples->begin() + skip * channels,
        samples->begin() + (skip + std::max<std::int64_t>(keep, 0)) * channels);
    out.samples = std::make_shared<const std::vector<float>>(std::move(trimmed));
    return out;
}

}  // namespace rop::stdlib::video
