// The build cache's entries and their pruning (driver/cache_admin.h, `ropc cache`): what an entry
// is in each part, the least recently used first, the thresholds, the entries a running build
// may hold, and the size and age words. tests/ropc/cache_command.sh runs ropc itself.
#include <catch2/catch_test_macros.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "driver/cache_admin.h"

namespace fs = std::filesystem;
using namespace rop::driver;
using namespace std::chrono_literals;

namespace {

// A cache folder with files of given sizes and ages (seconds before `now`).
struct FakeCache {
    fs::path dir;
    fs::file_time_type now = fs::file_time_type::clock::now();

    FakeCache() {
        dir = fs::temp_directory_path() /
              ("rop-cache-admin-" + std::to_string(now.time_since_epoch().count()));
        fs::remove_all(dir);
        fs::create_directories(dir);
    }
    ~FakeCache() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
    void file(const std::string& relative, std::size_t bytes, std::chrono::seconds age) {
        const fs::path path = dir / relative;
        fs::create_directories(path.parent_path());
        std::ofstream(path, std::ios::binary) << std::string(bytes, 'x');
        fs::last_write_time(path, now - age);
    }
    void folder_age(const std::string& relative, std::chrono::seconds age) {
        fs::last_write_time(dir / relative, now - age);
    }
    bool has(const std::string& relative) const { return fs::exists(dir / relative); }
};

// part -> the file names (relative to the cache) of each of its entries, joined by '+'.
std::multimap<std::string, std::string> entries_of(const FakeCache& cache) {
    std::multimap<std::string, std::string> out;
    for (const CacheEntry& entry : list_cache(cache.dir)) {
        std::string names;
        for (const fs::path& path : entry.paths) {
            if (!names.empty()) names += "+";
            names += fs::relative(path, cache.dir).string();
        }
        out.emplace(entry.part, names);
    }
    return out;
}

std::set<std::string> removed_names(const PruneResult& result, const FakeCache& cache) {
    std::set<std::string> out;
    for (const CacheEntry& entry : result.removed) {
        out.insert(fs::relative(entry.paths.front(), cache.dir).string());
    }
    return out;
}

}  // namespace

TEST_CASE("cache entries: one per cached result, by part; other files are not the cache's",
          "[cache]") {
    FakeCache c;
    c.file("obj/aaaa.o", 100, 10s);
    c.file("obj/aaaa.manifest", 10, 20s);
    c.file("obj/bbbb.o", 50, 10s);  // a manifest lost: still one entry (removable)
    c.file("obj/cccc.o.tmp.4242", 7, 10s);
    c.file("obj/cccc.o.tmp.4242.d", 3, 10s);
    c.file("bin/dddd", 1000, 10s);
    c.file("bin/dddd.tmp.77", 500, 10s);
    c.file("pipelines/eeee.manifest", 20, 10s);
    c.file("pipelines/notes.txt", 20, 10s);
    c.file("gen/ffff/p.generated.cpp", 300, 10s);
    c.file("pch/gggg/rop_pch.h", 30, 10s);
    c.file("pch/gggg/rop_pch.h.gch", 3000, 10s);
    c.file("pch/gggg/manifest", 40, 10s);
    c.file("bind/rop-bind-prelude-0123456789abcdef.pch", 2000, 10s);
    c.file("bind/rop-bind-prelude-0123456789abcdef.pch-a1b2c3d4", 900, 10s);
    c.file("bind/user-notes", 5, 10s);
    c.file("README", 5, 10s);
    c.file("other/x", 5, 10s);
    const std::multimap<std::string, std::string> want = {
        {"obj", "obj/aaaa.o+obj/aaaa.manifest"},
        {"obj", "obj/bbbb.o"},
        {"temp", "obj/cccc.o.tmp.4242"},
        {"temp", "obj/cccc.o.tmp.4242.d"},
        {"bin", "bin/dddd"},
        {"temp", "bin/dddd.tmp.77"},
        {"pipelines", "pipelines/eeee.manifest"},
        {"gen", "gen/ffff"},
        {"pch", "pch/gggg"},
        {"bind", "bind/rop-bind-prelude-0123456789abcdef.pch"},
        {"temp", "bind/rop-bind-prelude-0123456789abcdef.pch-a1b2c3d4"},
    };
    CHECK(entries_of(c) == want);
    for (const CacheEntry& entry : list_cache(c.dir)) {
        INFO(entry.paths.front());
        if (entry.part == "obj" && entry.paths.size() == 2) {
            CHECK(entry.bytes == 110);
            CHECK(entry.last_used == c.now - 10s);  // the newer of the two
        }
        if (entry.part == "pch") CHECK(entry.bytes == 3070);
        if (entry.part == "gen") CHECK(entry.bytes == 300);
    }
}

TEST_CASE("cache entries: a folder's last use is its newest file or itself", "[cache]") {
    FakeCache c;
    c.file("pch/k/manifest", 1, 3000s);
    c.file("pch/k/rop_pch.h.gch", 1, 2000s);
    c.folder_age("pch/k", 5000s);
    REQUIRE(list_cache(c.dir).size() == 1);
    CHECK(list_cache(c.dir)[0].last_used == c.now - 2000s);
    c.folder_age("pch/k", 100s);  // mark_used touches the folder
    CHECK(list_cache(c.dir)[0].last_used == c.now - 100s);
}

TEST_CASE("mark_used makes an entry the most recently used", "[cache]") {
    FakeCache c;
    c.file("bin/old", 10, 86400s);
    const auto before = fs::last_write_time(c.dir / "bin/old");
    mark_used(c.dir / "bin/old");
    CHECK(fs::last_write_time(c.dir / "bin/old") > before + 86000s);
    mark_used(c.dir / "bin/missing");  // nothing to mark: no error, nothing made
    CHECK_FALSE(c.has("bin/missing"));
}

TEST_CASE("prune: the least recently used go first, until the cache fits", "[cache]") {
    FakeCache c;
    c.file("bin/a", 100, 4000s);
    c.file("bin/b", 100, 3000s);
    c.file("obj/c.o", 100, 2000s);
    c.file("obj/c.manifest", 1, 2000s);
    c.file("bin/d", 100, 1000s);
    struct Case {
        std::uintmax_t max;
        std::set<std::string> removed;
    };
    for (const Case& k : {Case{1000, {}}, Case{401, {}}, Case{400, {"bin/a"}},
                          Case{250, {"bin/a", "bin/b"}}, Case{100, {"bin/a", "bin/b", "obj/c.o"}},
                          Case{0, {"bin/a", "bin/b", "obj/c.o", "bin/d"}}}) {
        INFO("max " << k.max);
        PruneOptions o;
        o.max_bytes = k.max;
        o.dry_run = true;
        const PruneResult r = prune_cache(c.dir, o, c.now);
        CHECK(removed_names(r, c) == k.removed);
        CHECK(r.left_bytes <= k.max);
        CHECK(r.left_bytes + r.freed == 401);
        CHECK(r.left_entries + r.removed.size() == 4);
        CHECK(r.kept_recent == 0);
        CHECK(c.has("bin/a"));  // a dry run removes nothing
    }
    PruneOptions o;
    o.max_bytes = 250;
    const PruneResult r = prune_cache(c.dir, o, c.now);
    CHECK(r.errors.empty());
    CHECK_FALSE(c.has("bin/a"));
    CHECK_FALSE(c.has("bin/b"));
    CHECK(c.has("obj/c.o"));
    CHECK(c.has("bin/d"));
    CHECK(r.removed.front().paths.front().filename() == "a");  // the order removed
}

TEST_CASE("prune: what was unused for longer than an age, and both thresholds together",
          "[cache]") {
    FakeCache c;
    c.file("bin/a", 100, 40 * 86400s);
    c.file("gen/b/p.generated.cpp", 100, 10 * 86400s);
    c.folder_age("gen/b", 10 * 86400s);  // made with the file
    c.file("bin/c", 100, 3600s);
    PruneOptions o;
    o.dry_run = true;
    o.older_than = 30 * 86400s;
    CHECK(removed_names(prune_cache(c.dir, o, c.now), c) == std::set<std::string>{"bin/a"});
    o.older_than = 86400s;
    CHECK(removed_names(prune_cache(c.dir, o, c.now), c) ==
          std::set<std::string>{"bin/a", "gen/b"});
    o.older_than = 30 * 86400s;
    o.max_bytes = 100;  // the age removes a, the size b
    CHECK(removed_names(prune_cache(c.dir, o, c.now), c) ==
          std::set<std::string>{"bin/a", "gen/b"});
    o.dry_run = false;
    prune_cache(c.dir, o, c.now);
    CHECK_FALSE(c.has("gen/b"));
    CHECK_FALSE(c.has("gen/b/p.generated.cpp"));
    CHECK(c.has("bin/c"));
}

TEST_CASE("prune: what a running build may hold stays; leftovers of interrupted builds go",
          "[cache]") {
    FakeCache c;
    c.file("bin/old", 100, 3600s);
    c.file("bin/recent", 100, 60s);  // used a minute ago
    c.file("obj/k.o", 100, 10s);
    c.file("obj/k.o.tmp.99", 100, 3600s);  // an interrupted compile's
    c.file("obj/j.o.tmp.100", 100, 30s);   // a running compile's
    c.file("bin/z.tmp.5", 100, 3600s);
    PruneOptions o;
    o.max_bytes = 0;
    PruneResult r = prune_cache(c.dir, o, c.now);
    CHECK(removed_names(r, c) == std::set<std::string>{"bin/old", "obj/k.o.tmp.99", "bin/z.tmp.5"});
    CHECK(r.kept_recent == 2);  // bin/recent and obj/k.o (not the running compile's temp)
    CHECK(r.left_entries == 3);
    CHECK(c.has("bin/recent"));
    CHECK(c.has("obj/j.o.tmp.100"));
    // No threshold at all: only the old leftovers would go.
    c.file("bin/y.tmp.6", 100, 3600s);
    r = prune_cache(c.dir, PruneOptions{}, c.now);
    CHECK(removed_names(r, c) == std::set<std::string>{"bin/y.tmp.6"});
    CHECK(r.kept_recent == 0);
    // An age threshold reaches no recent entry either.
    o = PruneOptions{};
    o.older_than = 0s;
    r = prune_cache(c.dir, o, c.now);
    CHECK(r.removed.empty());
    CHECK(r.kept_recent == 2);
    o.max_bytes = 0;  // both thresholds name the same recent entries: each counted once
    CHECK(prune_cache(c.dir, o, c.now).kept_recent == 2);
    // `ropc cache clear`: everything.
    o = PruneOptions{};
    o.all = true;
    r = prune_cache(c.dir, o, c.now);
    CHECK(r.left_entries == 0);
    CHECK(r.left_bytes == 0);
    CHECK(list_cache(c.dir).empty());
}

TEST_CASE("cache sizes and ages: the words ropc takes", "[cache]") {
    const std::vector<std::pair<std::string, std::optional<std::uintmax_t>>> sizes = {
        {"0", 0},
        {"1024", 1024},
        {"64K", 64u << 10},
        {"64k", 64u << 10},
        {"500M", 500u << 20},
        {"5G", std::uintmax_t{5} << 30},
        {"5GB", std::uintmax_t{5} << 30},
        {"5GiB", std::uintmax_t{5} << 30},
        {"5gib", std::uintmax_t{5} << 30},
        {"1.5G", std::uintmax_t{3} << 29},
        {"2T", std::uintmax_t{2} << 40},
        {"100B", 100},
        {"", std::nullopt},
        {"G", std::nullopt},
        {"5iB", std::nullopt},
        {"-1G", std::nullopt},
        {"5Q", std::nullopt},
        {"5 G", std::nullopt},
        {"5GG", std::nullopt},
        {"1e3", std::nullopt},
        {"99999999999T", std::nullopt},
        {"nan", std::nullopt},
    };
    for (const auto& [text, want] : sizes) {
        INFO("'" << text << "'");
        CHECK(parse_size(text) == want);
    }
    const std::vector<std::pair<std::string, std::optional<std::chrono::seconds>>> ages = {
        {"90s", 90s},          {"45m", 2700s},       {"12h", 43200s},        {"30d", 2592000s},
        {"2w", 1209600s},      {"0s", 0s},           {"30", std::nullopt},   {"d", std::nullopt},
        {"-1d", std::nullopt}, {"1y", std::nullopt}, {"1.5d", std::nullopt}, {"3dd", std::nullopt},
        {"", std::nullopt},
    };
    for (const auto& [text, want] : ages) {
        INFO("'" << text << "'");
        CHECK(parse_age(text) == want);
    }
    CHECK(format_bytes(0) == "0 B");
    CHECK(format_bytes(1023) == "1023 B");
    CHECK(format_bytes(1024) == "1.0 KiB");
    CHECK(format_bytes(41062) == "40.1 KiB");
    CHECK(format_bytes(std::uintmax_t{5} << 30) == "5.0 GiB");
    CHECK(format_bytes(std::uintmax_t{3} << 40) == "3.0 TiB");
}
