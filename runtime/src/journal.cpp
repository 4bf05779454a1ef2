// The journal of finished roots: see journal.h and docs/runtime.md.
#include "journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace rop::runtime::detail {
namespace {

std::optional<RootStatus> status_of(const std::string& name) {
    if (name == "ok") return RootStatus::Ok;
    if (name == "dropped") return RootStatus::Dropped;
    if (name == "failed") return RootStatus::Failed;
    return std::nullopt;
}

std::string dump(const nlohmann::json& j) {
    // Replace invalid UTF-8 (a root name is a file path, not necessarily UTF-8) instead of
    // throwing: the journal must never make a finished root fail.
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::optional<std::vector<std::string>> parse_header(std::string_view line) {
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || j.value("journal", std::string()) != "rop" || !j.contains("sinks") ||
        !j["sinks"].is_array()) {
        return std::nullopt;
    }
    std::vector<std::string> sinks;
    for (const auto& s : j["sinks"]) {
        if (!s.is_string()) return std::nullopt;
        sinks.push_back(s.get<std::string>());
    }
    return sinks;
}

std::string join(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return "[" + out + "]";
}

}  // namespace

std::string journal_header(const std::vector<std::string>& sinks) {
    return dump(nlohmann::json{{"journal", "rop"}, {"version", 1}, {"sinks", sinks}});
}

std::string journal_line(const JournalEntry& e) {
    nlohmann::json j{{"root", e.ordinal}, {"name", e.name}, {"status", to_string(e.status)}};
    if (e.status == RootStatus::Failed) {
        j["call"] = e.failed_call;
        j["reason"] = e.reason;
        j["attempts"] = e.attempts;
    }
    j["tokens"] = e.tokens;
    return dump(j);
}

std::optional<JournalEntry> parse_journal_line(std::string_view line) {
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object()) return std::nullopt;
    try {
        JournalEntry e;
        e.ordinal = j.at("root").get<std::uint64_t>();
        e.name = j.at("name").get<std::string>();
        const auto status = status_of(j.at("status").get<std::string>());
        if (!status) return std::nullopt;
        e.status = *status;
        if (e.status == RootStatus::Failed) {
            e.failed_call = j.value("call", std::string());
            e.reason = j.value("reason", std::string());
            e.attempts = j.value("attempts", 0u);
        }
        e.tokens = j.at("tokens").get<std::vector<std::string>>();
        return e;
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;
    }
}

bool Journal::parse_crash_line(std::string_view line) {
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("crashed")) return false;
    try {
        const std::string what = "call '" + j.value("call", std::string("?")) +
                                 "': " + j.value("signal", std::string("a signal"));
        for (const auto& ordinal : j.at("crashed")) {
            Crashes& c = crashes_[ordinal.get<std::uint64_t>()];
            ++c.count;
            c.last = what;
        }
    } catch (const nlohmann::json::exception&) {
        return false;
    }
    return true;
}

Journal::Journal(std::string path, const std::vector<std::string>& sinks, bool resume)
    : path_(std::move(path)) {
    const std::string where = "journal '" + path_ + "': ";
    auto fail = [&](const std::string& what) -> std::runtime_error {
        return std::runtime_error(where + what);
    };
    std::string text;
    bool existed = false;
    if (resume) {
        const int rfd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
        if (rfd < 0 && errno != ENOENT)
            throw fail(std::string("cannot read: ") + std::strerror(errno));
        if (rfd >= 0) {
            existed = true;
            char buf[65536];
            for (;;) {
                const ssize_t n = ::read(rfd, buf, sizeof buf);
                if (n < 0 && errno == EINTR) continue;
                if (n < 0) {
                    const std::string error = std::strerror(errno);
                    ::close(rfd);
                    throw fail("cannot read: " + error);
                }
                if (n == 0) break;
                text.append(buf, static_cast<std::size_t>(n));
            }
            ::close(rfd);
        }
    }
    // Complete lines only: whatever follows the last '\n' is a torn append.
    std::size_t good = 0;  // bytes of the journal that stay
    bool header = false;
    std::size_t pos = 0, number = 0;
    while (pos < text.size()) {
        const std::size_t nl = text.find('\n', pos);
        if (nl == std::string::npos) break;  // torn last line
        const std::string_view line(text.data() + pos, nl - pos);
        ++number;
        const bool last = nl + 1 == text.size();
        if (!header) {
            const auto names = parse_header(line);
            if (!names) {
                if (last) break;  // a torn header: nothing was journaled
                throw fail("line 1 is not a rop journal header");
            }
            if (*names != sinks) {
                throw fail("written for sinks " + join(*names) + ", this run has " + join(sinks) +
                           " (use the same outputs, or run without --resume)");
            }
            header = true;
        } else {
            if (parse_crash_line(line)) {
                pos = nl + 1;
                good = pos;
                continue;
            }
            auto entry = parse_journal_line(line);
            if (!entry || entry->tokens.size() != sinks.size()) {
                if (last) break;  // the last line may be garbage after a crash
                throw fail("line " + std::to_string(number) + " is malformed");
            }
            entries_.push_back(std::move(*entry));
        }
        pos = nl + 1;
        good = pos;
    }
    const bool fresh = !resume || !header;
    const int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (fresh ? O_TRUNC : 0);
    fd_ = ::open(path_.c_str(), flags, 0644);
    if (fd_ < 0) throw fail(std::string("cannot open: ") + std::strerror(errno));
    if (!fresh && good < text.size() && ::ftruncate(fd_, static_cast<off_t>(good)) != 0) {
        const std::string error = std::strerror(errno);
        ::close(fd_);
        throw fail("cannot cut its torn last line: " + error);
    }
    if (fresh) {
        write_all(journal_header(sinks));
        if (!existed || !resume) {
            // Make the new file's directory entry durable too.
            std::filesystem::path dir = std::filesystem::path(path_).parent_path();
            if (dir.empty()) dir = ".";
            const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            if (dfd >= 0) {
                (void)::fsync(dfd);
                ::close(dfd);
            }
        }
    }
}

Journal::~Journal() {
    if (writer_.joinable()) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;  // the writer appends what it was handed, then ends
        }
        wake_.notify_one();
        writer_.join();
    }
    if (fd_ >= 0) ::close(fd_);
}

void Journal::write_all(const std::string& text) {
    std::size_t written = 0;
    while (written < text.size()) {
        const ssize_t n = ::write(fd_, text.data() + written, text.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            throw std::runtime_error("journal '" + path_ +
                                     "': cannot write: " + std::strerror(errno));
        }
        written += static_cast<std::size_t>(n);
    }
    if (::fsync(fd_) != 0) {
        throw std::runtime_error("journal '" + path_ + "': cannot fsync: " + std::strerror(errno));
    }
}

void Journal::flush() {
    if (pending_lines_ == 0) return;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        throw_if_failed_locked();
        queued_ += pending_;
    }
    pending_.clear();
    pending_lines_ = 0;
    if (!writer_.joinable()) writer_ = std::thread([this] { write_loop(); });
    wake_.notify_one();
}

void Journal::sync() {
    flush();
    std::unique_lock<std::mutex> lock(mutex_);
    written_.wait(lock, [&] { return (queued_.empty() && !writing_) || failed_; });
    throw_if_failed_locked();
}

void Journal::throw_if_failed_locked() {
    if (failed_) std::rethrow_exception(failed_);
}

// Takes whatever was handed over since its last write, appends it with one write() and one
// fsync, and tells sync() when nothing is left. After a failure it writes nothing more: the
// lines after a lost one must not become durable without it.
void Journal::write_loop() {
    std::string text;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        wake_.wait(lock, [&] { return !queued_.empty() || stop_; });
        if (failed_) queued_.clear();  // nothing is written after a lost line
        if (queued_.empty()) {
            if (stop_) return;
            written_.notify_all();
            continue;
        }
        text.swap(queued_);  // queued_ now holds the last write's cleared buffer
        writing_ = true;
        lock.unlock();
        std::exception_ptr error;
        try {
            write_all(text);
        } catch (...) {
            error = std::current_exception();
        }
        text.clear();
        lock.lock();
        writing_ = false;
        if (error && !failed_) failed_ = error;
        written_.notify_all();
    }
}

}  // namespace rop::runtime::detail
