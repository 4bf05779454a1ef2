// Small result store entries packed into append-only files (result_store.h; docs/runtime.md
// "The result store"). A Grain whose outputs are a few hundred bytes (a line of text, a count)
// would cost a file of its own: an open, a write, a rename and a 4 KiB block to put it, an open
// and a read to get it; 20-50 us and 5-7 us of CPU against a UDF that may take microseconds.
// Entries whose payload is at most ResultStoreOptions::pack_max_bytes are instead appended, as the
// same records a file entry holds (result_store_record.h), to a pack that only this ResultStore
// writes: DIR/packs/<ns>-<pid>-<n>.pack (ns: when it was started, on the system clock).
//
// - Puts are buffered and written with one write(2) at the pack's end: at flush() (the engine
//   flushes after each batch), past 64 KiB, or 1 s after the oldest; a record is found once it
//   is written. A reader therefore finds a record whole or not at all: a SIGKILL loses at most
//   the buffer and leaves at most a torn tail, which every pass stops at; after a write that
//   fails part-way (a full disk) the pack is left so, never cut back (another process may have
//   it mapped), and the next put starts a new one.
// - The packs are indexed once, on the first get or put (each mapped, one pass over its records'
//   headers; the packs in the order they were started, so that a later record of a key wins),
//   and then this object's own puts are added. Packs that
//   other processes write later are seen by the next run, not this one.
// - A pack is pruned whole, the least recently used first, by its modification time, which a hit
//   marks as it marks an entry file. The pack being written is never pruned; past
//   the rotation size a put starts a new one, so that old results can go.
// - A record that fails its hash check is a miss, reported, and left out of the index; the
//   recomputed result goes to this run's pack, which the next run's index prefers.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cache/digest.h"

namespace rop::runtime::detail {

class PackSet {
  public:
    // Called (under no lock of ours) for every record found damaged: its key, the reason.
    using OnCorrupt = std::function<void(std::string, std::string)>;

    // `folder`: DIR/packs (made on the first put). A new pack is started when the current one
    // holds `rotate_bytes` or more.
    PackSet(std::filesystem::path folder, bool fsync, std::uintmax_t rotate_bytes,
            OnCorrupt on_corrupt);
    ~PackSet();
    PackSet(const PackSet&) = delete;
    PackSet& operator=(const PackSet&) = delete;

    enum class Found { No, Sound, Corrupt };
    // The payload of `key`'s record into `payload`: Found::No when no pack holds it,
    // Found::Corrupt when the record failed its check (reported, and forgotten).
    Found get(const Digest& key, std::string& payload, std::chrono::seconds touch_after);
    // Appends a record to this object's buffer, which goes to the pack in one write(2) at
    // flush(), once it holds kFlushBytes or its oldest record waited kFlushAfter, and at
    // destruction; get() finds a record once it is written. Throws ResultStoreError when the
    // pack cannot be written (the buffered records are then lost to the store).
    void put(const Digest& key, std::string_view payload);
    void flush();

    // The pack this object appends to now (empty before the first put): a prune leaves it.
    std::filesystem::path writing() const;
    // A prune removed `pack`: its records are misses from now on.
    void forget(const std::filesystem::path& pack);
    // A clear removed every pack: nothing is indexed, and the next put starts a new pack.
    void forget_all();

  private:
    struct Pack;
    struct Where {
        std::uint32_t pack = 0;
        std::uint64_t offset = 0;  // of the record's header
        std::uint64_t length = 0;  // of its payload
    };
    // Open addressing over a power-of-two table, linear probing: one flat array instead of a
    // node per record (a re-run of a fine-grained pipeline looks up hundreds of thousands).
    class Index {
      public:
        void reserve(std::size_t records);
        const Where* find(const Digest& key) const;
        void set(const Digest& key, Where where);                 // inserts or replaces
        void erase_if_at(const Digest& key, const Where& where);  // when it still points there
        void erase_pack(std::uint32_t pack);
        void clear();

      private:
        struct Slot {
            Digest key;
            Where where;
            enum : std::uint8_t { Empty, Used, Erased } state = Empty;
        };
        std::size_t home(const Digest& key) const {
            std::size_t value;
            std::memcpy(&value, key.bytes.data() + key.bytes.size() - sizeof value, sizeof value);
            return value & (slots_.size() - 1);
        }
        void grow();
        std::vector<Slot> slots_;
        std::size_t used_ = 0;  // Used and Erased slots: both lengthen the probes
    };

    static constexpr std::size_t kFlushBytes = 64 << 10;
    static constexpr std::chrono::seconds kFlushAfter{1};

    void load();  // once: index every pack in the folder
    void start_pack();
    void flush_locked();

    const std::filesystem::path folder_;
    const bool fsync_;
    const std::uintmax_t rotate_bytes_;
    const OnCorrupt on_corrupt_;

    std::once_flag loaded_;
    // The index and the packs list: gets share it; a flush takes it once for its buffer.
    mutable std::shared_mutex mutex_;
    std::vector<std::unique_ptr<Pack>> packs_;  // kept until destruction: readers hold pointers
    Index index_;
    // The pack being written and its buffer (taken before mutex_ when both are).
    mutable std::mutex write_mutex_;
    Pack* writing_ = nullptr;
    std::uint32_t writing_id_ = 0;
    std::uint64_t written_ = 0;  // the pack being written's size on disk
    std::string pending_;        // records for it not written yet, and where they will be
    std::vector<std::pair<Digest, Where>> pending_index_;
    std::chrono::steady_clock::time_point first_pending_;
};

// How many sound records a pack holds and where its last sound one ends (the pass every index
// makes), for the store's info and prune. Zero for a file that cannot be read.
struct PackCount {
    std::uint64_t records = 0;
    std::uint64_t bytes = 0;
};
PackCount count_pack_records(const std::filesystem::path& pack);

}  // namespace rop::runtime::detail
