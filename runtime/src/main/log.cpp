// Log lines (log.h).
#include "log.h"

#include <ctime>

namespace rop::runtime::detail {

const char* to_string(LogLevel level) {
    switch (level) {
        case LogLevel::Error: return "error";
        case LogLevel::Warn: return "warn";
        case LogLevel::Info: return "info";
        case LogLevel::Debug: return "debug";
    }
    return "?";
}

std::string iso8601_utc(std::chrono::system_clock::time_point when) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(when.time_since_epoch());
    const std::time_t seconds = static_cast<std::time_t>(ms.count() / 1000);
    std::tm tm{};
    ::gmtime_r(&seconds, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<int>(ms.count() % 1000));
    return buf;
}

std::string format_log_line(LogFormat format, LogLevel level,
                            std::chrono::system_clock::time_point when, std::string_view pipeline,
                            std::string_view message, const nlohmann::json& fields) {
    if (format == LogFormat::Json) {
        nlohmann::json j{{"ts", iso8601_utc(when)},
                         {"level", to_string(level)},
                         {"pipeline", pipeline},
                         {"msg", message}};
        for (const auto& [key, value] : fields.items()) j[key] = value;
        // Invalid UTF-8 in a root's name or a reason is replaced, never a throw.
        return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    }
    std::string upper = to_string(level);
    for (char& c : upper) c = static_cast<char>(c - 'a' + 'A');
    upper.resize(5, ' ');
    std::string out = iso8601_utc(when) + " " + upper + " " + std::string(message);
    if (out.empty() || out.back() != '\n') out += '\n';
    return out;
}

std::string Logger::line(LogLevel level, std::string_view message,
                         const nlohmann::json& fields) const {
    if (!enabled(level)) return {};
    return format_log_line(format_, level, std::chrono::system_clock::now(), pipeline_, message,
                           fields);
}

}  // namespace rop::runtime::detail
