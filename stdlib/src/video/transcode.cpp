// std.video.transcode: one clip to its own MP4 file (H.264 via libx264 when FFmpeg has it, else
// MPEG-4 part 2), written to a temp file, fsynced and renamed into place. The same clip gives the
// same bytes in every encoder and every process (libx264 without its AVX-512 code: x264_cpu.h).
#include <fcntl.h>
#include <rop/stdlib/video.h>
#include <unistd.h>

#include <filesystem>

#include "reader.h"
#include "x264_cpu.h"

namespace rop::stdlib::video {
namespace {

namespace fs = std::filesystem;

std::string stem_of(const std::string& name) {
    std::string stem = fs::path(name).stem().string();
    for (char& c : stem) {
        const bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                           (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        if (!plain) {
            c = '_';
        }
    }
    return stem.empty() ? "video" : stem;
}

void fsync_path(const std::string& path, int flags) {
    const int fd = ::open(path.c_str(), flags);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

// The encoder: `name` when given, else libx264 when present, else mpeg4.
const AVCodec* choose_encoder(const std::string& name, const std::string& video) {
    if (!name.empty()) {
        const AVCodec* forced = avcodec_find_encoder_by_name(name.c_str());
        if (forced == nullptr || forced->type != AVMEDIA_TYPE_VIDEO) {
            detail::fail(video, "no video encoder named '" + name + "'");
        }
        return forced;
    }
    if (const AVCodec* h264 = avcodec_find_encoder_by_name("libx264")) {
        return h264;
    }
    if (const AVCodec* mpeg4 = avcodec_find_encoder_by_name("mpeg4")) {
        return mpeg4;
    }
    detail::fail(video, "neither libx264 nor mpeg4 is available to encode");
}

// Writes the clip to `temp`; the caller renames it.
void encode_clip(const Clip& clip, const AVCodec* encoder, const std::string& temp) {
    using detail::fail;
    using detail::ffmpeg_error;
    const std::string& name = clip.video_name;
    detail::VideoReader reader(clip.video_path, name);
    AVRational rate = reader.stream()->avg_frame_rate;
    if (rate.num <= 0 || rate.den <= 0) {
        rate = AVRational{25, 1};
    }
    const int width = reader.codec()->width / 2 * 2;
    const int height = reader.codec()->height / 2 * 2;

    AVFormatContext* raw = nullptr;
    if (const int rc = avformat_alloc_output_context2(&raw, nullptr, "mp4", temp.c_str()); rc < 0) {
        fail(name, "cannot set up the MP4 muxer: " + ffmpeg_error(rc));
    }
    std::unique_ptr<AVFormatContext, void (*)(AVFormatContext*)> output(
        raw, [](AVFormatContext* c) {
            if (c->pb != nullptr) {
                avio_closep(&c->pb);
            }
            avformat_free_context(c);
        });
    AVStream* stream = avformat_new_stream(output.get(), nullptr);
    detail::CodecPtr codec(avcodec_alloc_context3(encoder));
    if (stream == nullptr || !codec) {
        fail(name, "out of memory");
    }
    codec->width = width;
    codec->height = height;
    codec->pix_fmt = AV_PIX_FMT_YUV420P;
    codec->time_base = av_inv_q(rate);
    codec->framerate = rate;
    codec->gop_size = 12;
    codec->thread_count = 1;
    if (std::string(encoder->name) == "libx264") {
        av_opt_set(codec->priv_data, "preset", "veryfast", 0);
        av_opt_set(codec->priv_data, "crf", "23", 0);
        if (const std::string& features = detail::x264_asm_without_avx512(); !features.empty()) {
            av_opt_set(codec->priv_data, "x264-params", ("asm=" + features).c_str(), 0);
        }
    } else {
        codec->bit_rate = 2'000'000;
    }
    if ((output->oformat->flags & AVFMT_GLOBALHEADER) != 0) {
        codec->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    }
    if (const int rc = avcodec_open2(codec.get(), encoder, nullptr); rc < 0) {
        fail(name,
             std::string("cannot open the ") + encoder->name + " encoder: " + ffmpeg_error(rc));
    }
    avcodec_parameters_from_context(stream->codecpar, codec.get());
    stream->time_base = codec->time_base;
    if (const int rc = avio_open(&output->pb, temp.c_str(), AVIO_FLAG_WRITE); rc < 0) {
        fail(name, "cannot create '" + temp + "': " + ffmpeg_error(rc));
    }
    if (const int rc = avformat_write_header(output.get(), nullptr); rc < 0) {
        fail(name, "cannot write the MP4 header: " + ffmpeg_error(rc));
    }

    detail::PacketPtr packet(av_packet_alloc());
    auto drain = [&] {
        while (true) {
            const int rc = avcodec_receive_packet(codec.get(), packet.get());
            if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) {
                return;
            }
            if (rc < 0) {
                fail(name, "cannot encode: " + ffmpeg_error(rc));
            }
            if (packet->duration <= 0) {  // one frame: the muxer then counts the last one too
                packet->duration = 1;
            }
            av_packet_rescale_ts(packet.get(), codec->time_base, stream->time_base);
            packet->stream_index = stream->index;
            if (const int written = av_interleaved_write_frame(output.get(), packet.get());
                written < 0) {
                fail(name, "cannot write '" + temp + "': " + ffmpeg_error(written));
            }
        }
    };

    detail::ScalePtr scale;
    detail::FramePtr picture(av_frame_alloc());
    picture->format = AV_PIX_FMT_YUV420P;
    picture->width = width;
    picture->height = height;
    if (av_frame_get_buffer(picture.get(), 0) < 0) {
        fail(name, "out of memory");
    }
    std::int64_t next_pts = 0;
    const int frames =
        detail::decode_range(reader, clip.start, clip.end, [&](const AVFrame* decoded, double) {
            scale.reset(sws_getCachedContext(scale.release(), decoded->width, decoded->height,
                                             static_cast<AVPixelFormat>(decoded->format), width,
                                             height, AV_PIX_FMT_YUV420P, SWS_BILINEAR, nullptr,
                                             nullptr, nullptr));
            if (!scale || av_frame_make_writable(picture.get()) < 0) {
                fail(name, "cannot convert a frame for the encoder");
            }
            sws_scale(scale.get(), decoded->data, decoded->linesize, 0, decoded->height,
                      picture->data, picture->linesize);
            picture->pts = next_pts++;
            if (const int rc = avcodec_send_frame(codec.get(), picture.get()); rc < 0) {
                fail(name, "cannot encode: " + ffmpeg_error(rc));
            }
            drain();
        });
    if (frames == 0) {
        fail(name, "clip " + std::to_string(clip.index) + " (" + detail::seconds(clip.start) +
                       " to " + detail::seconds(clip.end) + "): no frame decodes");
    }
    avcodec_send_frame(codec.get(), nullptr);
    drain();
    if (const int rc = av_write_trailer(output.get()); rc < 0) {
        fail(name, "cannot finish '" + temp + "': " + ffmpeg_error(rc));
    }
}

}  // namespace

std::string transcode(const Clip& clip, std::string dir, std::string codec) {
    const AVCodec* encoder = choose_encoder(codec, clip.video_name);
    std::error_code error;
    fs::create_directories(dir, error);
    if (error) {
        detail::fail(clip.video_name, "cannot create '" + dir + "': " + error.message());
    }
    const std::string file =
        stem_of(clip.video_name) + "-clip" + std::to_string(clip.index) + ".mp4";
    const std::string path = (fs::path(dir) / file).string();
    const std::string temp =
        (fs::path(dir) / ("." + file + ".tmp-" + std::to_string(::getpid()))).string();
    try {
        encode_clip(clip, encoder, temp);
    } catch (...) {
        fs::remove(temp, error);
        throw;
    }
    fsync_path(temp, O_RDONLY);
    fs::rename(temp, path, error);
    if (error) {
        fs::remove(temp, error);
        detail::fail(clip.video_name, "cannot rename into '" + path + "': " + error.message());
    }
    fsync_path(dir, O_RDONLY | O_DIRECTORY);
    return path;
}

}  // namespace rop::stdlib::video
