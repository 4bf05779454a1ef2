// The journal of finished roots (docs/runtime.md "Sinks, journal and resume"): a JSONL file, a
// header line naming the root sinks, then one line per finished root (ordinal, name, status,
// failure, every root sink's checkpoint token). Lines are grouped: add() keeps a line in memory,
// flush() hands every kept line to the journal's writer thread, which appends them with one
// write() and one fsync, so the driver never waits for the disk (RootSinks decides when; sync()
// waits until all handed over is durable).
// A torn last line (a crash mid-append) is ignored on reading and cut off before appending.
// A crash line, {"crashed":[ORDINALS],"call":NAME,"signal":NAME}, is what the crash handler
// appends when a UDF batch brings the process down (crash.h); --resume counts them per root.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "rop/runtime/run.h"

namespace rop::runtime::detail {

struct JournalEntry {
    std::uint64_t ordinal = 0;
    std::string name;
    RootStatus status = RootStatus::Ok;
    std::string failed_call;
    std::string reason;
    std::uint32_t attempts = 0;
    std::vector<std::string> tokens;  // one per root sink, in RunOptions::root_sinks order
};

std::string journal_header(const std::vector<std::string>& sinks);
std::string journal_line(const JournalEntry& entry);  // one line, '\n'-terminated
std::optional<JournalEntry> parse_journal_line(std::string_view line);

class Journal {
  public:
    // Fresh (resume false): creates or truncates `path` and writes the header. Resume: reads
    // the entries (a missing or empty file is a fresh journal), checks the header's sinks
    // against `sinks`, cuts a torn last line off. Throws std::runtime_error with a one-line
    // message ("journal 'PATH': ...").
    Journal(std::string path, const std::vector<std::string>& sinks, bool resume);
    ~Journal();
    Journal(const Journal&) = delete;
    Journal& operator=(const Journal&) = delete;

    const std::vector<JournalEntry>& entries() const { return entries_; }
    // Crash lines (crash.h): how often each root was in a batch that brought the process down,
    // and the last such crash's description ("call 'm': SIGSEGV").
    struct Crashes {
        std::uint32_t count = 0;
        std::string last;
    };
    const std::unordered_map<std::uint64_t, Crashes>& crashes() const { return crashes_; }
    void forget_crashes(std::uint64_t ordinal) { crashes_.erase(ordinal); }  // --retry-failed
    int fd() const { return fd_; }
    // Keeps one entry's line for the next flush().
    void add(const JournalEntry& entry) {
        pending_ += journal_line(entry);
        ++pending_lines_;
    }
    std::size_t pending() const { return pending_lines_; }
    // Hands the kept lines to the writer thread (started on first use), which appends them
    // with a single write() and fsyncs, in the order they were handed over; returns at once.
    // Throws std::runtime_error when an earlier write or fsync failed. Nothing to do when none
    // is kept.
    void flush();
    // Waits until every line handed over is written and fsynced; throws std::runtime_error
    // when a write or fsync failed.
    void sync();

  private:
    bool parse_crash_line(std::string_view line);  // true: it was one (and is counted)
    void write_all(const std::string& text);
    void write_loop();              // the writer thread
    void throw_if_failed_locked();  // with mutex_ held
    std::string path_;
    int fd_ = -1;
    std::vector<JournalEntry> entries_;
    std::string pending_;
    std::size_t pending_lines_ = 0;
    std::unordered_map<std::uint64_t, Crashes> crashes_;

    // The writer thread and what it shares with the driver (under mutex_).
    std::thread writer_;
    std::mutex mutex_;
    std::condition_variable wake_, written_;
    std::string queued_;         // handed over, not yet taken by the writer
    bool writing_ = false;       // the writer is appending what it took
    bool stop_ = false;          // the destructor asks the writer to finish
    std::exception_ptr failed_;  // the first write or fsync error
};

}  // namespace rop::runtime::detail
