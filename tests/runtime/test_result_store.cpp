// The result store (runtime/src/cache/result_store.h, docs/runtime.md "The result store"): entries
// round-trip, a torn or damaged one is never returned but counted and removed, puts publish
// atomically even across processes and under SIGKILL, the size limit drops the least recently
// used first, and the admin functions say what the store holds.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cache/digest.h"
#include "cache/result_store.h"

namespace {

namespace fs = std::filesystem;
using rop::runtime::detail::Digest;
using rop::runtime::detail::Hasher;
using rop::runtime::detail::ResultStore;
using rop::runtime::detail::ResultStoreError;
using rop::runtime::detail::ResultStoreOptions;

struct TempDir {
    fs::path path;
    TempDir() {
        static int n = 0;
        path = fs::temp_directory_path() /
               ("rop-result-store-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
        fs::remove_all(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::permissions(path, fs::perms::owner_all, fs::perm_options::add, ec);
        fs::remove_all(path, ec);
    }
};

std::string key_of(const std::string& name) { return Hasher().add(name).hex(); }

// A payload that says which key it belongs to, so that a reader can tell wrong bytes from right.
std::string payload_of(const std::string& key, std::size_t size) {
    std::string out;
    std::mt19937_64 random(std::hash<std::string>{}(key));
    while (out.size() < size) out += static_cast<char>(random());
    return out;
}

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

void write_file(const fs::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
}

// Sets a file's modification time `seconds_ago` into the past (the store's "last used").
void set_age(const fs::path& path, int seconds_ago) {
    timespec times[2];
    times[0].tv_sec = times[1].tv_sec = ::time(nullptr) - seconds_ago;
    times[0].tv_nsec = times[1].tv_nsec = 0;
    REQUIRE(::utimensat(AT_FDCWD, path.c_str(), times, 0) == 0);
}

// Every entry in a file of its own (none packed): the tests of the file entries' rules.
ResultStoreOptions files_only() {
    ResultStoreOptions options;
    options.pack_max_bytes = 0;
    return options;
}

long age_of(const fs::path& path) {
    struct stat st{};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    return ::time(nullptr) - st.st_mtim.tv_sec;
}

}  // namespace

TEST_CASE("digest: XXH3-128 hex, framed pieces, round trip through from_hex", "[result_store]") {
    const std::string abc = Hasher().add("ab").add("c").hex();
    CHECK(abc.size() == 32);
    CHECK(abc != Hasher().add("a").add("bc").hex());
    CHECK(Hasher().add_u64(1).hex() != Hasher().add_u64(2).hex());
    // The empty stream's digest, as `xxhsum -H2` prints it for an empty file.
    CHECK(Hasher().hex() == "99aa06d3014798d86001c324468d497f");
    const std::optional<Digest> back = Digest::from_hex(abc);
    REQUIRE(back);
    CHECK(back->hex() == abc);
    CHECK_FALSE(Digest::from_hex("xyz"));
    CHECK_FALSE(Digest::from_hex(std::string(31, 'a') + "g"));
}

TEST_CASE("result store: put then get returns the bytes; other keys miss", "[result_store]") {
    TempDir dir;
    auto store = ResultStore::open(dir.path, files_only());
    const std::string key = key_of("page 1");
    CHECK_FALSE(store->get(key));
    const std::string payload = payload_of(key, 5000) + std::string("\0tail", 5);
    store->put(key, payload);
    CHECK(store->get(key) == payload);
    CHECK(store->get(key_of("page 2")) == std::nullopt);
    store->put(key_of("empty"), "");
    CHECK(store->get(key_of("empty")) == std::string());
    // Fanned out by the key's first two digits.
    CHECK(store->entry_path(key) == dir.path / "entries" / key.substr(0, 2) / key);
    CHECK(fs::is_regular_file(store->entry_path(key)));
    const auto stats = store->stats();
    CHECK(stats.hits == 2);
    CHECK(stats.misses == 2);
    CHECK(stats.puts == 2);
    CHECK(stats.corrupt == 0);
    CHECK_THROWS_AS(store->get("not a key"), std::invalid_argument);
    CHECK_FALSE(fs::exists(dir.path / "packs"));
    // Another ResultStore on the same folder (another run) sees the entry.
    CHECK(ResultStore::open(dir.path)->get(key) == payload);
}

TEST_CASE("result store: a damaged entry is a miss, removed, and counted with its key",
          "[result_store]") {
    TempDir dir;
    auto store = ResultStore::open(dir.path, files_only());
    const std::string key = key_of("ocr page 7");
    const std::string payload = payload_of(key, 4096);
    const fs::path path = store->entry_path(key);
    std::string expected_reason;

    SECTION("a byte of the payload flipped") {
        store->put(key, payload);
        std::string bytes = read_file(path);
        bytes[bytes.size() - 100] ^= 0x20;
        write_file(path, bytes);
        expected_reason = "payload hash mismatch";
    }
    SECTION("a byte of the header's hash flipped") {
        store->put(key, payload);
        std::string bytes = read_file(path);
        bytes[45] ^= 0x01;
        write_file(path, bytes);
        expected_reason = "payload hash mismatch";
    }
    SECTION("truncated: the payload cut short") {
        store->put(key, payload);
        fs::resize_file(path, fs::file_size(path) - 1000);
        expected_reason = "payload bytes";
    }
    SECTION("truncated inside the header") {
        store->put(key, payload);
        fs::resize_file(path, 20);
        expected_reason = "short";
    }
    SECTION("empty") {
        store->put(key, payload);
        fs::resize_file(path, 0);
        expected_reason = "short";
    }
    SECTION("bad magic") {
        store->put(key, payload);
        std::string bytes = read_file(path);
        bytes[0] = 'X';
        write_file(path, bytes);
        expected_reason = "bad magic";
    }
    SECTION("another key's sound entry under this key's name") {
        const std::string other = key_of("ocr page 8");
        store->put(other, payload);
        fs::create_directories(path.parent_path());
        fs::copy_file(store->entry_path(other), path);
        expected_reason = "written under key " + other;
    }
    CHECK(store->get(key) == std::nullopt);
    CHECK_FALSE(fs::exists(path));  // removed, so the recomputed result takes its place
    CHECK(store->stats().corrupt == 1);
    CHECK(store->stats().misses == 1);
    CHECK(store->stats().hits == 0);
    const auto corrupt = store->corrupt_entries();
    REQUIRE(corrupt.size() == 1);
    CHECK(corrupt[0].key == key);
    CHECK_THAT(corrupt[0].reason, Catch::Matchers::ContainsSubstring(expected_reason));
    // Recomputed and put again, it is a hit.
    store->put(key, payload);
    CHECK(store->get(key) == payload);
}

TEST_CASE("result store: a torn write left behind is never returned, and prune removes it",
          "[result_store]") {
    TempDir dir;
    auto store = ResultStore::open(dir.path, files_only());
    const std::string key = key_of("a torn write");
    const std::string payload = payload_of(key, 10000);
    store->put(key, payload);
    const fs::path path = store->entry_path(key);
    const std::string whole = read_file(path);
    fs::remove(path);
    // What a put killed halfway leaves: half of the file, under temporary names.
    const fs::path stale = path.string() + ".tmp.12345.12345.0";
    const fs::path young = path.string() + ".tmp.12346.12346.0";
    write_file(stale, whole.substr(0, whole.size() / 2));
    write_file(young, whole.substr(0, whole.size() / 3));
    set_age(stale, 3600);

    CHECK(store->get(key) == std::nullopt);
    CHECK(store->stats().corrupt == 0);  // never looked at: not the entry's name
    auto info = store->info();
    CHECK(info.entries == 0);
    CHECK(info.temp_files == 2);

    const auto pruned = store->prune(1 << 30);
    CHECK(pruned.temp_removed == 1);
    CHECK_FALSE(fs::exists(stale));
    CHECK(fs::exists(young));  // it may be a running put's
    // The store's own puts leave no temporary file behind.
    fs::remove(young);
    store->put(key, payload);
    CHECK(store->info().temp_files == 0);
    CHECK(store->get(key) == payload);
}

namespace {

// One process's share of the hammering: puts and gets over a few shared keys, every value read
// checked against what its key must hold. Returns the number of wrong or corrupt reads.
int hammer(const fs::path& dir, unsigned seed, int rounds, std::uintmax_t max_bytes) {
    ResultStoreOptions options;
    options.max_bytes = max_bytes;
    auto store = ResultStore::open(dir, options);
    std::mt19937 random(seed);
    int wrong = 0;
    for (int i = 0; i < rounds; ++i) {
        const std::string key = key_of("shared " + std::to_string(random() % 12));
        // Same key, same bytes: sizes differ between keys, so a mix of two would show.
        const std::size_t size = 20000 + std::hash<std::string>{}(key) % 200000;
        if (random() % 2 == 0) {
            store->put(key, payload_of(key, size));
        } else if (const auto got = store->get(key); got && *got != payload_of(key, size)) {
            ++wrong;
        }
    }
    return wrong + static_cast<int>(store->stats().corrupt);
}

}  // namespace

TEST_CASE("result store: two processes hammering the same keys leave every entry sound",
          "[result_store][processes]") {
    TempDir dir;
    ResultStore::open(dir.path);
    // A limit under what the 12 keys hold, so that prunes run while the other process reads.
    const std::uintmax_t limit = GENERATE(std::uintmax_t{0}, std::uintmax_t{1} << 20);
    std::vector<pid_t> children;
    for (unsigned seed : {1u, 2u, 3u}) {
        const pid_t child = ::fork();
        REQUIRE(child >= 0);
        if (child == 0) {
            int bad = 1;
            try {
                bad = hammer(dir.path, seed, 400, limit);
            } catch (...) {
            }
            ::_exit(bad == 0 ? 0 : 1);
        }
        children.push_back(child);
    }
    for (pid_t child : children) {
        int status = 0;
        REQUIRE(::waitpid(child, &status, 0) == child);
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);  // no process read a wrong or corrupt entry
    }
    auto store = ResultStore::open(dir.path);
    int present = 0;
    for (int k = 0; k < 12; ++k) {
        const std::string key = key_of("shared " + std::to_string(k));
        const std::size_t size = 20000 + std::hash<std::string>{}(key) % 200000;
        if (const auto got = store->get(key)) {
            CHECK(*got == payload_of(key, size));
            ++present;
        }
    }
    CHECK(store->stats().corrupt == 0);
    CHECK(store->info().temp_files == 0);
    if (limit == 0) CHECK(present == 12);
}

TEST_CASE("result store: a put SIGKILLed at any moment leaves the entry whole or absent",
          "[result_store][processes]") {
    TempDir dir;
    const std::string key = key_of("big result");
    const std::string payload = payload_of(key, 8 << 20);
    std::mt19937 random(29);
    int whole = 0;
    for (int attempt = 0; attempt < 12; ++attempt) {
        fs::remove_all(dir.path / "entries");
        const pid_t child = ::fork();
        REQUIRE(child >= 0);
        if (child == 0) {
            auto store = ResultStore::open(dir.path);
            for (;;) store->put(key, payload);
        }
        std::this_thread::sleep_for(std::chrono::microseconds(2000 + random() % 60000));
        ::kill(child, SIGKILL);
        int status = 0;
        REQUIRE(::waitpid(child, &status, 0) == child);
        auto store = ResultStore::open(dir.path);
        const auto got = store->get(key);
        if (got) {
            CHECK(*got == payload);
            ++whole;
        }
        CHECK(store->stats().corrupt == 0);
    }
    INFO("attempts that found the entry whole: " << whole);
}

namespace {

// Six threads, `rounds` each, putting or getting (half and half) one of `keys` keys whose
// payload is `size` bytes; returns how many gets read wrong bytes.
int threads_put_and_get(ResultStore& store, int rounds, unsigned keys, std::size_t size) {
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < 6; ++t) {
        threads.emplace_back([&, t] {
            std::mt19937 random(t);
            for (int i = 0; i < rounds; ++i) {
                const std::string key = key_of("k" + std::to_string(random() % keys));
                const std::string payload = payload_of(key, size);
                if (random() % 2 == 0) {
                    store.put(key, payload);
                } else if (const auto got = store.get(key); got && *got != payload) {
                    ++wrong;
                }
            }
        });
    }
    for (std::thread& thread : threads) thread.join();
    return wrong;
}

}  // namespace

TEST_CASE("result store: threads of one process put and get concurrently", "[result_store]") {
    TempDir dir;
    ResultStoreOptions options;
    options.max_bytes = 600 << 10;  // prunes run while the other threads read and write
    auto store = ResultStore::open(dir.path, options);
    CHECK(threads_put_and_get(*store, 300, 20, 30000) == 0);
    CHECK(store->stats().corrupt == 0);
    CHECK(store->info().bytes <= options.max_bytes);
}

TEST_CASE("result store: past the size limit the least recently used entries go first",
          "[result_store]") {
    TempDir dir;
    ResultStoreOptions options = files_only();
    // Four 1000-byte entries fit (each is its payload and a 56-byte header); five do not.
    options.max_bytes = 4500;
    auto store = ResultStore::open(dir.path, options);
    const std::vector<std::string> keys = {key_of("a"), key_of("b"), key_of("c"), key_of("d"),
                                           key_of("e")};
    for (int i = 0; i < 4; ++i) store->put(keys[i], payload_of(keys[i], 1000));
    // Put in the order a, b, c, d, long enough ago that a hit marks them again.
    for (int i = 0; i < 4; ++i) set_age(store->entry_path(keys[i]), 400 - 100 * i);
    CHECK(store->info().entries == 4);
    CHECK(store->stats().prunes == 0);

    // A hit makes `a` the most recently used.
    CHECK(store->get(keys[0]));
    CHECK(age_of(store->entry_path(keys[0])) < 5);

    // `e` takes the store past 4500 bytes: pruned to 90% (4050), b then c go.
    store->put(keys[4], payload_of(keys[4], 1000));
    CHECK(store->stats().prunes == 1);
    CHECK(store->stats().pruned == 2);
    CHECK(store->get(keys[0]));
    CHECK_FALSE(store->get(keys[1]));
    CHECK_FALSE(store->get(keys[2]));
    CHECK(store->get(keys[3]));
    CHECK(store->get(keys[4]));
    const auto info = store->info();
    CHECK(info.entries == 3);
    CHECK(info.bytes == 3 * 1056);
    CHECK(info.bytes <= options.max_bytes);

    // By hand: down to one entry's size keeps the most recent one.
    set_age(store->entry_path(keys[0]), 50);
    set_age(store->entry_path(keys[3]), 40);
    set_age(store->entry_path(keys[4]), 30);
    const auto pruned = store->prune(1056);
    CHECK(pruned.removed == 2);
    CHECK(pruned.left_entries == 1);
    CHECK(pruned.left_bytes == 1056);
    CHECK(fs::exists(store->entry_path(keys[4])));
}

TEST_CASE("result store: a hit marks its entry used, but not again within touch_after",
          "[result_store]") {
    TempDir dir;
    auto store = ResultStore::open(dir.path, files_only());
    const std::string key = key_of("x");
    store->put(key, "value");
    set_age(store->entry_path(key), 30);  // within the default 60 s: left as it is
    CHECK(store->get(key));
    CHECK(age_of(store->entry_path(key)) >= 29);
    set_age(store->entry_path(key), 90);
    CHECK(store->get(key));
    CHECK(age_of(store->entry_path(key)) < 5);
}

TEST_CASE("result store: info and clear", "[result_store]") {
    TempDir dir;
    ResultStoreOptions options = files_only();
    options.max_bytes = 1 << 20;
    auto store = ResultStore::open(dir.path, options);
    auto empty = store->info();
    CHECK(empty.entries == 0);
    CHECK(empty.bytes == 0);
    CHECK_FALSE(empty.oldest);
    CHECK(empty.max_bytes == 1 << 20);
    for (int i = 0; i < 10; ++i) store->put(key_of(std::to_string(i)), std::string(100, 'x'));
    set_age(store->entry_path(key_of("0")), 7200);
    store->put_manifest("wordcount/count@2", {{"code", "abc"}});
    const auto info = store->info();
    CHECK(info.entries == 10);
    CHECK(info.bytes == 10 * 156);
    CHECK(info.manifests == 1);
    REQUIRE(info.oldest);
    REQUIRE(info.newest);
    CHECK(*info.newest - *info.oldest >= std::chrono::seconds(7100));
    const std::string text = rop::runtime::detail::format_result_store_info(info);
    CHECK_THAT(text, Catch::Matchers::ContainsSubstring("entries    10, 1.5 KiB of 1.0 MiB"));
    CHECK_THAT(text, Catch::Matchers::ContainsSubstring("manifests  1"));
    CHECK_THAT(text, Catch::Matchers::ContainsSubstring("(oldest)"));

    const auto cleared = store->clear();
    CHECK(cleared.removed == 11);
    CHECK(cleared.left_entries == 0);
    const auto after = store->info();
    CHECK(after.entries == 0);
    CHECK(after.manifests == 0);
    CHECK_FALSE(store->get(key_of("1")));
    CHECK_FALSE(store->get_manifest("wordcount/count@2"));
    // The store still works after a clear.
    store->put(key_of("1"), "again");
    CHECK(store->get(key_of("1")) == "again");
}

namespace {

// The packs in a store's folder.
std::vector<fs::path> packs_in(const fs::path& dir) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir / "packs", ec), end; !ec && it != end; it.increment(ec)) {
        out.push_back(it->path());
    }
    return out;
}

// Where each record of a pack starts: the 56-byte header carries the payload's length at byte 16.
std::vector<std::size_t> record_offsets(const std::string& pack) {
    std::vector<std::size_t> out;
    std::size_t at = 0;
    while (at + 56 <= pack.size()) {
        out.push_back(at);
        std::uint64_t length = 0;
        for (int i = 0; i < 8; ++i) {
            length |= std::uint64_t{static_cast<unsigned char>(pack[at + 16 + i])} << (8 * i);
        }
        at += 56 + length;
    }
    return out;
}

}  // namespace

TEST_CASE("result store: small entries are appended to one pack, which the next run indexes",
          "[result_store][packs]") {
    TempDir dir;
    ResultStoreOptions options;
    options.pack_max_bytes = 1000;
    auto store = ResultStore::open(dir.path, options);
    for (int i = 0; i < 100; ++i) {
        const std::string key = key_of("line " + std::to_string(i));
        store->put(key, payload_of(key, static_cast<std::size_t>(i) * 10));  // 0 to 990 bytes
    }
    const std::string big = key_of("page image");
    store->put(big, payload_of(big, 1001));
    // Buffered until a flush (the engine flushes after each batch), 64 KiB, or 1 s.
    store->flush();
    // One pack for the hundred small ones, a file for the one over the limit.
    const auto packs = packs_in(dir.path);
    REQUIRE(packs.size() == 1);
    CHECK(packs[0] == store->pack_path());
    CHECK(fs::is_regular_file(store->entry_path(big)));
    CHECK_FALSE(fs::exists(store->entry_path(key_of("line 5"))));
    CHECK(fs::file_size(packs[0]) == 100 * 56 + 10 * (99 * 100 / 2));
    // This run reads its own pack; the next one indexes it.
    CHECK(store->get(key_of("line 7")) == payload_of(key_of("line 7"), 70));
    auto next = ResultStore::open(dir.path, options);
    for (int i = 0; i < 100; ++i) {
        const std::string key = key_of("line " + std::to_string(i));
        CHECK(next->get(key) == payload_of(key, static_cast<std::size_t>(i) * 10));
    }
    CHECK(next->get(big) == payload_of(big, 1001));
    CHECK_FALSE(next->get(key_of("line 100")));
    CHECK(next->stats().hits == 101);
    CHECK(next->stats().corrupt == 0);
    const auto info = next->info();
    CHECK(info.entries == 101);
    CHECK(info.packs == 1);
    CHECK(info.bytes == fs::file_size(packs[0]) + 56 + 1001);
    CHECK_THAT(rop::runtime::detail::format_result_store_info(info),
               Catch::Matchers::ContainsSubstring("(small ones in 1 packs)"));
    // A run that puts nothing starts no pack.
    CHECK(next->pack_path().empty());
    CHECK(packs_in(dir.path).size() == 1);
}

TEST_CASE("result store: a damaged packed record is a miss, reported; the others still hit",
          "[result_store][packs]") {
    TempDir dir;
    const std::vector<std::string> keys = {key_of("p1"), key_of("p2"), key_of("p3")};
    {
        auto store = ResultStore::open(dir.path);
        for (const auto& key : keys) store->put(key, payload_of(key, 300));
    }
    const fs::path pack = packs_in(dir.path).at(0);
    std::string bytes = read_file(pack);
    const auto offsets = record_offsets(bytes);
    REQUIRE(offsets.size() == 3);
    std::vector<bool> hit = {true, true, true};
    std::string expected_reason;
    std::uint64_t expected_corrupt = 0;

    SECTION("a payload byte of the middle record flipped") {
        bytes[offsets[1] + 56 + 10] ^= 0x20;
        hit[1] = false;
        expected_reason = "payload hash mismatch";
        expected_corrupt = 1;
    }
    SECTION("the middle record's hash flipped") {
        bytes[offsets[1] + 40] ^= 0x01;
        hit[1] = false;
        expected_reason = "payload hash mismatch";
        expected_corrupt = 1;
    }
    SECTION("the middle record's magic broken: no pass can step over it") {
        bytes[offsets[1]] = 'X';
        hit[1] = hit[2] = false;
    }
    SECTION("a torn tail, as a put killed mid-write leaves") {
        bytes.resize(offsets[2] + 56 + 100);
        hit[2] = false;
    }
    write_file(pack, bytes);
    auto store = ResultStore::open(dir.path);
    for (std::size_t i = 0; i < keys.size(); ++i) {
        INFO("record " << i);
        const auto got = store->get(keys[i]);
        CHECK(got.has_value() == hit[i]);
        if (got) CHECK(*got == payload_of(keys[i], 300));
    }
    CHECK(store->stats().corrupt == expected_corrupt);
    if (expected_corrupt > 0) {
        const auto corrupt = store->corrupt_entries();
        REQUIRE(corrupt.size() == 1);
        CHECK(corrupt[0].key == keys[1]);
        CHECK_THAT(corrupt[0].reason, Catch::Matchers::ContainsSubstring(expected_reason));
        CHECK_THAT(corrupt[0].reason, Catch::Matchers::ContainsSubstring("in pack "));
        // Asked again in this run, it is a plain miss: reported once.
        CHECK_FALSE(store->get(keys[1]));
        CHECK(store->stats().corrupt == 1);
    }
    // Recomputed and put again, by this run: the next run's index prefers the newer pack.
    for (std::size_t i = 0; i < keys.size(); ++i) {
        if (!hit[i]) store->put(keys[i], payload_of(keys[i], 300));
    }
    store->flush();
    auto next = ResultStore::open(dir.path);
    for (const auto& key : keys) CHECK(next->get(key) == payload_of(key, 300));
    CHECK(next->stats().corrupt == 0);
}

TEST_CASE("result store: a process SIGKILLed while it packs leaves every record whole or absent",
          "[result_store][packs][processes]") {
    TempDir dir;
    std::mt19937 random(31);
    int found = 0;
    for (int attempt = 0; attempt < 8; ++attempt) {
        int ready[2];
        REQUIRE(::pipe(ready) == 0);
        const pid_t child = ::fork();
        REQUIRE(child >= 0);
        if (child == 0) {
            ::close(ready[0]);
            auto store = ResultStore::open(dir.path);
            for (int i = 0;; ++i) {
                const std::string key =
                    key_of("k" + std::to_string(attempt) + "/" + std::to_string(i));
                store->put(key, payload_of(key, 100 + i % 3000));
                if (i == 0) {  // on disk; killed from now on, mid-write or between two
                    store->flush();
                    [[maybe_unused]] const auto n = ::write(ready[1], "1", 1);
                    ::close(ready[1]);
                }
            }
        }
        ::close(ready[1]);
        char byte = 0;
        REQUIRE(::read(ready[0], &byte, 1) == 1);
        ::close(ready[0]);
        std::this_thread::sleep_for(std::chrono::microseconds(random() % 30000));
        ::kill(child, SIGKILL);
        int status = 0;
        REQUIRE(::waitpid(child, &status, 0) == child);
        auto store = ResultStore::open(dir.path);
        // The child's keys in order: a prefix of them is there, each whole; then none.
        int i = 0;
        for (;; ++i) {
            const std::string key = key_of("k" + std::to_string(attempt) + "/" + std::to_string(i));
            const auto got = store->get(key);
            if (!got) break;
            CHECK(*got == payload_of(key, 100 + i % 3000));
        }
        for (int j = i + 1; j < i + 50; ++j) {
            CHECK_FALSE(
                store->get(key_of("k" + std::to_string(attempt) + "/" + std::to_string(j))));
        }
        CHECK(store->stats().corrupt == 0);
        found += i;
    }
    CHECK(packs_in(dir.path).size() == 8);
    CHECK(found >= 8);
}

TEST_CASE("result store: packs are pruned whole, the least recently used first",
          "[result_store][packs]") {
    TempDir dir;
    ResultStoreOptions options;
    options.max_bytes = 16 * 4000;  // a pack is started past a sixteenth: 4000 bytes
    auto store = ResultStore::open(dir.path, options);
    std::vector<std::string> keys;
    for (int i = 0; i < 200; ++i) {
        keys.push_back(key_of("line " + std::to_string(i)));
        store->put(keys.back(), payload_of(keys.back(), 944));  // records of 1000 bytes
    }
    // Pruned as it went: the store keeps under its limit, in packs of 4 or 5 records.
    const auto info = store->info();
    CHECK(info.bytes <= options.max_bytes);
    CHECK(store->stats().prunes > 0);
    CHECK(info.packs >= 10);
    CHECK(info.entries * 1000 == info.bytes);
    // The newest results are there, the oldest gone, in this run and the next.
    store->flush();
    auto next = ResultStore::open(dir.path, options);
    for (auto* s : {store.get(), next.get()}) {
        CHECK(s->get(keys.back()));
        CHECK(s->get(keys[195]));
        CHECK_FALSE(s->get(keys[0]));
        CHECK_FALSE(s->get(keys[100]));
    }
    // The pack being written is never pruned, even down to nothing.
    const fs::path writing = store->pack_path();
    const auto pruned = store->prune(0);
    CHECK(fs::exists(writing));
    CHECK(packs_in(dir.path) == std::vector<fs::path>{writing});
    CHECK(pruned.left_bytes == fs::file_size(writing));
    CHECK(store->get(keys.back()));
    // A pack's hit marks it used, as an entry file's does (once per touch_after: a run that
    // indexed the pack 300 s after its last use).
    set_age(writing, 300);
    CHECK(ResultStore::open(dir.path, options)->get(keys.back()));
    CHECK(age_of(writing) < 5);
}

TEST_CASE("result store: threads pack concurrently, and clear removes the packs",
          "[result_store][packs]") {
    TempDir dir;
    ResultStoreOptions options;
    options.max_bytes = 200 << 10;  // prunes run while the other threads read and write
    auto store = ResultStore::open(dir.path, options);
    CHECK(threads_put_and_get(*store, 400, 50, 2000) == 0);
    CHECK(store->stats().corrupt == 0);
    // Puts that race a prune may leave the store over its limit by what they wrote meanwhile
    // (about a pack: the pack being written is never pruned) until the next put prunes again.
    // The count the puts keep must not fall behind the bytes written while a prune runs: it did,
    // and then no later put pruned (357 KiB in a 200 KiB store, 1 in 4 runs on a busy machine).
    CHECK(store->info().bytes <= options.max_bytes + options.max_bytes / 8);
    CHECK_FALSE(packs_in(dir.path).empty());

    const auto cleared = store->clear();
    CHECK(cleared.left_entries == 0);
    CHECK(packs_in(dir.path).empty());
    CHECK_FALSE(store->get(key_of("k1")));
    store->put(key_of("k1"), "again");
    store->flush();
    CHECK(store->get(key_of("k1")) == "again");
    CHECK(ResultStore::open(dir.path)->get(key_of("k1")) == "again");
}

TEST_CASE("result store: manifests round-trip per Call identity, checked like entries",
          "[result_store]") {
    TempDir dir;
    auto store = ResultStore::open(dir.path);
    const nlohmann::json manifest = {
        {"code", "0123456789abcdef0123456789abcdef"},
        {"functions", {{{"name", "assemble"}, {"file", "udfs.cpp"}, {"line", 12}}}},
        {"arguments", {{"dpi", 150}}},
        {"operator", "std.pdf.pages 1.2"}};
    CHECK_FALSE(store->get_manifest("docs/assemble@3"));
    store->put_manifest("docs/assemble@3", manifest);
    CHECK(store->get_manifest("docs/assemble@3") == manifest);
    CHECK_FALSE(store->get_manifest("docs/assemble@4"));
    // Written again at the end of the next run: the last one wins.
    store->put_manifest("docs/assemble@3", {{"code", "other"}});
    CHECK(store->get_manifest("docs/assemble@3") == nlohmann::json{{"code", "other"}});
    // A damaged manifest is a miss and counted.
    fs::path file;
    for (const auto& f : fs::recursive_directory_iterator(dir.path / "manifests")) {
        if (f.is_regular_file()) file = f.path();
    }
    REQUIRE_FALSE(file.empty());
    std::string bytes = read_file(file);
    bytes[bytes.size() - 3] ^= 0x01;
    write_file(file, bytes);
    CHECK_FALSE(store->get_manifest("docs/assemble@3"));
    REQUIRE(store->corrupt_entries().size() == 1);
    CHECK(store->corrupt_entries()[0].key == "manifest:docs/assemble@3");
}

namespace {

// What opening a store in `dir` throws; "" when it opens.
std::string open_error(const fs::path& dir) {
    try {
        ResultStore::open(dir);
    } catch (const ResultStoreError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("result store: a folder that cannot be created or written is a clear error",
          "[result_store]") {
    TempDir dir;
    fs::create_directories(dir.path);
    write_file(dir.path / "a-file", "not a folder");
    const fs::path under_file = dir.path / "a-file" / "store";
    CHECK_THAT(open_error(under_file), Catch::Matchers::ContainsSubstring(under_file.string()) &&
                                           Catch::Matchers::ContainsSubstring("Not a directory"));
    if (::geteuid() != 0) {  // root writes where permissions say no
        const fs::path locked = dir.path / "locked";
        fs::create_directories(locked);
        fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
        CHECK_THAT(open_error(locked / "store"),
                   Catch::Matchers::ContainsSubstring((locked / "store").string()));
    }
}

TEST_CASE("result store: sizes as --cache-prune reads and --cache-info prints them",
          "[result_store]") {
    using rop::runtime::detail::format_store_bytes;
    using rop::runtime::detail::parse_store_size;
    CHECK(parse_store_size("10G") == std::uintmax_t{10} << 30);
    CHECK(parse_store_size("500MiB") == std::uintmax_t{500} << 20);
    CHECK(parse_store_size("1024") == 1024u);
    CHECK_FALSE(parse_store_size("ten"));
    CHECK_FALSE(parse_store_size("5X"));
    CHECK(format_store_bytes(812) == "812 B");
    CHECK(format_store_bytes(std::uintmax_t{5} << 30) == "5.0 GiB");
}
