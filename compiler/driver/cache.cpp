#include "driver/cache.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "driver/hash.h"

namespace rop::driver {
namespace fs = std::filesystem;

namespace {

// A temporary name beside `path` that no other process or thread of this build uses.
std::string temp_name(const fs::path& path) {
    static std::atomic<unsigned> counter{0};
    return path.string() + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
}

}  // namespace

bool write_file_atomically(const fs::path& path, const std::string& content) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    const fs::path temp = temp_name(path);
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        if (!out) return false;
        out << content;
        if (!out.flush()) return false;
    }
    fs::rename(temp, path, ec);
    return !ec;
}

bool copy_atomically(const fs::path& from, const fs::path& to, bool executable) {
    std::error_code ec;
    if (!to.parent_path().empty()) fs::create_directories(to.parent_path(), ec);
    const fs::path temp = temp_name(to);
    fs::copy_file(from, temp, fs::copy_options::overwrite_existing, ec);
    if (ec) return false;
    if (executable) {
        fs::permissions(temp,
                        fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                            fs::perms::others_read | fs::perms::others_exec,
                        ec);
    }
    fs::rename(temp, to, ec);
    if (ec) {
        fs::remove(temp, ec);
        return false;
    }
    return true;
}

// The files a make-style dependency file (-MMD) lists after the target.
std::vector<std::string> parse_deps(const std::string& text) {
    std::vector<std::string> files;
    const std::size_t colon = text.find(": ");
    if (colon == std::string::npos) return files;
    std::string current;
    for (std::size_t i = colon + 1; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
            ++i;
            continue;
        }
        if (c == '\\' && i + 1 < text.size() && text[i + 1] == ' ') {
            current += ' ';
            ++i;
            continue;
        }
        if (c == ' ' || c == '\n' || c == '\t') {
            if (!current.empty()) files.push_back(current);
            current.clear();
            if (c == '\n' && i + 1 < text.size() && text[i + 1] != ' ') break;
            continue;
        }
        current += c;
    }
    if (!current.empty()) files.push_back(current);
    return files;
}

std::string Manifest::text() const {
    std::string out = "value " + value + "\n";
    for (const auto& [path, hash] : files) out += hash + " " + path + "\n";
    return out;
}
std::optional<Manifest> Manifest::parse(const std::string& text) {
    Manifest m;
    std::istringstream in(text);
    std::string line;
    if (!std::getline(in, line) || line.rfind("value ", 0) != 0) return std::nullopt;
    m.value = line.substr(6);
    while (std::getline(in, line)) {
        if (line.size() < 34) return std::nullopt;
        m.files.emplace_back(line.substr(33), line.substr(0, 32));
    }
    return m;
}
bool Manifest::fresh() const {
    for (const auto& [path, hash] : files) {
        std::optional<std::string> now = identity(path, hash.starts_with("s"));
        if (!now || *now != hash) return false;
    }
    return true;
}
bool Manifest::add(const std::string& path) {
    std::optional<std::string> hash = identity(path, path.ends_with(".a"));
    if (!hash) return false;
    files.emplace_back(path, *hash);
    return true;
}
std::optional<std::string> Manifest::identity(const std::string& path, bool by_stat) {
    if (!by_stat) return hash_file(path);
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (ec) return std::nullopt;
    const auto time = fs::last_write_time(path, ec);
    if (ec) return std::nullopt;
    // 32 characters like a content hash, starting with 's' (hex digits never do).
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "s%015llx%016llx",
                  static_cast<unsigned long long>(size) & 0xfffffffffffffffull,
                  static_cast<unsigned long long>(time.time_since_epoch().count()));
    return std::string(buffer);
}

std::string absolute(const std::string& path) {
    std::error_code ec;
    fs::path p = fs::absolute(path, ec);
    return ec ? path : p.lexically_normal().string();
}

}  // namespace rop::driver
