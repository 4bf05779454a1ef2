#include "cache/result_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "cache/store_files.h"

namespace rop::runtime::detail {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kCorruptListCap = 1000;

Digest parse_key(std::string_view key) {
    std::optional<Digest> digest = Digest::from_hex(key);
    if (!digest) {
        throw std::invalid_argument("result store: a key is 32 hex digits, not '" +
                                    std::string(key) + "'");
    }
    return *digest;
}

// Closes a descriptor on every path out.
struct Fd {
    int fd = -1;
    explicit Fd(int value) : fd(value) {}
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
};

// A name no other writer uses, in the entry's own folder (rename(2) is atomic within one file
// system): KEY.tmp.PID.TID.N. Prune recognizes it by ".tmp.".
fs::path temp_path(const fs::path& path) {
    static std::atomic<std::uint64_t> counter{0};
    return path.parent_path() /
           (path.filename().string() + ".tmp." + std::to_string(::getpid()) + "." +
            std::to_string(::gettid()) + "." + std::to_string(counter.fetch_add(1)));
}

}  // namespace

std::unique_ptr<ResultStore> ResultStore::open(const fs::path& dir, ResultStoreOptions options) {
    std::error_code ec;
    for (const char* part : {"entries", "manifests"}) {
        fs::create_directories(dir / part, ec);
        if (ec) fail_store_file("create the folder", dir / part, ec.value());
    }
    // The lock file doubles as the check that the folder is writable, before any run relies on it.
    const fs::path lock = dir / "lock";
    const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) fail_store_file("write", lock, errno);
    return std::unique_ptr<ResultStore>(new ResultStore(dir, options, fd));
}

ResultStore::ResultStore(fs::path dir, ResultStoreOptions options, int lock_fd)
    : dir_(std::move(dir)),
      options_(options),
      lock_fd_(lock_fd),
      packs_(dir_ / "packs", options.fsync,
             options.max_bytes == 0 ? options.pack_rotate_bytes
                                    : std::min(options.pack_rotate_bytes, options.max_bytes / 16),
             [this](std::string key, std::string reason) {
                 note_corrupt(std::move(key), std::move(reason));
             }) {}

ResultStore::~ResultStore() { ::close(lock_fd_); }

fs::path ResultStore::entry_path(std::string_view key) const {
    return entry_path(parse_key(key));  // lowercase, whatever the caller's case
}

fs::path ResultStore::entry_path(const Digest& key) const {
    const std::string hex = key.hex();
    return dir_ / "entries" / hex.substr(0, 2) / hex;
}

fs::path ResultStore::manifest_path(const Digest& identity) const {
    const std::string hex = identity.hex();
    return dir_ / "manifests" / hex.substr(0, 2) / hex;
}

std::optional<std::string> ResultStore::get(std::string_view key) { return get(parse_key(key)); }

std::optional<std::string> ResultStore::get(const Digest& digest) {
    std::string packed;
    if (packs_.get(digest, packed, options_.touch_after) == PackSet::Found::Sound) {
        hits_.fetch_add(1, std::memory_order_relaxed);
        return packed;
    }
    std::optional<std::string> payload =
        read(entry_path(digest), StoreRecordKind::Result, digest, digest.hex());
    (payload ? hits_ : misses_).fetch_add(1, std::memory_order_relaxed);
    return payload;
}

void ResultStore::put(std::string_view key, std::string_view payload) {
    put(parse_key(key), payload);
}

void ResultStore::put(const Digest& digest, std::string_view payload) {
    // The first put learns the store's size (one scan); later ones add what they write.
    std::call_once(scanned_, [&] { approx_bytes_.store(scan_bytes(), std::memory_order_relaxed); });
    if (options_.pack_max_bytes > 0 && payload.size() <= options_.pack_max_bytes) {
        packs_.put(digest, payload);
    } else {
        write(entry_path(digest), StoreRecordKind::Result, digest, payload);
    }
    puts_.fetch_add(1, std::memory_order_relaxed);
    put_bytes_.fetch_add(payload.size(), std::memory_order_relaxed);
    account(kStoreHeaderBytes + payload.size());
}

std::optional<nlohmann::json> ResultStore::get_manifest(std::string_view call_identity) {
    const Digest digest = Hasher().add("manifest").add(call_identity).digest();
    const std::string label = "manifest:" + std::string(call_identity);
    std::optional<std::string> payload =
        read(manifest_path(digest), StoreRecordKind::Manifest, digest, label);
    if (!payload) return std::nullopt;
    nlohmann::json record = nlohmann::json::parse(*payload, nullptr, /*allow_exceptions=*/false);
    if (record.is_discarded() || !record.is_object() || !record.contains("manifest")) {
        note_corrupt(label, "not a manifest record");
        return std::nullopt;
    }
    // Another identity under the same 128-bit digest would be a collision: a miss, not its record.
    if (record.value("identity", std::string()) != call_identity) return std::nullopt;
    return std::move(record["manifest"]);
}

void ResultStore::put_manifest(std::string_view call_identity, const nlohmann::json& manifest) {
    const Digest digest = Hasher().add("manifest").add(call_identity).digest();
    const nlohmann::json record = {{"identity", call_identity}, {"manifest", manifest}};
    write(manifest_path(digest), StoreRecordKind::Manifest, digest, record.dump());
}

std::optional<std::string> ResultStore::read(const fs::path& path, StoreRecordKind kind,
                                             const Digest& key, const std::string& label) {
    Fd file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (file.fd < 0) {
        // Missing, or pruned under our feet: a miss.
        if (errno == ENOENT || errno == ENOTDIR) return std::nullopt;
        fail_store_file("read", path, errno);
    }
    struct stat st{};
    if (::fstat(file.fd, &st) != 0) fail_store_file("read", path, errno);
    const auto size = static_cast<std::uint64_t>(st.st_size);

    std::string header(kStoreHeaderBytes, '\0');
    header.resize(read_at(file.fd, header.data(), header.size(), 0));
    StoreRecordCheck check = check_store_header(header, size, kind, key);
    std::string payload;
    if (check.verdict == StoreRecordVerdict::Sound) {
        payload.resize(size - kStoreHeaderBytes);
        if (read_at(file.fd, payload.data(), payload.size(), kStoreHeaderBytes) != payload.size()) {
            check = {StoreRecordVerdict::Corrupt, "short read"};
        } else {
            check = check_store_payload(header, payload);
        }
    }
    switch (check.verdict) {
        case StoreRecordVerdict::Sound: break;
        case StoreRecordVerdict::Foreign: return std::nullopt;
        case StoreRecordVerdict::Corrupt: {
            // Removed so that the recomputed result takes its place, unless a writer's rename has
            // replaced it since we opened it (then the name holds another file, likely sound).
            struct stat now{};
            if (::stat(path.c_str(), &now) == 0 && now.st_ino == st.st_ino &&
                now.st_dev == st.st_dev) {
                ::unlink(path.c_str());
            }
            note_corrupt(label, std::move(check.reason));
            return std::nullopt;
        }
    }
    // A hit marks the entry used; best effort (a store read by someone who cannot write it still
    // reads), and skipped when the mark is recent.
    const auto age = std::chrono::seconds(::time(nullptr) - st.st_mtim.tv_sec);
    if (age >= options_.touch_after) ::futimens(file.fd, nullptr);
    return payload;
}

void ResultStore::write(const fs::path& path, StoreRecordKind kind, const Digest& key,
                        std::string_view payload) {
    const std::string header = encode_store_header(kind, key, payload);
    const fs::path temp = temp_path(path);
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno == ENOENT) {  // the fan-out folder is made on first use (or after clear)
        std::error_code ec;
        fs::create_directories(path.parent_path(), ec);
        fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    }
    if (fd < 0) fail_store_file("write", temp, errno);
    auto give_up = [&](const char* what, const fs::path& where, int error) {
        ::unlink(temp.c_str());
        fail_store_file(what, where, error);
    };
    {
        Fd file(fd);
        if (!write_all(file.fd, header, payload)) give_up("write", temp, errno);
        if (options_.fsync && ::fdatasync(file.fd) != 0) give_up("sync", temp, errno);
        const int closed = ::close(file.fd);
        file.fd = -1;
        if (closed != 0) give_up("write", temp, errno);
    }
    // The publication: a reader sees the old file or this whole one, never a part.
    if (::rename(temp.c_str(), path.c_str()) != 0) give_up("publish", path, errno);
    if (options_.fsync) {
        Fd folder(::open(path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        if (folder.fd >= 0) ::fsync(folder.fd);
    }
}

void ResultStore::note_corrupt(std::string key, std::string reason) {
    corrupt_.fetch_add(1, std::memory_order_relaxed);
    std::lock_guard lock(corrupt_mutex_);
    if (corrupt_entries_.size() < kCorruptListCap) {
        corrupt_entries_.push_back({std::move(key), std::move(reason)});
    }
}

ResultStoreStats ResultStore::stats() const {
    ResultStoreStats s;
    s.hits = hits_.load(std::memory_order_relaxed);
    s.misses = misses_.load(std::memory_order_relaxed);
    s.corrupt = corrupt_.load(std::memory_order_relaxed);
    s.puts = puts_.load(std::memory_order_relaxed);
    s.put_bytes = put_bytes_.load(std::memory_order_relaxed);
    s.prunes = prunes_.load(std::memory_order_relaxed);
    s.pruned = pruned_.load(std::memory_order_relaxed);
    return s;
}

std::vector<CorruptEntry> ResultStore::corrupt_entries() const {
    std::lock_guard lock(corrupt_mutex_);
    return corrupt_entries_;
}

}  // namespace rop::runtime::detail
