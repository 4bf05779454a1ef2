// The pipeline binary's log lines on stderr: a level and an ISO-8601 UTC timestamp on each,
// as text or one JSON object per line (--log-level, --log-format; docs/runtime.md
// "Observability").
//
// Not spdlog: pipeline_main writes to the std::ostream it is given (the tests capture it), a
// log line must first erase the progress block drawn on the same terminal, and the two fixed
// line formats with their fields are a few lines of code; spdlog would add a shared library
// (libspdlog1.10 + libfmt9) to every pipeline binary for that.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "rop/runtime/pipeline_main.h"

namespace rop::runtime::detail {

// "error", "warn", "info", "debug" (the --log-level words, the JSON "level").
const char* to_string(LogLevel level);

// 2026-12-01T17:47:27.123Z
std::string iso8601_utc(std::chrono::system_clock::time_point when);

// One log line, newline-terminated. Text: `TIMESTAMP LEVEL message`, the level upper-case
// and padded to 5 (a message of several lines keeps its later lines as they are). JSON:
// {"ts": ..., "level": ..., "pipeline": ..., "msg": ..., and `fields`}.
std::string format_log_line(LogFormat format, LogLevel level,
                            std::chrono::system_clock::time_point when, std::string_view pipeline,
                            std::string_view message, const nlohmann::json& fields);

// Filters by level and formats; where the line goes is the caller's (ProgressPrinter).
class Logger {
  public:
    Logger(LogLevel level, LogFormat format, std::string pipeline)
        : level_(level), format_(format), pipeline_(std::move(pipeline)) {}
    bool enabled(LogLevel level) const { return level <= level_; }
    LogFormat format() const { return format_; }
    // The line for a message at `level` now; empty when the level is filtered out.
    std::string line(LogLevel level, std::string_view message,
                     const nlohmann::json& fields = nlohmann::json::object()) const;

  private:
    LogLevel level_;
    LogFormat format_;
    std::string pipeline_;
};

}  // namespace rop::runtime::detail
