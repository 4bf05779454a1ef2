// The result store (docs/runtime.md "The result store"; issue 29): Grain results on disk under
// 128-bit keys the engine builds (digest.h's Hasher), and one manifest per Call identity that
// explains the next run's misses. Entries are published atomically, checked against their hash on
// every read, shared by concurrent processes, and kept under a size by pruning the least recently
// used first.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cache/digest.h"
#include "cache/result_store_packs.h"
#include "cache/result_store_record.h"

namespace rop::runtime::detail {

// The default size limit: 10 GiB. A store is a cache of results that cost UDF time (OCR, model
// calls) to remake, so it is larger than ropc's build cache (5 GiB); `max_bytes` or pruning by
// hand changes it.
inline constexpr std::uintmax_t kDefaultResultStoreLimit = std::uintmax_t{10} << 30;

struct ResultStoreOptions {
    // Past this many bytes (the entries' file sizes; manifests and temporary files not counted),
    // a put prunes the least recently used entries down to prune_to_percent of it. 0: no limit.
    std::uintmax_t max_bytes = kDefaultResultStoreLimit;
    unsigned prune_to_percent = 90;
    // fdatasync each entry before its rename, and fsync the folder after. Off by default: a
    // store is a cache, and without it a power loss can leave an entry whose rename reached the
    // disk before its bytes; the reader's hash check turns that into a miss (and a `corrupt`
    // count), never into wrong bytes. On for a store whose entries must survive power loss.
    bool fsync = false;
    // A temporary file (a put that a crash interrupted) this much older than now is removed by a
    // prune; a younger one may be a running put's.
    std::chrono::seconds temp_max_age{30 * 60};
    // A hit marks its entry used (its modification time) only when the mark is older than this:
    // a hot entry costs no metadata write per read.
    std::chrono::seconds touch_after{60};
    // Entries whose payload is at most this many bytes are appended to a pack
    // (result_store_packs.h) instead of a file of their own; 0: every entry in a file.
    std::uintmax_t pack_max_bytes = 16 << 10;
    // A new pack is started past this size, or past a sixteenth of max_bytes when that is
    // less: a pack is pruned whole.
    std::uintmax_t pack_rotate_bytes = 64 << 20;
};

// A store that cannot be created, written or read; what() names the path and the reason.
class ResultStoreError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

struct CorruptEntry {
    std::string key;     // 32 hex digits; a manifest's is "manifest:" and its Call identity
    std::string reason;  // "payload hash mismatch", "bad magic", "short: ...", ...
};

// What this ResultStore object did (not other processes sharing the store).
struct ResultStoreStats {
    std::uint64_t hits = 0;
    std::uint64_t misses = 0;   // corrupt entries included
    std::uint64_t corrupt = 0;  // entries found torn or damaged, removed, and reported as misses
    std::uint64_t puts = 0;
    std::uint64_t put_bytes = 0;  // payload bytes
    std::uint64_t prunes = 0;     // prunes this object ran (by the size limit or by hand)
    std::uint64_t pruned = 0;     // entries they removed
};

struct ResultStoreInfo {
    std::filesystem::path dir;
    std::uint64_t entries = 0;  // entry files and packed records
    std::uintmax_t bytes = 0;   // the entry files' and the packs' sizes
    std::uint64_t packs = 0;    // of those bytes, how many files are packs
    std::uint64_t manifests = 0;
    std::uintmax_t manifest_bytes = 0;
    std::uint64_t temp_files = 0;  // puts in progress, or interrupted ones not yet pruned
    std::uintmax_t temp_bytes = 0;
    // The least and most recent use among the entries; none in an empty store.
    std::optional<std::chrono::system_clock::time_point> oldest, newest;
    std::uintmax_t max_bytes = 0;  // the limit this object keeps to (0: none)
};

struct ResultStorePruneResult {
    std::uint64_t removed = 0;  // entries, packed ones included (and, for clear, manifests)
    std::uintmax_t freed = 0;
    std::uint64_t temp_removed = 0;
    std::uint64_t left_entries = 0;
    std::uintmax_t left_bytes = 0;
};

// Thread-safe: get and put run concurrently from any number of threads (a put to a pack holds
// the pack's lock for its one write); several processes may open the same folder at once.
class ResultStore {
  public:
    // Opens the store in `dir`, creating the folder when missing. Throws ResultStoreError when
    // it cannot be created or written.
    static std::unique_ptr<ResultStore> open(const std::filesystem::path& dir,
                                             ResultStoreOptions options = {});
    ~ResultStore();
    ResultStore(const ResultStore&) = delete;
    ResultStore& operator=(const ResultStore&) = delete;

    // The entry's payload, or nothing: a miss, or an entry found torn or damaged (removed,
    // counted in stats().corrupt and listed by corrupt_entries(): the caller recomputes it).
    // A hit marks the entry used. `key` is 32 hex digits (std::invalid_argument otherwise).
    std::optional<std::string> get(std::string_view key);
    std::optional<std::string> get(const Digest& key);
    // Publishes `payload` under `key` atomically: readers see the old entry, none, or the whole
    // new one. Writing a key again replaces it (the last rename wins; the same key means the same
    // bytes). May prune (the size limit). Throws ResultStoreError when the entry cannot be
    // written.
    void put(std::string_view key, std::string_view payload);
    void put(const Digest& key, std::string_view payload);

    // Writes the small entries this object buffered (result_store_packs.h); also done at
    // destruction. Throws ResultStoreError when they cannot be written.
    void flush() { packs_.flush(); }

    // The manifest last written for a Call identity (the engine's record of a run: its code
    // digest, functions, arguments, operator identity), checked like an entry.
    std::optional<nlohmann::json> get_manifest(std::string_view call_identity);
    void put_manifest(std::string_view call_identity, const nlohmann::json& manifest);

    ResultStoreInfo info() const;
    // Removes temporary files older than temp_max_age and the least recently used entries until
    // the entries hold at most `max_bytes`. Waits for a prune another process runs.
    ResultStorePruneResult prune(std::uintmax_t max_bytes);
    // Removes every entry and manifest (and the stale temporary files; a running put's is left).
    ResultStorePruneResult clear();

    ResultStoreStats stats() const;
    std::vector<CorruptEntry> corrupt_entries() const;  // the first 1000 this object found
    const std::filesystem::path& dir() const { return dir_; }
    // Where `key`'s entry lives when it has a file of its own (a payload over pack_max_bytes):
    // DIR/entries/<its first 2 digits>/<key>.
    std::filesystem::path entry_path(std::string_view key) const;
    // The pack this object appends small entries to (empty before the first).
    std::filesystem::path pack_path() const { return packs_.writing(); }

  private:
    ResultStore(std::filesystem::path dir, ResultStoreOptions options, int lock_fd);
    std::optional<std::string> read(const std::filesystem::path& path, StoreRecordKind kind,
                                    const Digest& key, const std::string& label);
    void write(const std::filesystem::path& path, StoreRecordKind kind, const Digest& key,
               std::string_view payload);
    void note_corrupt(std::string key, std::string reason);
    void account(std::uintmax_t bytes);
    ResultStorePruneResult prune_locked(std::uintmax_t max_bytes, bool everything);
    std::uintmax_t scan_bytes() const;  // the entry files' and the packs' sizes
    [[noreturn]] void fail_lock() const;
    std::filesystem::path manifest_path(const Digest& identity) const;
    std::filesystem::path entry_path(const Digest& key) const;

    const std::filesystem::path dir_;
    const ResultStoreOptions options_;
    const int lock_fd_;  // DIR/lock: flock'ed by a pruning process

    // The entries' bytes as this process knows them: a scan on the first put, then its own puts,
    // exact again after each prune. Other processes' puts are seen at the next prune's scan.
    std::once_flag scanned_;
    std::atomic<std::uintmax_t> approx_bytes_{0};
    std::mutex prune_mutex_;  // one prune at a time in this process (flock is per process)

    std::atomic<std::uint64_t> hits_{0}, misses_{0}, corrupt_{0}, puts_{0}, put_bytes_{0},
        prunes_{0}, pruned_{0};
    mutable std::mutex corrupt_mutex_;  // taken only when an entry is found corrupt
    std::vector<CorruptEntry> corrupt_entries_;
    PackSet packs_;  // the small entries (DIR/packs)
};

// A store's info as `--cache-info` prints it: a few aligned lines.
std::string format_result_store_info(const ResultStoreInfo& info);
// "0 B", "812 B", "40.1 KiB", "5.0 GiB".
std::string format_store_bytes(std::uintmax_t bytes);
// "10G", "500M", "64K", "1T", "1024" (bytes); binary units, an optional "B" or "iB" after the
// unit; nothing for anything else (`--cache-prune SIZE`).
std::optional<std::uintmax_t> parse_store_size(std::string_view text);

}  // namespace rop::runtime::detail
