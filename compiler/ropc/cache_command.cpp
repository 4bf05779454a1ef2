// `ropc cache [info|prune|clear]`: what the build cache holds, by part, and removing the least
// recently used of it (docs/build.md "The cache").
#include <cstdlib>
#include <iomanip>
#include <iostream>

#include "driver/cache_admin.h"
#include "driver/toolchain.h"
#include "ropc/commands.h"

namespace rop::cli {

namespace {

namespace fs = std::filesystem;

// "just now", "40 s", "12 min", "5 h", "3 d".
std::string age(fs::file_time_type when, fs::file_time_type now) {
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(now - when).count();
    if (seconds < 1) return "just now";
    if (seconds < 120) return std::to_string(seconds) + " s ago";
    if (seconds < 2 * 3600) return std::to_string(seconds / 60) + " min ago";
    if (seconds < 2 * 86400) return std::to_string(seconds / 3600) + " h ago";
    return std::to_string(seconds / 86400) + " d ago";
}

// "3 obj, 1 bin" for the entries given.
std::string by_part(const std::vector<driver::CacheEntry>& entries) {
    std::string out;
    for (const std::string_view part : driver::kCacheParts) {
        std::size_t n = 0;
        for (const driver::CacheEntry& entry : entries) n += entry.part == part;
        if (n == 0) continue;
        if (!out.empty()) out += ", ";
        out += std::to_string(n) + " " + std::string(part);
    }
    return out;
}

std::string limit_text(std::uintmax_t limit) {
    const char* set = std::getenv("ROP_CACHE_MAX_SIZE");
    const std::string source = set != nullptr && *set != '\0'
                                   ? "ROP_CACHE_MAX_SIZE"
                                   : "the default; ROP_CACHE_MAX_SIZE sets it";
    if (limit == 0) return "none (" + source + ")";
    return driver::format_bytes(limit) + " (" + source + ")";
}

int info(const fs::path& dir, std::uintmax_t limit) {
    const std::vector<driver::CacheEntry> entries = driver::list_cache(dir);
    const fs::file_time_type now = fs::file_time_type::clock::now();
    std::cout << "cache: " << dir.string() << "\n";
    std::uintmax_t total = 0;
    for (const std::string_view part : driver::kCacheParts) {
        std::size_t n = 0;
        std::uintmax_t bytes = 0;
        fs::file_time_type oldest = fs::file_time_type::max();
        for (const driver::CacheEntry& entry : entries) {
            if (entry.part != part) continue;
            ++n;
            bytes += entry.bytes;
            oldest = std::min(oldest, entry.last_used);
        }
        total += bytes;
        std::cout << "  " << std::left << std::setw(10) << part << std::right << std::setw(6) << n
                  << (n == 1 ? " entry  " : " entries") << std::setw(12)
                  << driver::format_bytes(bytes);
        if (n > 0) std::cout << "   least recently used " << age(oldest, now);
        std::cout << "\n";
    }
    std::cout << "total: " << entries.size() << (entries.size() == 1 ? " entry, " : " entries, ")
              << driver::format_bytes(total) << "\n"
              << "limit: " << limit_text(limit) << "\n";
    const driver::Toolchain toolchain = driver::find_toolchain();
    if (!toolchain.seed_dir.empty()) {
        std::cout << "seed (read only, never pruned): " << toolchain.seed_dir << "\n";
    }
    return 0;
}

int prune(const fs::path& dir, const driver::PruneOptions& options, bool list) {
    const fs::file_time_type now = fs::file_time_type::clock::now();
    const driver::PruneResult result = driver::prune_cache(dir, options, now);
    const char* verb = options.dry_run ? "would remove " : "removed ";
    if (list) {
        for (const driver::CacheEntry& entry : result.removed) {
            std::cout << verb << entry.paths.front().string() << " ("
                      << driver::format_bytes(entry.bytes) << ", used " << age(entry.last_used, now)
                      << ")\n";
        }
    }
    std::cout << verb << result.removed.size()
              << (result.removed.size() == 1 ? " entry (" : " entries (")
              << driver::format_bytes(result.freed) << ")";
    if (!result.removed.empty()) std::cout << ": " << by_part(result.removed);
    std::cout << "\nleft: " << result.left_entries
              << (result.left_entries == 1 ? " entry, " : " entries, ")
              << driver::format_bytes(result.left_bytes) << "\n";
    if (result.kept_recent > 0) {
        std::cout << "kept " << result.kept_recent
                  << (result.kept_recent == 1 ? " entry" : " entries") << " used in the last "
                  << options.keep_recent.count() / 60 << " min, which a running build may need\n";
    }
    for (const std::string& error : result.errors) {
        std::cerr << "ropc: error: cannot remove " << error << "\n";
    }
    return result.errors.empty() ? 0 : 1;
}

}  // namespace

int run_cache(const Request& request) {
    const CacheRequest& c = request.cache;
    std::string error;
    const std::optional<std::uintmax_t> limit = driver::cache_limit(&error);
    if (!limit) {
        std::cerr << "ropc: error: " << error << "\n";
        return 2;
    }
    const fs::path dir = driver::cache_dir();
    switch (c.action) {
        case CacheAction::Info: return info(dir, *limit);
        case CacheAction::Prune: {
            driver::PruneOptions options;
            options.dry_run = c.dry_run;
            options.older_than = c.older_than;
            options.max_bytes = c.max_size;
            // Neither threshold: the limit builds keep to (none with ROP_CACHE_MAX_SIZE=0).
            if (!c.older_than && !c.max_size && *limit > 0) options.max_bytes = *limit;
            return prune(dir, options, c.dry_run);
        }
        case CacheAction::Clear: {
            driver::PruneOptions options;
            options.dry_run = c.dry_run;
            options.all = true;
            return prune(dir, options, c.dry_run);
        }
    }
    return 2;
}

}  // namespace rop::cli
