#include "cache/result_store_packs.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <system_error>
#include <utility>

#include "cache/result_store.h"
#include "cache/result_store_record.h"
#include "cache/store_files.h"

namespace rop::runtime::detail {

namespace fs = std::filesystem;

struct PackSet::Pack {
    fs::path path;
    // A pack found on disk: mapped read-only as it was when indexed. The pack this object writes:
    // its descriptor, read with pread (it grows).
    const char* map = nullptr;
    std::size_t mapped = 0;
    int fd = -1;
    std::atomic<std::int64_t> marked_s{0};  // its modification time as last seen or set

    ~Pack() {
        if (map != nullptr) ::munmap(const_cast<char*>(map), mapped);
        if (fd >= 0) ::close(fd);
    }
};

namespace {

// Calls `record(offset, head)` for each whole record of `bytes` in order; stops at the first
// that is not (a torn tail, or damage no pass can step over).
template <class F>
void each_record(std::string_view bytes, F&& record) {
    std::uint64_t offset = 0;
    while (offset + kStoreHeaderBytes <= bytes.size()) {
        const auto head =
            peek_store_header(bytes.substr(offset, kStoreHeaderBytes), StoreRecordKind::Result);
        if (!head || head->length > bytes.size() - offset - kStoreHeaderBytes) return;
        record(offset, *head);
        offset += kStoreHeaderBytes + head->length;
    }
}

struct Mapped {
    const char* map = nullptr;
    std::size_t size = 0;
    std::int64_t mtime_s = 0;  // its modification time
    bool ok = false;
};

Mapped map_file(const fs::path& path) {
    Mapped out;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return out;
    struct stat st{};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        out.size = static_cast<std::size_t>(st.st_size);
        out.mtime_s = st.st_mtim.tv_sec;
        out.ok = true;
        if (out.size > 0) {
            void* map = ::mmap(nullptr, out.size, PROT_READ, MAP_PRIVATE, fd, 0);
            if (map == MAP_FAILED) {
                out.ok = false;
                out.size = 0;
            } else {
                out.map = static_cast<const char*>(map);
            }
        }
    }
    ::close(fd);
    return out;
}

bool is_pack_name(const fs::path& path) {
    return path.extension() == ".pack" && path.filename().string().size() > 5;
}

}  // namespace

void PackSet::Index::reserve(std::size_t records) {
    std::size_t size = 16;
    while (size < 2 * records) size *= 2;
    if (size <= slots_.size()) return;
    std::vector<Slot> old = std::exchange(slots_, std::vector<Slot>(size));
    used_ = 0;
    for (const Slot& slot : old) {
        if (slot.state == Slot::Used) set(slot.key, slot.where);
    }
}

void PackSet::Index::grow() { reserve(std::max<std::size_t>(used_ + 1, slots_.size())); }

const PackSet::Where* PackSet::Index::find(const Digest& key) const {
    if (slots_.empty()) return nullptr;
    for (std::size_t i = home(key);; i = (i + 1) & (slots_.size() - 1)) {
        const Slot& slot = slots_[i];
        if (slot.state == Slot::Empty) return nullptr;
        if (slot.state == Slot::Used && slot.key == key) return &slot.where;
    }
}

void PackSet::Index::set(const Digest& key, Where where) {
    if (2 * (used_ + 1) > slots_.size()) grow();  // at most half full: short probes, an Empty
    for (std::size_t i = home(key);; i = (i + 1) & (slots_.size() - 1)) {
        Slot& slot = slots_[i];
        if (slot.state == Slot::Used && slot.key == key) {
            slot.where = where;
            return;
        }
        if (slot.state == Slot::Empty) {
            slot = Slot{key, where, Slot::Used};
            ++used_;
            return;
        }
    }
}

void PackSet::Index::erase_if_at(const Digest& key, const Where& where) {
    if (slots_.empty()) return;
    for (std::size_t i = home(key);; i = (i + 1) & (slots_.size() - 1)) {
        Slot& slot = slots_[i];
        if (slot.state == Slot::Empty) return;
        if (slot.state == Slot::Used && slot.key == key) {
            if (slot.where.pack == where.pack && slot.where.offset == where.offset) {
                slot.state = Slot::Erased;
            }
            return;
        }
    }
}

void PackSet::Index::erase_pack(std::uint32_t pack) {
    for (Slot& slot : slots_) {
        if (slot.state == Slot::Used && slot.where.pack == pack) slot.state = Slot::Erased;
    }
}

void PackSet::Index::clear() {
    slots_.clear();
    used_ = 0;
}

PackCount count_pack_records(const fs::path& pack) {
    PackCount count;
    const Mapped file = map_file(pack);
    if (!file.ok) return count;
    each_record(std::string_view(file.map, file.size), [&](std::uint64_t offset, const auto& head) {
        ++count.records;
        count.bytes = offset + kStoreHeaderBytes + head.length;
    });
    if (file.map != nullptr) ::munmap(const_cast<char*>(file.map), file.size);
    return count;
}

PackSet::PackSet(fs::path folder, bool fsync, std::uintmax_t rotate_bytes, OnCorrupt on_corrupt)
    : folder_(std::move(folder)),
      fsync_(fsync),
      rotate_bytes_(std::max<std::uintmax_t>(rotate_bytes, 1)),
      on_corrupt_(std::move(on_corrupt)) {}

PackSet::~PackSet() {
    try {
        flush();
    } catch (const std::exception&) {  // the results are lost to the store, not to the run
    }
}

void PackSet::load() {
    std::vector<std::pair<fs::path, Mapped>> found;
    std::error_code ec;
    for (fs::directory_iterator it(folder_, ec), end; !ec && it != end; it.increment(ec)) {
        if (!is_pack_name(it->path())) continue;
        Mapped file = map_file(it->path());
        if (file.ok) found.emplace_back(it->path(), file);
    }
    // The oldest first, so that a later record of a key (a result recomputed after its record
    // was found damaged) wins. By the time its name says it was started, not its modification
    // time: a hit marks an old pack as used.
    const auto started = [](const fs::path& path) {
        return std::strtoull(path.filename().c_str(), nullptr, 10);
    };
    std::sort(found.begin(), found.end(), [&](const auto& a, const auto& b) {
        const auto at = started(a.first), bt = started(b.first);
        return at != bt ? at < bt : a.first < b.first;
    });
    const std::lock_guard lock(mutex_);
    std::size_t bytes = 0;
    for (const auto& entry : found) bytes += entry.second.size;
    index_.reserve(bytes / 256);  // a few hundred bytes a record: the packs' entries are small
    for (auto& [path, file] : found) {
        const auto id = static_cast<std::uint32_t>(packs_.size());
        auto pack = std::make_unique<Pack>();
        pack->path = path;
        pack->map = file.map;
        pack->mapped = file.size;
        pack->marked_s = file.mtime_s;
        each_record(std::string_view(file.map, file.size),
                    [&](std::uint64_t offset, const StoreRecordHead& head) {
                        index_.set(head.key, Where{id, offset, head.length});
                    });
        packs_.push_back(std::move(pack));
    }
}

PackSet::Found PackSet::get(const Digest& key, std::string& payload,
                            std::chrono::seconds touch_after) {
    std::call_once(loaded_, [this] { load(); });
    Where where;
    Pack* pack = nullptr;
    {
        const std::shared_lock lock(mutex_);
        const Where* found = index_.find(key);
        if (found == nullptr) return Found::No;
        where = *found;
        pack = packs_[where.pack].get();
    }
    const std::uint64_t size = kStoreHeaderBytes + where.length;
    std::string own;  // the pack being written is read, not mapped (the index holds only
                      // what was written to it)
    std::string_view record;
    if (pack->map != nullptr) {
        record = std::string_view(pack->map + where.offset, size);
    } else {
        own.resize(size);
        own.resize(read_at(pack->fd, own.data(), size, static_cast<off_t>(where.offset)));
        record = own;
    }
    const std::string_view header = record.substr(0, std::min(record.size(), kStoreHeaderBytes));
    StoreRecordCheck check =
        check_store_header(header, record.size(), StoreRecordKind::Result, key);
    if (check.verdict == StoreRecordVerdict::Sound) {
        check = check_store_payload(header, record.substr(kStoreHeaderBytes));
    }
    if (check.verdict != StoreRecordVerdict::Sound) {
        {
            const std::lock_guard lock(mutex_);
            index_.erase_if_at(key, where);
        }
        on_corrupt_(key.hex(), "in pack " + pack->path.filename().string() + " at byte " +
                                   std::to_string(where.offset) + ": " + check.reason);
        return Found::Corrupt;
    }
    payload.assign(record.substr(kStoreHeaderBytes));
    // A hit marks the pack used, as an entry file's hit marks it; skipped when the mark is recent.
    const std::int64_t now = ::time(nullptr);
    std::int64_t marked = pack->marked_s.load(std::memory_order_relaxed);
    if (now - marked >= touch_after.count() &&
        pack->marked_s.compare_exchange_strong(marked, now, std::memory_order_relaxed)) {
        ::utimensat(AT_FDCWD, pack->path.c_str(), nullptr, 0);
    }
    return Found::Sound;
}

void PackSet::start_pack() {
    static std::atomic<std::uint64_t> counter{0};
    std::error_code ec;
    fs::create_directories(folder_, ec);
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
    const fs::path path = folder_ / (std::to_string(ns) + "-" + std::to_string(::getpid()) + "-" +
                                     std::to_string(counter.fetch_add(1)) + ".pack");
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0666);
    if (fd < 0) fail_store_file("write", path, errno);
    auto pack = std::make_unique<Pack>();
    pack->path = path;
    pack->fd = fd;
    pack->marked_s = ::time(nullptr);
    writing_ = pack.get();
    written_ = 0;
    const std::lock_guard lock(mutex_);
    writing_id_ = static_cast<std::uint32_t>(packs_.size());
    packs_.push_back(std::move(pack));
}

void PackSet::put(const Digest& key, std::string_view payload) {
    std::call_once(loaded_, [this] { load(); });
    const std::string header = encode_store_header(StoreRecordKind::Result, key, payload);
    const std::lock_guard lock(write_mutex_);
    const std::uint64_t size = header.size() + payload.size();
    if (writing_ != nullptr && written_ + pending_.size() + size > rotate_bytes_ &&
        written_ + pending_.size() > 0) {
        flush_locked();
        writing_ = nullptr;  // full: the next record starts a new pack
    }
    if (writing_ == nullptr) start_pack();
    if (pending_.empty()) first_pending_ = std::chrono::steady_clock::now();
    pending_index_.emplace_back(key,
                                Where{writing_id_, written_ + pending_.size(), payload.size()});
    pending_.append(header);
    pending_.append(payload);
    if (pending_.size() >= kFlushBytes ||
        std::chrono::steady_clock::now() - first_pending_ >= kFlushAfter) {
        flush_locked();
    }
}

void PackSet::flush() {
    const std::lock_guard lock(write_mutex_);
    flush_locked();
}

void PackSet::flush_locked() {
    if (pending_.empty() || writing_ == nullptr) return;
    int error = write_all(writing_->fd, pending_, {}) ? 0 : errno;
    if (error == 0 && fsync_ && ::fdatasync(writing_->fd) != 0) error = errno;
    if (error != 0) {
        // The buffered records are lost (misses next time). The pack is left as it is, a torn
        // record at its end that every pass stops at, and the next put starts a new one: cutting
        // it back would pull pages from under a process that mapped it meanwhile (SIGBUS).
        pending_.clear();
        pending_index_.clear();
        const fs::path path = writing_->path;
        writing_ = nullptr;
        fail_store_file("write", path, error);
    }
    written_ += pending_.size();
    pending_.clear();
    // Readable now: into the index, one exclusive lock for the whole buffer.
    const std::lock_guard lock(mutex_);
    for (const auto& [key, where] : pending_index_) index_.set(key, where);
    pending_index_.clear();
}

fs::path PackSet::writing() const {
    const std::lock_guard lock(write_mutex_);
    return writing_ != nullptr ? writing_->path : fs::path();
}

void PackSet::forget(const fs::path& pack) {
    const std::lock_guard write_lock(write_mutex_);
    const std::lock_guard lock(mutex_);
    for (std::uint32_t id = 0; id < packs_.size(); ++id) {
        if (packs_[id]->path != pack) continue;
        index_.erase_pack(id);
        if (writing_ == packs_[id].get()) {
            writing_ = nullptr;
            pending_.clear();
            pending_index_.clear();
        }
    }
}

void PackSet::forget_all() {
    std::call_once(loaded_, [] {});  // nothing on disk is left to index
    const std::lock_guard write_lock(write_mutex_);
    const std::lock_guard lock(mutex_);
    index_.clear();
    pending_.clear();
    pending_index_.clear();
    writing_ = nullptr;
}

}  // namespace rop::runtime::detail
