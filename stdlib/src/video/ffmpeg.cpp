// FFmpeg's log routed to a per-thread last error, and the failure reasons built from it.
#include "ffmpeg.h"

#include <rop/udf.h>

#include <array>
#include <cstdarg>
#include <cstdio>
#include <mutex>

namespace rop::stdlib::video::detail {
namespace {

thread_local std::string last_error;

void log_callback(void* object, int level, const char* format, va_list args) {
    if (level > AV_LOG_ERROR) {
        return;
    }
    std::array<char, 512> line{};
    int print_prefix = 0;  // the "[mov,mp4 @ 0x...]" prefix names an address: leave it out
    av_log_format_line2(object, level, format, args, line.data(), static_cast<int>(line.size()),
                        &print_prefix);
    std::string text = line.data();
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
        text.pop_back();
    }
    if (!text.empty()) {
        last_error = text;
    }
}

}  // namespace

void quiet_ffmpeg_log() {
    static std::once_flag once;
    std::call_once(once, [] { av_log_set_callback(log_callback); });
}

std::string take_logged_error() {
    std::string text = std::move(last_error);
    last_error.clear();
    return text;
}

std::string ffmpeg_error(int code) {
    std::array<char, AV_ERROR_MAX_STRING_SIZE> text{};
    av_strerror(code, text.data(), text.size());
    std::string message = text.data();
    const std::string logged = take_logged_error();
    if (!logged.empty() && logged != message) {
        message += " (" + logged + ")";
    }
    return message;
}

void fail(const std::string& name, const std::string& what) {
    throw rop::RecordFailure(name + ": " + what);
}

std::string seconds(double value) {
    std::array<char, 32> text{};
    std::snprintf(text.data(), text.size(), "%.3f", value);
    std::string out = text.data();
    while (out.size() > 1 && out.back() == '0') {
        out.pop_back();
    }
    if (out.back() == '.') {
        out.pop_back();
    }
    return out + " s";
}

}  // namespace rop::stdlib::video::detail
