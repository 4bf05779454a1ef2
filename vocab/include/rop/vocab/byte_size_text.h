// Sizes as people write and read them, shared by ropc's build cache (`ropc cache`,
// ROP_CACHE_MAX) and a pipeline binary's result store (`--cache-prune SIZE`, `--cache-info`), so
// both take and print the same spellings. Header-only, standard headers only.
#pragma once

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace rop::vocab {

// "10G", "500MiB", "1.5 TB" (the unit optional, K/M/G/T in powers of 1024, "B" and "iB"
// optional, any case), or a plain number of bytes; nothing for anything else.
inline std::optional<std::uintmax_t> parse_byte_size(std::string_view text) {
    double value = 0;
    const auto [end, ec] =
        std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::fixed);
    if (ec != std::errc() || end == text.data() || !(value >= 0)) return std::nullopt;
    std::string unit(end, text.data() + text.size());
    for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (unit.ends_with("IB")) {
        unit.resize(unit.size() - 2);
        if (unit.empty()) return std::nullopt;  // "5iB"
    } else if (unit.ends_with("B")) {
        unit.pop_back();
    }
    int shift = 0;
    if (unit == "K") {
        shift = 10;
    } else if (unit == "M") {
        shift = 20;
    } else if (unit == "G") {
        shift = 30;
    } else if (unit == "T") {
        shift = 40;
    } else if (!unit.empty()) {
        return std::nullopt;
    }
    const double bytes = std::ldexp(value, shift);
    if (bytes >= 18446744073709551615.0) return std::nullopt;
    return static_cast<std::uintmax_t>(std::llround(bytes));
}

// 812 -> "812 B", 5 << 30 -> "5.0 GiB".
inline std::string format_byte_size(std::uintmax_t bytes) {
    if (bytes < 1024) return std::to_string(bytes) + " B";
    static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes) / 1024;
    std::size_t unit = 0;
    while (value >= 1024 && unit + 1 < std::size(kUnits)) {
        value /= 1024;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
    return text;
}

}  // namespace rop::vocab
