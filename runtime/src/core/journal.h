// The journal of finished roots (docs/runtime.md "Sinks, journal and resume"): a JSONL file, a
// header line naming the root sinks, then one line per finished root (ordinal, name, status,
// failure, every root sink's checkpoint token). Lines are grouped: add() keeps a line in memory,
// flush() hands every kept line to the journal's writer thread, which appends them with one
// write() and one fsync, so the driver never waits for the disk (RootSinks decides when; sync()
// waits until all handed over is durable).
// A torn last line (a crash mid-append) is ignored on reading and cut off before appending.
// A crash line, {"crashed":[ORDINALS],"call":NAME,"signal":NAME[,"rank":R]}, is what the crash
// handler appends when a UDF batch brings the process down (crash.h; on a worker rank under
// MPI, that rank's handler); --resume counts them per root.
// A journal belongs to one pipeline: its header names the pipeline and the hash of its `.rop`
// text, and --resume refuses another's (ForeignJournal).
// Deaths that leave no crash line (SIGKILL, which the kernel's OOM killer sends; a UDF's
// exit()) are told apart from ends the binary controlled: each run appends a begin line
// ({"begin":"resume"}; a fresh run's header is its begin), raises a watermark before the first
// batch of roots it admits ({"admitted":N}: every root with an ordinal under N was admitted or
// skipped), and appends {"ended":true} when it ends under its own control (done, aborted,
// stopped). A run that left neither an end nor a crash line died: every root under its
// watermark without a journal entry was in flight, and counts as if a crash line named it. A
// root that runs alone also says which Calls hold its batches ({"running":[NAMES]}), so that a
// second death names the Call.
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

// Whose journal it is (RunOptions::pipeline_name, pipeline_hash, resume_rebuilt).
struct JournalOwner {
    std::string pipeline;  // "" when run() is called without one: not checked
    std::string rop_hash;
    bool accept_rebuilt = false;  // --resume-rebuilt: another `.rop` text of the same pipeline
};

std::string journal_header(const std::vector<std::string>& sinks, const JournalOwner& owner = {});
std::string journal_line(const JournalEntry& entry);  // one line, '\n'-terminated
std::optional<JournalEntry> parse_journal_line(std::string_view line);

class Journal {
  public:
    // Fresh (resume false): creates or truncates `path` and writes the header. Resume: reads
    // the entries (a missing or empty file is a fresh journal), checks the header's sinks
    // against `sinks`, cuts a torn last line off. Throws std::runtime_error with a one-line
    // message ("journal 'PATH': ...").
    // ForeignJournal (run.h) when `owner` does not match the journal's header.
    Journal(std::string path, const std::vector<std::string>& sinks, bool resume,
            const JournalOwner& owner = {});
    ~Journal();
    Journal(const Journal&) = delete;
    Journal& operator=(const Journal&) = delete;

    const std::vector<JournalEntry>& entries() const { return entries_; }
    // Crash lines (crash.h), and deaths without one: how often each root was in a batch that
    // brought the process down, or in flight when it died without a word.
    struct Crashes {
        std::uint32_t count = 0;
        std::uint32_t killed = 0;  // of count: deaths that left no crash line
        std::string last;          // the last crash: "call 'm': SIGSEGV", "call 'm' on rank 2: ..."
        std::string call;          // the Call of the last crash ("" when unknown)
        std::string rank;          // the rank of the last crash under MPI ("" when none)
        // Why a root that brought the process down twice fails.
        std::string reason() const;
    };
    const std::unordered_map<std::uint64_t, Crashes>& crashes() const { return crashes_; }
    void forget_crashes(std::uint64_t ordinal) { crashes_.erase(ordinal); }  // --retry-failed
    int fd() const { return fd_; }
    // The header line as written (a worker rank checks that it appends to this journal).
    const std::string& header() const { return header_; }
    // Lines the driver writes itself, at once, with one write() and no fsync (they must reach
    // the file before what they announce happens; a process kill does not lose them):
    // the watermark of admitted roots, the Calls a root running alone has batches in, the end.
    void note_admitted(std::uint64_t end);
    std::uint64_t admitted() const { return admitted_; }
    void note_running(const std::vector<std::string>& calls);
    void note_ended();
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
    // The other run lines (begin, admitted, running, ended): true when `line` was one.
    struct Segment;
    bool parse_run_line(std::string_view line, Segment& segment);
    void close_segment(Segment& segment);  // counts the roots a death left in flight
    void write_all(const std::string& text, bool sync = true);
    void write_loop();              // the writer thread
    void throw_if_failed_locked();  // with mutex_ held
    std::string path_;
    int fd_ = -1;
    std::vector<JournalEntry> entries_;
    std::string pending_;
    std::size_t pending_lines_ = 0;
    std::unordered_map<std::uint64_t, Crashes> crashes_;
    std::vector<bool> journaled_;  // while reading: by ordinal, a line says it finished
    std::string header_;
    std::uint64_t admitted_ = 0;  // this run's watermark

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
