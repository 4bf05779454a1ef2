// The journal of finished roots: see journal.h and docs/runtime.md.
#include "journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
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

struct Header {
    std::vector<std::string> sinks;
    std::optional<std::string> pipeline, rop_hash;  // absent in version 1
};

std::optional<Header> parse_header(std::string_view line) {
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || j.value("journal", std::string()) != "rop" || !j.contains("sinks") ||
        !j["sinks"].is_array()) {
        return std::nullopt;
    }
    Header h;
    for (const auto& s : j["sinks"]) {
        if (!s.is_string()) return std::nullopt;
        h.sinks.push_back(s.get<std::string>());
    }
    if (j.contains("pipeline") && j["pipeline"].is_string()) {
        h.pipeline = j["pipeline"].get<std::string>();
    }
    if (j.contains("rop_hash") && j["rop_hash"].is_string()) {
        h.rop_hash = j["rop_hash"].get<std::string>();
    }
    return h;
}

// Why `owner` may not resume a journal with header `h` ("" when it may).
std::string refusal(const Header& h, const JournalOwner& owner) {
    if (owner.pipeline.empty()) return {};
    if (!h.pipeline) {
        if (owner.accept_rebuilt) return {};
        return "written by an rop binary that did not record its pipeline; if it is this "
               "pipeline's journal, --resume-rebuilt resumes it";
    }
    if (*h.pipeline != owner.pipeline) {
        return "written by pipeline '" + *h.pipeline + "', not by '" + owner.pipeline +
               "' (another pipeline's journal: give each pipeline its own --journal, or run "
               "without --resume)";
    }
    if (h.rop_hash.value_or("") != owner.rop_hash && !owner.accept_rebuilt) {
        return "written by pipeline '" + owner.pipeline +
               "' built from another .rop text (rop_hash " + h.rop_hash.value_or("?") +
               ", this binary's " + owner.rop_hash +
               "); if its roots and sinks still mean the same, --resume-rebuilt resumes it";
    }
    return {};
}

std::string random_id() {
    std::random_device device;
    char text[17];
    std::snprintf(text, sizeof text, "%08x%08x", device(), device());
    return text;
}

std::string join(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return "[" + out + "]";
}

}  // namespace

std::string journal_header(const std::vector<std::string>& sinks, const JournalOwner& owner) {
    nlohmann::json j{{"journal", "rop"}, {"version", 2}};
    if (!owner.pipeline.empty()) {
        j["pipeline"] = owner.pipeline;
        j["rop_hash"] = owner.rop_hash;
    }
    j["id"] = random_id();  // tells this journal from another at the same path (worker ranks)
    j["sinks"] = sinks;
    return dump(j);
}

std::string Journal::Crashes::reason() const {
    const std::string times = count == 2 ? "twice" : std::to_string(count) + " times";
    // The Call is the root's failed_call, named beside the reason.
    const std::string where = rank.empty() ? "" : " on rank " + rank;
    if (killed == count) {
        return "killed (SIGKILL) " + times + where +
               "; perhaps out of memory (the process died without a crash line while it ran)";
    }
    return "crashed the process " + times + " (last: " + last + ")";
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
    if (!line.starts_with("{\"crashed\"")) return false;  // as the crash handler writes it
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("crashed")) return false;
    try {
        std::string call;
        if (const auto it = j.find("call"); it != j.end() && it->is_string()) {
            call = it->get<std::string>();
        }
        std::string rank;
        if (j.contains("rank") && j["rank"].is_number_unsigned()) {
            rank = std::to_string(j["rank"].get<std::uint64_t>());
        }
        const std::string what = "call '" + (call.empty() ? "?" : call) + "'" +
                                 (rank.empty() ? "" : " on rank " + rank) + ": " +
                                 j.value("signal", std::string("a signal"));
        for (const auto& ordinal : j.at("crashed")) {
            Crashes& c = crashes_[ordinal.get<std::uint64_t>()];
            ++c.count;
            c.last = what;
            c.call = call;
            c.rank = rank;
        }
    } catch (const nlohmann::json::exception&) {
        return false;
    }
    return true;
}

struct Journal::Segment {
    std::uint64_t admitted = 0;        // its watermark
    bool ended = false;                // it ended under its own control
    bool crashed = false;              // a crash line named its culprits
    std::vector<std::string> running;  // the Calls a root running alone had batches in
};

bool Journal::parse_run_line(std::string_view line, Segment& segment) {
    // Cheap first: these lines start with their one key (entry lines never do).
    if (!line.starts_with("{\"begin\"") && !line.starts_with("{\"admitted\"") &&
        !line.starts_with("{\"running\"") && !line.starts_with("{\"ended\"")) {
        return false;
    }
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || j.size() != 1) return false;
    if (j.contains("begin")) {
        close_segment(segment);
        segment = Segment{};
    } else if (j.contains("admitted") && j["admitted"].is_number_unsigned()) {
        segment.admitted = std::max(segment.admitted, j["admitted"].get<std::uint64_t>());
    } else if (j.contains("running") && j["running"].is_array()) {
        segment.running.clear();
        for (const auto& call : j["running"]) {
            if (call.is_string()) segment.running.push_back(call.get<std::string>());
        }
    } else if (j.contains("ended")) {
        segment.ended = true;
    } else {
        return false;
    }
    return true;
}

// A run that left neither an end line nor a crash line died without a word (SIGKILL: the OOM
// killer; exit() in a UDF): every root under its watermark that no line says finished was in
// flight, and counts as if a crash line had named it.
void Journal::close_segment(Segment& segment) {
    if (segment.ended || segment.crashed) return;
    std::string call;
    if (segment.running.size() == 1) call = segment.running[0];
    std::string what = "killed without a crash line";
    if (!segment.running.empty()) {
        what += " while call";
        what += segment.running.size() == 1 ? " '" : "s '";
        for (std::size_t i = 0; i < segment.running.size(); ++i) {
            what += (i ? "', '" : "") + segment.running[i];
        }
        what += "' ran";
    }
    for (std::uint64_t o = 0; o < segment.admitted; ++o) {
        if (o < journaled_.size() && journaled_[o]) continue;
        Crashes& c = crashes_[o];
        ++c.count;
        ++c.killed;
        c.last = what;
        c.call = call;
        c.rank.clear();
    }
}

Journal::Journal(std::string path, const std::vector<std::string>& sinks, bool resume,
                 const JournalOwner& owner)
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
    Segment segment;  // the run that wrote the lines being read
    while (pos < text.size()) {
        const std::size_t nl = text.find('\n', pos);
        if (nl == std::string::npos) break;  // torn last line
        const std::string_view line(text.data() + pos, nl - pos);
        ++number;
        const bool last = nl + 1 == text.size();
        if (!header) {
            const auto read = parse_header(line);
            if (!read) {
                if (last) break;  // a torn header: nothing was journaled
                throw fail("line 1 is not a rop journal header");
            }
            if (std::string why = refusal(*read, owner); !why.empty()) {
                throw ForeignJournal(where + why);
            }
            if (read->sinks != sinks) {
                throw ForeignJournal(where + "written for sinks " + join(read->sinks) +
                                     ", this run has " + join(sinks) +
                                     " (use the same outputs, or run without --resume)");
            }
            header = true;
            header_ = std::string(line) + "\n";
        } else {
            if (parse_crash_line(line)) {
                segment.crashed = true;
                pos = nl + 1;
                good = pos;
                continue;
            }
            if (parse_run_line(line, segment)) {
                pos = nl + 1;
                good = pos;
                continue;
            }
            auto entry = parse_journal_line(line);
            if (!entry || entry->tokens.size() != sinks.size()) {
                if (last) break;  // the last line may be garbage after a crash
                throw fail("line " + std::to_string(number) + " is malformed");
            }
            if (entry->ordinal >= journaled_.size()) journaled_.resize(entry->ordinal + 1);
            journaled_[entry->ordinal] = true;
            entries_.push_back(std::move(*entry));
        }
        pos = nl + 1;
        good = pos;
    }
    if (header) close_segment(segment);  // the last run: how did it end?
    std::vector<bool>().swap(journaled_);
    const bool fresh = !resume || !header;
    const int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (fresh ? O_TRUNC : 0);
    fd_ = ::open(path_.c_str(), flags, 0644);
    if (fd_ < 0) throw fail(std::string("cannot open: ") + std::strerror(errno));
    if (!fresh && good < text.size() && ::ftruncate(fd_, static_cast<off_t>(good)) != 0) {
        const std::string error = std::strerror(errno);
        ::close(fd_);
        throw fail("cannot cut its torn last line: " + error);
    }
    if (!fresh) write_all("{\"begin\":\"resume\"}\n");  // this run's lines start here
    if (fresh) {
        header_ = journal_header(sinks, owner);
        write_all(header_);
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

void Journal::note_admitted(std::uint64_t end) {
    if (end <= admitted_) return;
    admitted_ = end;
    write_all("{\"admitted\":" + std::to_string(end) + "}\n", false);
}

void Journal::note_running(const std::vector<std::string>& calls) {
    write_all(dump(nlohmann::json{{"running", calls}}), false);
}

void Journal::note_ended() { write_all("{\"ended\":true}\n"); }

void Journal::write_all(const std::string& text, bool sync) {
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
    if (sync && ::fsync(fd_) != 0) {
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
