#include "driver/cache_admin.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "rop/vocab/byte_size_text.h"

namespace rop::driver {
namespace fs = std::filesystem;

namespace {

bool is_temp(const std::string& name) { return name.find(".tmp.") != std::string::npos; }

// Bytes under `path` and its newest modification time (a folder: itself and everything in it).
void measure(const fs::path& path, CacheEntry& entry) {
    std::error_code ec;
    entry.paths.push_back(path);
    const fs::file_time_type own = fs::last_write_time(path, ec);
    if (!ec) entry.last_used = std::max(entry.last_used, own);
    if (!fs::is_directory(path, ec)) {
        const std::uintmax_t size = fs::file_size(path, ec);
        if (!ec) entry.bytes += size;
        return;
    }
    for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code item_ec;
        if (it->is_regular_file(item_ec)) {
            const std::uintmax_t size = it->file_size(item_ec);
            if (!item_ec) entry.bytes += size;
        }
        const fs::file_time_type t = it->last_write_time(item_ec);
        if (!item_ec) entry.last_used = std::max(entry.last_used, t);
    }
}

CacheEntry single(std::string part, const fs::path& path) {
    CacheEntry entry;
    entry.part = std::move(part);
    measure(path, entry);
    return entry;
}

}  // namespace

std::vector<CacheEntry> list_cache(const fs::path& dir) {
    std::vector<CacheEntry> entries;
    std::error_code ec;
    for (const std::string_view part_name : kCacheParts) {
        const std::string part(part_name);
        if (part == "temp") continue;
        // Sorted, so that an object's .manifest follows its .o and the listing is stable.
        std::vector<fs::directory_entry> children;
        for (fs::directory_iterator it(dir / part, ec), end; !ec && it != end; it.increment(ec)) {
            children.push_back(*it);
        }
        ec.clear();
        std::sort(children.begin(), children.end(),
                  [](const fs::directory_entry& a, const fs::directory_entry& b) {
                      return a.path().filename() < b.path().filename();
                  });
        for (std::size_t i = 0; i < children.size(); ++i) {
            const fs::path& path = children[i].path();
            const std::string name = path.filename().string();
            std::error_code kind_ec;
            const bool folder = children[i].is_directory(kind_ec);
            if (is_temp(name)) {
                entries.push_back(single("temp", path));
            } else if (part == "obj" && !folder &&
                       (name.ends_with(".o") || name.ends_with(".manifest"))) {
                // KEY.manifest and KEY.o: one entry (either alone is useless).
                const std::string key = name.substr(0, name.find('.'));
                CacheEntry entry;
                entry.part = part;
                measure(path, entry);
                while (i + 1 < children.size()) {
                    const std::string next = children[i + 1].path().filename().string();
                    if (is_temp(next) || next.substr(0, next.find('.')) != key) break;
                    measure(children[++i].path(), entry);
                }
                // Named by its object (KEY.o sorts after KEY.manifest).
                if (entry.paths.size() == 2) std::swap(entry.paths[0], entry.paths[1]);
                entries.push_back(std::move(entry));
            } else if ((part == "bin" && !folder) ||
                       (part == "pipelines" && !folder && name.ends_with(".manifest")) ||
                       ((part == "gen" || part == "pch") && folder)) {
                entries.push_back(single(part, path));
            } else if (part == "bind" && !folder && name.starts_with("rop-bind-prelude-")) {
                // Clang writes the prelude through a temporary beside it (NAME.pch-XXXXXXXX).
                entries.push_back(single(name.ends_with(".pch") ? part : "temp", path));
            }
        }
    }
    return entries;
}

void mark_used(const fs::path& path) {
    std::error_code ec;
    fs::last_write_time(path, fs::file_time_type::clock::now(), ec);
}

PruneResult prune_cache(const fs::path& dir, const PruneOptions& options, fs::file_time_type now) {
    PruneResult result;
    std::vector<CacheEntry> entries = list_cache(dir);
    std::stable_sort(entries.begin(), entries.end(), [](const CacheEntry& a, const CacheEntry& b) {
        return a.last_used < b.last_used;
    });
    std::uintmax_t total = 0;
    for (const CacheEntry& entry : entries) total += entry.bytes;
    std::vector<bool> gone(entries.size(), false);
    std::vector<bool> kept(entries.size(), false);  // a threshold named it, but it is recent
    auto remove = [&](std::size_t i) {
        CacheEntry& entry = entries[i];
        if (!options.dry_run) {
            for (const fs::path& path : entry.paths) {
                std::error_code ec;
                fs::remove_all(path, ec);
                if (ec) {
                    result.errors.push_back(path.string() + ": " + ec.message());
                    return;
                }
            }
        }
        gone[i] = true;
        total -= entry.bytes;
        result.freed += entry.bytes;
        result.removed.push_back(entry);
    };
    auto recent = [&](const CacheEntry& entry) {
        return now - entry.last_used < options.keep_recent;
    };
    // Leftovers of interrupted builds, then what was unused for longer than `older_than`.
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const CacheEntry& entry = entries[i];
        const bool named = options.all || entry.part == "temp" ||
                           (options.older_than && now - entry.last_used >= *options.older_than);
        if (!named) continue;
        if (!options.all && recent(entry)) {
            kept[i] = entry.part != "temp";
            continue;
        }
        remove(i);
    }
    // Then the least recently used first, until the cache fits.
    if (options.max_bytes) {
        for (std::size_t i = 0; i < entries.size() && total > *options.max_bytes; ++i) {
            if (gone[i]) continue;
            if (recent(entries[i])) {
                // Sorted by use: everything after it is recent too.
                for (std::size_t j = i; j < entries.size(); ++j) {
                    kept[j] = kept[j] || (!gone[j] && entries[j].part != "temp");
                }
                break;
            }
            remove(i);
        }
    }
    for (std::size_t i = 0; i < entries.size(); ++i) {
        if (gone[i]) continue;
        result.kept_recent += kept[i];
        ++result.left_entries;
        result.left_bytes += entries[i].bytes;
    }
    return result;
}

std::optional<std::uintmax_t> parse_size(std::string_view text) {
    return vocab::parse_byte_size(text);
}

std::optional<std::chrono::seconds> parse_age(std::string_view text) {
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end == text.data() || n < 0 || end + 1 != text.data() + text.size()) {
        return std::nullopt;
    }
    std::int64_t unit = 0;
    switch (*end) {
        case 's': unit = 1; break;
        case 'm': unit = 60; break;
        case 'h': unit = 3600; break;
        case 'd': unit = 86400; break;
        case 'w': unit = 7 * 86400; break;
        default: return std::nullopt;
    }
    if (n > std::int64_t{1} << 40) return std::nullopt;
    return std::chrono::seconds(n * unit);
}

std::string format_bytes(std::uintmax_t bytes) { return vocab::format_byte_size(bytes); }

std::optional<std::uintmax_t> cache_limit(std::string* error) {
    const char* value = std::getenv("ROP_CACHE_MAX_SIZE");
    if (value == nullptr || *value == '\0') return kDefaultCacheLimit;
    if (const std::optional<std::uintmax_t> size = parse_size(value)) return size;
    if (error) {
        *error = std::string("ROP_CACHE_MAX_SIZE is '") + value +
                 "', not a size (e.g. 5G, 500M; 0 for no limit)";
    }
    return std::nullopt;
}

}  // namespace rop::driver
