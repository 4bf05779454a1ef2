// The result store's upkeep (result_store.h): what it holds, pruning to a size, clearing, and
// their text. A prune takes DIR/lock (flock) so that two processes never prune at once; get and
// put never take it: an entry pruned under a reader's feet is a miss.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iterator>
#include <system_error>

#include "cache/result_store.h"
#include "rop/vocab/byte_size_text.h"

namespace rop::runtime::detail {

namespace fs = std::filesystem;
using Clock = std::chrono::system_clock;

namespace {

struct StoreFile {
    fs::path path;
    std::string name;
    std::uintmax_t bytes = 0;
    Clock::time_point last_used;  // its modification time: put, or the last hit that marked it
};

struct StoreScan {
    std::vector<StoreFile> entries, manifests, temps, packs;
};

bool is_hex_name(const std::string& name) {
    return name.size() == 32 && std::all_of(name.begin(), name.end(), [](char c) {
               return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f');
           });
}

std::optional<StoreFile> stat_file(const fs::path& path) {
    struct stat st{};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    StoreFile file;
    file.path = path;
    file.name = path.filename().string();
    file.bytes = static_cast<std::uintmax_t>(st.st_size);
    file.last_used = Clock::time_point(std::chrono::duration_cast<Clock::duration>(
        std::chrono::seconds(st.st_mtim.tv_sec) + std::chrono::nanoseconds(st.st_mtim.tv_nsec)));
    return file;
}

// Every record and temporary file under DIR/entries and DIR/manifests (their fan-out folders),
// and every pack in DIR/packs. Files that are none of these are not listed, so nothing else is
// ever removed. A file removed while the scan runs is left out.
StoreScan scan(const fs::path& dir) {
    StoreScan out;
    std::error_code packs_ec;
    for (fs::directory_iterator it(dir / "packs", packs_ec), end; !packs_ec && it != end;
         it.increment(packs_ec)) {
        if (it->path().extension() != ".pack") continue;
        if (std::optional<StoreFile> file = stat_file(it->path())) {
            out.packs.push_back(std::move(*file));
        }
    }
    for (const char* part : {"entries", "manifests"}) {
        std::vector<StoreFile>& records = part[0] == 'e' ? out.entries : out.manifests;
        std::error_code ec;
        for (fs::directory_iterator fan(dir / part, ec), end; !ec && fan != end;
             fan.increment(ec)) {
            std::error_code inner;
            for (fs::directory_iterator it(fan->path(), inner); !inner && it != end;
                 it.increment(inner)) {
                std::optional<StoreFile> found = stat_file(it->path());
                if (!found) continue;
                StoreFile file = std::move(*found);
                if (file.name.find(".tmp.") != std::string::npos) {
                    out.temps.push_back(std::move(file));
                } else if (is_hex_name(file.name)) {
                    records.push_back(std::move(file));
                }
            }
        }
    }
    return out;
}

// Gone counts as removed: another pruner, or a clear, got there first.
bool remove_file(const fs::path& path) { return ::unlink(path.c_str()) == 0 || errno == ENOENT; }

std::uintmax_t total_bytes(const std::vector<StoreFile>& files) {
    std::uintmax_t total = 0;
    for (const StoreFile& file : files) total += file.bytes;
    return total;
}

// Holds DIR/lock for one prune: blocking (by hand) or not (the size limit's: another process
// already pruning is bringing the store down).
class PruneLock {
  public:
    PruneLock(int fd, bool wait) : fd_(fd) {
        int rc;
        do rc = ::flock(fd_, LOCK_EX | (wait ? 0 : LOCK_NB));
        while (rc != 0 && errno == EINTR);
        held_ = rc == 0;
    }
    ~PruneLock() {
        if (held_) ::flock(fd_, LOCK_UN);
    }
    PruneLock(const PruneLock&) = delete;
    PruneLock& operator=(const PruneLock&) = delete;
    bool held() const { return held_; }

  private:
    int fd_;
    bool held_ = false;
};

std::string format_time(Clock::time_point when) {
    const std::time_t t = Clock::to_time_t(when);
    std::tm utc{};
    ::gmtime_r(&t, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &utc);
    return text;
}

}  // namespace

void ResultStore::account(std::uintmax_t bytes) {
    const std::uintmax_t total = approx_bytes_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
    if (options_.max_bytes == 0 || total <= options_.max_bytes) return;
    std::unique_lock in_process(prune_mutex_, std::try_to_lock);
    if (!in_process.owns_lock()) return;  // another thread of ours is pruning
    const PruneLock lock(lock_fd_, /*wait=*/false);
    if (!lock.held()) return;  // another process is
    prune_locked(options_.max_bytes / 100 * options_.prune_to_percent +
                     options_.max_bytes % 100 * options_.prune_to_percent / 100,
                 /*everything=*/false);
}

ResultStorePruneResult ResultStore::prune(std::uintmax_t max_bytes) {
    const std::lock_guard in_process(prune_mutex_);
    const PruneLock lock(lock_fd_, /*wait=*/true);
    if (!lock.held()) fail_lock();
    return prune_locked(max_bytes, /*everything=*/false);
}

ResultStorePruneResult ResultStore::clear() {
    const std::lock_guard in_process(prune_mutex_);
    const PruneLock lock(lock_fd_, /*wait=*/true);
    if (!lock.held()) fail_lock();
    return prune_locked(0, /*everything=*/true);
}

void ResultStore::fail_lock() const {
    throw ResultStoreError("result store: cannot lock '" + (dir_ / "lock").string() +
                           "': " + std::error_code(errno, std::system_category()).message());
}

ResultStorePruneResult ResultStore::prune_locked(std::uintmax_t max_bytes, bool everything) {
    // What this object's puts had counted before the scan: those made while it runs are added
    // to what it leaves (below), not lost, or the count would fall behind the store's bytes and
    // later puts would not prune.
    const std::uintmax_t counted_before = approx_bytes_.load(std::memory_order_relaxed);
    StoreScan found = scan(dir_);
    ResultStorePruneResult result;
    const Clock::time_point now = Clock::now();
    for (const StoreFile& temp : found.temps) {
        if (now - temp.last_used > options_.temp_max_age && remove_file(temp.path)) {
            ++result.temp_removed;
        }
    }
    // A pack goes whole: it counts as the records it holds. The one this object appends to stays
    // (unless everything goes): it holds this run's newest results.
    struct Unit {
        StoreFile file;
        std::uint64_t records = 1;
        bool pack = false;
    };
    std::vector<Unit> units;
    for (StoreFile& entry : found.entries) units.push_back({std::move(entry), 1, false});
    const fs::path writing = packs_.writing();
    std::uintmax_t kept_bytes = 0;
    std::uint64_t kept_records = 0;
    for (StoreFile& pack : found.packs) {
        const std::uint64_t records = count_pack_records(pack.path).records;
        if (!everything && pack.path == writing) {
            kept_bytes += pack.bytes;
            kept_records += records;
            continue;
        }
        units.push_back({std::move(pack), records, true});
    }
    // The least recently used first; the name breaks ties, so that a prune is reproducible.
    std::sort(units.begin(), units.end(), [](const Unit& a, const Unit& b) {
        return a.file.last_used != b.file.last_used ? a.file.last_used < b.file.last_used
                                                    : a.file.name < b.file.name;
    });
    std::uintmax_t left = kept_bytes;
    result.left_entries = kept_records;
    for (const Unit& unit : units) {
        left += unit.file.bytes;
        result.left_entries += unit.records;
    }
    for (const Unit& unit : units) {
        if (!everything && left <= max_bytes) break;
        if (!remove_file(unit.file.path)) continue;
        if (unit.pack) packs_.forget(unit.file.path);
        left -= unit.file.bytes;
        result.freed += unit.file.bytes;
        result.removed += unit.records;
        result.left_entries -= unit.records;
    }
    if (everything) {
        packs_.forget_all();
        for (const StoreFile& manifest : found.manifests) {
            if (remove_file(manifest.path)) {
                result.freed += manifest.bytes;
                ++result.removed;
            }
        }
    }
    result.left_bytes = left;
    std::uintmax_t counted = approx_bytes_.load(std::memory_order_relaxed);
    while (!approx_bytes_.compare_exchange_weak(
        counted, left + (counted > counted_before ? counted - counted_before : 0),
        std::memory_order_relaxed)) {
    }
    prunes_.fetch_add(1, std::memory_order_relaxed);
    pruned_.fetch_add(result.removed, std::memory_order_relaxed);
    return result;
}

std::uintmax_t ResultStore::scan_bytes() const {
    const StoreScan found = scan(dir_);
    return total_bytes(found.entries) + total_bytes(found.packs);
}

ResultStoreInfo ResultStore::info() const {
    const StoreScan found = scan(dir_);
    ResultStoreInfo info;
    info.dir = dir_;
    info.entries = found.entries.size();
    info.bytes = total_bytes(found.entries) + total_bytes(found.packs);
    info.packs = found.packs.size();
    for (const StoreFile& pack : found.packs) info.entries += count_pack_records(pack.path).records;
    info.manifests = found.manifests.size();
    info.manifest_bytes = total_bytes(found.manifests);
    info.temp_files = found.temps.size();
    info.temp_bytes = total_bytes(found.temps);
    info.max_bytes = options_.max_bytes;
    std::vector<StoreFile> used = found.entries;
    used.insert(used.end(), found.packs.begin(), found.packs.end());
    for (const StoreFile& entry : used) {
        if (!info.oldest || entry.last_used < *info.oldest) info.oldest = entry.last_used;
        if (!info.newest || entry.last_used > *info.newest) info.newest = entry.last_used;
    }
    return info;
}

std::string format_result_store_info(const ResultStoreInfo& info) {
    std::string out = "result store " + info.dir.string() + "\n";
    out += "  entries    " + std::to_string(info.entries) + ", " + format_store_bytes(info.bytes);
    if (info.packs > 0) out += " (small ones in " + std::to_string(info.packs) + " packs)";
    out += info.max_bytes == 0 ? " (no size limit)\n"
                               : " of " + format_store_bytes(info.max_bytes) + " (the limit)\n";
    if (info.oldest && info.newest) {
        out += "  last used  " + format_time(*info.oldest) + " (oldest) to " +
               format_time(*info.newest) + " (newest)\n";
    }
    out += "  manifests  " + std::to_string(info.manifests) + ", " +
           format_store_bytes(info.manifest_bytes) + "\n";
    if (info.temp_files > 0) {
        out += "  temporary  " + std::to_string(info.temp_files) + ", " +
               format_store_bytes(info.temp_bytes) +
               " (puts in progress, or interrupted: a prune removes the stale ones)\n";
    }
    return out;
}

// As ropc's build cache prints and reads sizes (rop/vocab/byte_size_text.h).
std::string format_store_bytes(std::uintmax_t bytes) { return vocab::format_byte_size(bytes); }

std::optional<std::uintmax_t> parse_store_size(std::string_view text) {
    return vocab::parse_byte_size(text);
}

}  // namespace rop::runtime::detail
