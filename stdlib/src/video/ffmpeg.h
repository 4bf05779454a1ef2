// FFmpeg's C headers for std.video, owning pointers for its objects, and the error text rop puts
// in a failure reason: av_strerror's message plus the last error FFmpeg logged on this thread.
#pragma once

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>
}

#include <memory>
#include <string>

namespace rop::stdlib::video::detail {

struct FormatCloser {
    void operator()(AVFormatContext* context) const { avformat_close_input(&context); }
};
struct CodecFreer {
    void operator()(AVCodecContext* context) const { avcodec_free_context(&context); }
};
struct FrameFreer {
    void operator()(AVFrame* frame) const { av_frame_free(&frame); }
};
struct PacketFreer {
    void operator()(AVPacket* packet) const { av_packet_free(&packet); }
};
struct ScaleFreer {
    void operator()(SwsContext* context) const { sws_freeContext(context); }
};
struct ResampleFreer {
    void operator()(SwrContext* context) const { swr_free(&context); }
};

using FormatPtr = std::unique_ptr<AVFormatContext, FormatCloser>;
using CodecPtr = std::unique_ptr<AVCodecContext, CodecFreer>;
using FramePtr = std::unique_ptr<AVFrame, FrameFreer>;
using PacketPtr = std::unique_ptr<AVPacket, PacketFreer>;
using ScalePtr = std::unique_ptr<SwsContext, ScaleFreer>;
using ResamplePtr = std::unique_ptr<SwrContext, ResampleFreer>;

// Routes FFmpeg's log to a per-thread "last error" (nothing is printed); idempotent.
void quiet_ffmpeg_log();

// The last message FFmpeg logged at error level on this thread since the last call, trimmed
// ("moov atom not found"); empty when none. Reading it clears it.
std::string take_logged_error();

// av_strerror's text for `code`, with the logged error appended in parentheses when there is
// one: "Invalid data found when processing input (moov atom not found)".
std::string ffmpeg_error(int code);

// Throws rop::RecordFailure("<name>: <what>").
[[noreturn]] void fail(const std::string& name, const std::string& what);

// "%.3f" without trailing zeros, for reasons ("2.04 s").
std::string seconds(double value);

}  // namespace rop::stdlib::video::detail
