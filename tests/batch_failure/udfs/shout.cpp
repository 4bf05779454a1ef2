#include "shout.hpp"

#include <atomic>
#include <cctype>
#include <chrono>
#include <csignal>
#include <sstream>
#include <thread>

namespace shout {

std::vector<Line> lines(const std::string& text) {
    std::vector<Line> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back({line});
    return out;
}

std::vector<std::string> shout_all(std::span<const Line> lines) {
    static std::atomic<bool> first{true};
    if (first.exchange(false)) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    std::string batch;
    bool bad = false;
    for (const Line& line : lines) {
        batch += (batch.empty() ? "" : ", ") + line.text;
        bad = bad || line.text == "bad";
    }
    if (bad) throw rop::RecordFailure("batch [" + batch + "] holds 'bad'");
    std::vector<std::string> out;
    for (const Line& line : lines) {
        std::string upper = line.text;
        for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        out.push_back(upper);
    }
    return out;
}

std::vector<rop::ItemResult<std::string>> shout_each(std::span<const Line> lines) {
    static std::atomic<bool> first{true};
    if (first.exchange(false)) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    std::vector<rop::ItemResult<std::string>> out;
    for (const Line& line : lines) {
        if (line.text == "bad") {
            out.emplace_back(rop::fail_item("line 'bad' is bad"));
            continue;
        }
        std::string upper = line.text;
        for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        out.emplace_back(std::move(upper));
    }
    return out;
}

std::string shout_or_crash(const Line& line) {
    if (line.text == "bad") std::raise(SIGSEGV);
    std::string upper = line.text;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return upper;
}

std::string join(std::span<const std::string> lines) {
    std::string out;
    for (const std::string& line : lines) out += line + "\n";
    return out;
}

}  // namespace shout
