// Per-root sinks and the journal (docs/runtime.md "Sinks, journal and resume"): PRESENT items
// at a root sink's port are buffered per root; when the root is done each sink gets them in
// ordinal order (driver thread), all or nothing (a sink that fails the root puts the others
// back), then one journal line records the root and every sink's checkpoint token. Lines are
// made durable in commit groups: every sink's sync(), then one journal write and fsync, on the
// journal's writer thread. On
// resume the sinks are restored to the last journaled tokens and the roots the journal lists
// are not admitted again.
#pragma once

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "journal.h"
#include "lineage_store.h"

namespace rop::runtime::detail {

class RootSinks {
  public:
    RootSinks(const Plan& plan, const RunOptions& options, const LineageStore& store);
    ~RootSinks();
    RootSinks(const RootSinks&) = delete;
    RootSinks& operator=(const RootSinks&) = delete;

    void open();  // journal, restore(); before the executor starts
    void buffer(const std::vector<std::uint32_t>& sinks, EntityId entity, const Value& value);
    // A root the journal lists (resume): its earlier entry, now consumed; nullptr if none.
    const JournalEntry* journaled(std::uint32_t ordinal, const std::string& name);
    // write_root per sink, in ordinal order. A sink that throws fails the root: every sink
    // written for it is put back, and the reason ("sink NAME: ...") is returned for the store
    // (LineageStore::fail_root_at_sink); nullopt when every sink took it (or it had failed).
    // `kept`, when given, gets a copy of what each sink was given (a whole root for the result
    // store).
    std::optional<std::string> write(const RootState& root,
                                     std::vector<std::vector<Value>>* kept = nullptr);
    // A root answered whole from the result store: each sink's items as write() gave them.
    std::optional<std::string> write_values(const RootKey& key,
                                            const std::vector<std::vector<Value>>& values);
    void journal(const RootState& root);  // one journal line, kept for the commit group
    // The commit group: made durable once RunOptions::commit_group roots wait (group_full), or
    // the oldest has waited commit_window (flush_if_due, by flush_deadline), and at the end.
    // flush(): every sink's sync(), then the group's journal lines go to the journal's writer
    // thread (made durable there, after the sinks' data); sync(): flush() and wait for them.
    bool group_full() const { return pending_ >= options_.commit_group; }
    void flush();
    void sync();
    void flush_if_due();
    std::chrono::steady_clock::time_point flush_deadline(
        std::chrono::steady_clock::time_point until) const {
        return pending_ == 0 ? until : std::min(until, first_pending_ + options_.commit_window);
    }
    bool resuming() const { return !journaled_.empty(); }
    // How many roots the journal listed as finished when the run opened it (resumed: they do
    // not run), for the progress ETA.
    std::size_t resumed_at_open() const { return resumed_at_open_; }
    // Crash lines of the journal (crash.h): how often a root was in a batch that brought the
    // process down; nullptr for none. journal_failed() records a root failed without running.
    bool crashed_before() const { return journal_ && !journal_->crashes().empty(); }
    const Journal::Crashes* crashes(std::uint32_t ordinal) const;
    bool journaled_ordinal(std::uint32_t ordinal) const { return journaled_.count(ordinal) > 0; }
    // skip_root on every sink for a root done without being written (failed unrun).
    void skip(std::uint32_t ordinal, const std::string& name);
    // A root done without an entity of its own (failed unrun): its journal line.
    void journal_entry(std::uint32_t ordinal, const RootResult& result);
    std::size_t buffered_bytes() const { return buffered_bytes_; }
    // The journal's run lines (journal.h), when there is a journal: the watermark of admitted
    // roots (before their first batch is submitted), the Calls a root running alone has
    // batches in, and the end of a run the binary controlled (after sync()).
    bool journaling() const { return journal_ != nullptr; }
    void note_admitted(std::uint64_t end) {
        if (journal_) journal_->note_admitted(end);
    }
    void note_running(const std::vector<std::string>& calls) {
        if (journal_) journal_->note_running(calls);
    }
    void note_ended() {
        if (journal_) journal_->note_ended();
    }

  private:
    void undo(const std::vector<std::pair<std::uint32_t, std::string>>& written);

    // A PRESENT item waiting at a root sink's port until its root is done.
    struct BufferedItem {
        std::uint32_t sink;  // index into RunOptions::root_sinks
        EntityId entity;
        Value value;
    };
    // A root's items for the root sinks, until the root is done (only pipelines with root
    // sinks pay for it).
    struct SinkBuffer {
        std::vector<BufferedItem> items;
        std::size_t bytes = 0;  // their payload bytes (counted for admission)
    };

    const Plan& plan_;
    const RunOptions& options_;
    const LineageStore& store_;
    std::vector<std::string> names_;
    std::unique_ptr<Journal> journal_;
    std::unordered_map<std::uint64_t, JournalEntry> journaled_;  // resume: roots to skip
    JournalEntry taken_;                                         // the last one journaled()
    std::unordered_map<std::uint32_t, SinkBuffer> buffers_;      // by root ordinal
    std::size_t resumed_at_open_ = 0;
    std::size_t buffered_bytes_ = 0;
    std::vector<EntityPath> path_scratch_;
    std::size_t pending_ = 0;  // roots written since the last flush()
    std::chrono::steady_clock::time_point first_pending_;
};

}  // namespace rop::runtime::detail
