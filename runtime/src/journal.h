// The journal of finished roots (docs/runtime.md "Sinks, journal and resume"): a JSONL file, a
// header line naming the root sinks, then one line per finished root (ordinal, name, status,
// failure, every root sink's checkpoint token). Lines are grouped: add() keeps a line in memory,
// flush() appends every kept line with one write() and one fsync (RootSinks decides when).
// A torn last line (a crash mid-append) is ignored on reading and cut off before appending.
// A crash line, {"crashed":[ORDINALS],"call":NAME,"signal":NAME}, is what the crash handler
// appends when a UDF batch brings the process down (crash.h); --resume counts them per root.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
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
    // Appends the kept lines with a single write() and fsyncs; throws std::runtime_error on
    // failure. Nothing to do when none is kept.
    void flush();

  private:
    bool parse_crash_line(std::string_view line);  // true: it was one (and is counted)
    void write_all(const std::string& text);
    std::string path_;
    int fd_ = -1;
    std::vector<JournalEntry> entries_;
    std::string pending_;
    std::size_t pending_lines_ = 0;
    std::unordered_map<std::uint64_t, Crashes> crashes_;
};

}  // namespace rop::runtime::detail
