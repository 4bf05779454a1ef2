// Keeping the build cache's size in hand (`ropc cache`, docs/build.md "The cache"): its entries
// (what one cached result occupies), when a build last used each, and pruning the least recently
// used first. Builds mark what they reuse (mark_used), so an entry's modification time is its last
// use; a build's own entries are never removed while it may still need them (keep_recent).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rop::driver {

// The cache's parts, in the order `ropc cache` lists them; "temp" is what an interrupted build
// left behind (a `*.tmp.*` file of any part).
inline constexpr std::string_view kCacheParts[] = {"obj", "bin",  "pipelines", "gen",
                                                   "pch", "bind", "temp"};

struct CacheEntry {
    std::string part;                          // one of kCacheParts
    std::vector<std::filesystem::path> paths;  // what removing the entry removes
    std::uintmax_t bytes = 0;
    // The newest modification time among them (and, for a folder, everything in it).
    std::filesystem::file_time_type last_used = std::filesystem::file_time_type::min();
};

// Every entry of the cache in `dir`: an object with its manifest (obj/KEY.o, obj/KEY.manifest),
// a binary (bin/KEY), a pipeline's manifest, a generated file's folder (gen/KEY/), a precompiled
// header's folder (pch/KEY/), one of binding's preludes (bind/*.pch), a temporary file. Files
// that are none of these are not listed, so nothing else is ever removed.
std::vector<CacheEntry> list_cache(const std::filesystem::path& dir);

// Marks a cached file or folder used now (its modification time). Best effort: a read-only
// cache still builds.
void mark_used(const std::filesystem::path& path);

struct PruneOptions {
    std::optional<std::uintmax_t> max_bytes;         // remove the least recently used past it
    std::optional<std::chrono::seconds> older_than;  // remove what was unused that long
    // Never removed when used more recently than this: a running build may still need it (it
    // marks an object when it finds it, and links it later). Temporary files younger than this
    // may be a running build's; older ones are always removed.
    std::chrono::seconds keep_recent{300};
    bool all = false;      // every entry, however recent (`ropc cache clear`)
    bool dry_run = false;  // say what would go, remove nothing
};

struct PruneResult {
    std::vector<CacheEntry> removed;  // in the order removed (the least recently used first)
    std::uintmax_t freed = 0;
    std::size_t left_entries = 0;
    std::uintmax_t left_bytes = 0;
    std::size_t kept_recent = 0;      // entries a threshold named but keep_recent kept
    std::vector<std::string> errors;  // paths that could not be removed, with the reason
};

PruneResult prune_cache(
    const std::filesystem::path& dir, const PruneOptions& options,
    std::filesystem::file_time_type now = std::filesystem::file_time_type::clock::now());

// "5G", "500M", "64K", "1T", "1024" (bytes); binary units, an optional trailing "B" or "iB"
// ("5GiB", "5GB" are 5 GiB); "0" is zero. Nothing for anything else.
std::optional<std::uintmax_t> parse_size(std::string_view text);
// "30d", "12h", "45m", "90s", "2w"; nothing for anything else.
std::optional<std::chrono::seconds> parse_age(std::string_view text);
// "0 B", "812 B", "40.1 KiB", "5.0 GiB".
std::string format_bytes(std::uintmax_t bytes);

// The size limit builds prune the cache to: $ROP_CACHE_MAX_SIZE (0: no limit), else 5 GiB.
// `error` is set, and nothing returned, when the variable is not a size.
inline constexpr std::uintmax_t kDefaultCacheLimit = std::uintmax_t{5} << 30;
std::optional<std::uintmax_t> cache_limit(std::string* error);

}  // namespace rop::driver
