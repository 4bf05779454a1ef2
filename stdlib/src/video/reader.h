// VideoReader: one open video file and its video decoder, for every std.video operator that
// decodes pictures. It seeks, decodes frame after frame with guards against a decoder that
// returns nothing, and turns FFmpeg's errors into rop::RecordFailure reasons naming the file.
#pragma once

#include <rop/stdlib/video.h>

#include <cstdint>
#include <functional>
#include <string>

#include "ffmpeg.h"

namespace rop::stdlib::video::detail {

class VideoReader {
  public:
    // Opens `path` and its best video stream's decoder (one thread: scale with actors). Fails
    // with "cannot open: ...", "empty file", "no video stream (audio only)", "no decoder for
    // codec X".
    VideoReader(const std::string& path, const std::string& name);

    const std::string& name() const { return name_; }
    AVFormatContext* format() const { return format_.get(); }
    const AVStream* stream() const { return format_->streams[stream_index_]; }
    const AVCodecContext* codec() const { return codec_.get(); }
    double fps() const;
    double duration() const;
    // Half a frame's duration: the tolerance of every time comparison.
    double half_frame() const;

    // The next frame at or after `seconds` comes out of next() (av_seek_frame to the key frame
    // before it; 0 rewinds). Decoding resumes from there.
    void seek(double seconds);

    // The next decoded frame (owned by the reader, valid until the next call), or nullptr at the
    // end of the stream. A read error other than the end of the file fails the video ("read
    // error at 2.4 s: ..."); so do 16 decoding errors in a row, and 4096 packets in a row from
    // which the decoder gives no frame.
    AVFrame* next();

    // Demuxes (does not decode) the video packets from the key frame before `seconds` to the end
    // of the file and returns the latest packet time, -1 when there is none. A read error other
    // than the end of the file fails the video. Leaves the reader to be seek()ed again.
    double last_packet_after(double seconds);

    // A frame's time in seconds from the start of the stream.
    double time_of(const AVFrame* frame) const;

  private:
    std::string name_;
    FormatPtr format_;
    CodecPtr codec_;
    FramePtr frame_;
    PacketPtr packet_;
    int stream_index_ = -1;
    bool draining_ = false;
    bool ended_ = false;
    double last_time_ = 0;
};

// Converts decoded frames to packed 8-bit gray or RGB at a chosen width (0: the frame's; the
// height keeps the aspect ratio, rounded to an even number), with one cached swscale context.
class FrameConverter {
  public:
    FrameConverter(Color color, int width) : color_(color), width_(width) {}
    Image convert(const AVFrame* frame);

  private:
    Color color_;
    int width_;
    ScalePtr scale_;
    int source_width_ = 0;
    int source_height_ = 0;
    int source_format_ = -1;
    int out_width_ = 0;
    int out_height_ = 0;
};

// Decodes the frames of [start, end) (half a frame of tolerance on both ends) once, calling
// `visit(frame, seconds)` for each in order; stops at the first frame past `end`. Returns how
// many frames were visited.
int decode_range(VideoReader& reader, double start, double end,
                 const std::function<void(const AVFrame*, double)>& visit);

}  // namespace rop::stdlib::video::detail
