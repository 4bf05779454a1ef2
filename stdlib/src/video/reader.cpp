// VideoReader and FrameConverter: FFmpeg demuxing, decoding and swscale conversion, guarded.
#include "reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <vector>

namespace rop::stdlib::video::detail {
namespace {

constexpr int kMaxDecodeErrorsInARow = 16;
constexpr int kMaxPacketsWithoutFrame = 4096;

std::string local_path(const std::string& path) {
    const std::string scheme = "file://";
    return path.rfind(scheme, 0) == 0 ? path.substr(scheme.size()) : path;
}

}  // namespace

VideoReader::VideoReader(const std::string& path, const std::string& name) : name_(name) {
    quiet_ffmpeg_log();
    take_logged_error();
    const std::string file = local_path(path);
    struct stat info{};
    if (::stat(file.c_str(), &info) != 0) {
        fail(name_, std::string("cannot open: ") + std::strerror(errno));
    }
    if (info.st_size == 0) {
        fail(name_, "empty file");
    }
    AVFormatContext* raw = nullptr;
    if (const int rc = avformat_open_input(&raw, file.c_str(), nullptr, nullptr); rc < 0) {
        fail(name_, "cannot open: " + ffmpeg_error(rc));
    }
    format_.reset(raw);
    if (const int rc = avformat_find_stream_info(format_.get(), nullptr); rc < 0) {
        fail(name_, "cannot read the stream info: " + ffmpeg_error(rc));
    }
    const AVCodec* decoder = nullptr;
    stream_index_ = av_find_best_stream(format_.get(), AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
    if (stream_index_ == AVERROR_STREAM_NOT_FOUND) {
        const bool audio =
            av_find_best_stream(format_.get(), AVMEDIA_TYPE_AUDIO, -1, -1, nullptr, 0) >= 0;
        fail(name_, audio ? "no video stream (audio only)" : "no video stream");
    }
    const AVCodecParameters* parameters = format_->streams[std::max(stream_index_, 0)]->codecpar;
    if (stream_index_ == AVERROR_DECODER_NOT_FOUND || decoder == nullptr) {
        // av_find_best_stream answers "no decoder" without saying which stream: name the codec
        // of the first video stream.
        std::string codec = "unknown";
        for (unsigned i = 0; i < format_->nb_streams; ++i) {
            const AVCodecParameters* p = format_->streams[i]->codecpar;
            if (p->codec_type == AVMEDIA_TYPE_VIDEO) {
                char tag[AV_FOURCC_MAX_STRING_SIZE] = {};
                av_fourcc_make_string(tag, p->codec_tag);
                codec = std::string(avcodec_get_name(p->codec_id)) + ", tag " + tag;
                break;
            }
        }
        fail(name_, "no decoder for codec " + codec);
    }
    if (stream_index_ < 0) {
        fail(name_, "no video stream: " + ffmpeg_error(stream_index_));
    }
    codec_.reset(avcodec_alloc_context3(decoder));
    frame_.reset(av_frame_alloc());
    packet_.reset(av_packet_alloc());
    if (!codec_ || !frame_ || !packet_) {
        fail(name_, "out of memory");
    }
    if (const int rc = avcodec_parameters_to_context(codec_.get(), parameters); rc < 0) {
        fail(name_, "cannot set up the decoder: " + ffmpeg_error(rc));
    }
    codec_->thread_count = 1;
    codec_->pkt_timebase = format_->streams[stream_index_]->time_base;
    if (const int rc = avcodec_open2(codec_.get(), decoder, nullptr); rc < 0) {
        fail(name_,
             std::string("cannot open the ") + decoder->name + " decoder: " + ffmpeg_error(rc));
    }
}

double VideoReader::fps() const {
    AVRational rate = stream()->avg_frame_rate;
    if (rate.num <= 0 || rate.den <= 0) {
        rate = stream()->r_frame_rate;
    }
    return rate.num > 0 && rate.den > 0 ? av_q2d(rate) : 0;
}

double VideoReader::duration() const {
    if (format_->duration > 0) {
        return static_cast<double>(format_->duration) / AV_TIME_BASE;
    }
    if (stream()->duration > 0) {
        return static_cast<double>(stream()->duration) * av_q2d(stream()->time_base);
    }
    return 0;
}

double VideoReader::half_frame() const {
    const double rate = fps();
    return rate > 0 ? 0.5 / rate : 0.02;
}

void VideoReader::seek(double seconds) {
    const AVStream* s = stream();
    std::int64_t target = static_cast<std::int64_t>(std::floor(seconds / av_q2d(s->time_base)));
    if (s->start_time != AV_NOPTS_VALUE) {
        target += s->start_time;
    }
    if (const int rc = av_seek_frame(format_.get(), stream_index_, target, AVSEEK_FLAG_BACKWARD);
        rc < 0) {
        fail(name_, "cannot seek to " + video::detail::seconds(seconds) + ": " + ffmpeg_error(rc));
    }
    avcodec_flush_buffers(codec_.get());
    draining_ = false;
    ended_ = false;
}

double VideoReader::time_of(const AVFrame* frame) const {
    std::int64_t pts = frame->best_effort_timestamp;
    if (pts == AV_NOPTS_VALUE) {
        pts = frame->pts;
    }
    if (pts == AV_NOPTS_VALUE) {
        return last_time_;
    }
    if (stream()->start_time != AV_NOPTS_VALUE) {
        pts -= stream()->start_time;
    }
    return static_cast<double>(pts) * av_q2d(stream()->time_base);
}

double VideoReader::last_packet_after(double seconds) {
    seek(seconds);
    double last = -1;
    const AVStream* s = stream();
    const std::int64_t origin = s->start_time == AV_NOPTS_VALUE ? 0 : s->start_time;
    int rc = 0;
    while ((rc = av_read_frame(format_.get(), packet_.get())) >= 0) {
        if (packet_->stream_index == stream_index_ && packet_->pts != AV_NOPTS_VALUE) {
            last =
                std::max(last, static_cast<double>(packet_->pts - origin) * av_q2d(s->time_base));
        }
        av_packet_unref(packet_.get());
    }
    if (rc != AVERROR_EOF) {
        fail(name_,
             "read error after " + video::detail::seconds(seconds) + ": " + ffmpeg_error(rc));
    }
    return last;
}

AVFrame* VideoReader::next() {
    int errors_in_a_row = 0;
    int packets_without_frame = 0;
    while (!ended_) {
        const int got = avcodec_receive_frame(codec_.get(), frame_.get());
        if (got == 0) {
            last_time_ = time_of(frame_.get());
            return frame_.get();
        }
        if (got == AVERROR_EOF) {
            ended_ = true;
            break;
        }
        if (got != AVERROR(EAGAIN)) {
            if (++errors_in_a_row >= kMaxDecodeErrorsInARow) {
                fail(name_, "cannot decode at " + seconds(last_time_) + ": " + ffmpeg_error(got));
            }
            continue;
        }
        if (draining_) {  // EAGAIN while draining: the decoder has nothing more to give
            ended_ = true;
            break;
        }
        // The decoder wants input: the next packet of our stream, or the drain signal.
        int rc = 0;
        while ((rc = av_read_frame(format_.get(), packet_.get())) >= 0 &&
               packet_->stream_index != stream_index_) {
            av_packet_unref(packet_.get());
        }
        if (rc == AVERROR_EOF) {
            draining_ = true;
            avcodec_send_packet(codec_.get(), nullptr);
            continue;
        }
        if (rc < 0) {
            fail(name_, "read error at " + seconds(last_time_) + ": " + ffmpeg_error(rc));
        }
        const int sent = avcodec_send_packet(codec_.get(), packet_.get());
        av_packet_unref(packet_.get());
        if (sent < 0 && sent != AVERROR(EAGAIN)) {
            if (++errors_in_a_row >= kMaxDecodeErrorsInARow) {
                fail(name_, "cannot decode at " + seconds(last_time_) + ": " + ffmpeg_error(sent));
            }
        } else {
            errors_in_a_row = 0;
        }
        if (++packets_without_frame > kMaxPacketsWithoutFrame) {
            fail(name_, "the decoder gave no frame for " + std::to_string(kMaxPacketsWithoutFrame) +
                            " packets");
        }
    }
    return nullptr;
}

Image FrameConverter::convert(const AVFrame* frame) {
    if (!scale_ || frame->width != source_width_ || frame->height != source_height_ ||
        frame->format != source_format_) {
        source_width_ = frame->width;
        source_height_ = frame->height;
        source_format_ = frame->format;
        out_width_ = width_ > 0 ? width_ : frame->width;
        out_height_ = static_cast<int>(std::lround(static_cast<double>(frame->height) * out_width_ /
                                                   frame->width / 2.0)) *
                      2;
        out_height_ = std::max(out_height_, 2);
        scale_.reset(sws_getContext(
            frame->width, frame->height, static_cast<AVPixelFormat>(frame->format), out_width_,
            out_height_, color_ == Color::rgb ? AV_PIX_FMT_RGB24 : AV_PIX_FMT_GRAY8, SWS_BILINEAR,
            nullptr, nullptr, nullptr));
        if (!scale_) {
            throw std::runtime_error("swscale cannot convert this frame format");
        }
    }
    const int channels = color_ == Color::rgb ? 3 : 1;
    auto pixels = std::make_shared<std::vector<std::uint8_t>>(static_cast<std::size_t>(out_width_) *
                                                              out_height_ * channels);
    std::uint8_t* planes[4] = {pixels->data(), nullptr, nullptr, nullptr};
    const int strides[4] = {out_width_ * channels, 0, 0, 0};
    sws_scale(scale_.get(), frame->data, frame->linesize, 0, frame->height, planes, strides);
    return Image{out_width_, out_height_, channels, std::move(pixels)};
}

int decode_range(VideoReader& reader, double start, double end,
                 const std::function<void(const AVFrame*, double)>& visit) {
    const double tolerance = reader.half_frame();
    if (start > tolerance) {
        reader.seek(start);
    }
    int visited = 0;
    while (const AVFrame* frame = reader.next()) {
        const double t = reader.time_of(frame);
        if (t < start - tolerance) {
            continue;  // decoded from the key frame before the start
        }
        if (t >= end - tolerance) {
            break;
        }
        visit(frame, t);
        ++visited;
    }
    return visited;
}

}  // namespace rop::stdlib::video::detail
